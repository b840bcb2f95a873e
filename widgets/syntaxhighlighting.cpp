#include "syntaxhighlighting.h"

#include "nixhighlighter.h"

#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#include <KSyntaxHighlighting/Theme>
#endif

namespace rg {

#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
namespace {

KSyntaxHighlighting::Repository& repository()
{
    static KSyntaxHighlighting::Repository instance;
    return instance;
}

KSyntaxHighlighting::Theme themeFor(const QPalette& palette)
{
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    return repository().defaultTheme(dark ? KSyntaxHighlighting::Repository::DarkTheme
                                          : KSyntaxHighlighting::Repository::LightTheme);
}

} // namespace
#endif

QString SyntaxHighlighting::backendName()
{
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
    return QStringLiteral("KSyntaxHighlighting %1 (Nix definition)")
        .arg(QStringLiteral(RG_KSYNTAXHIGHLIGHTING_VERSION));
#else
    return QStringLiteral("built-in Nix highlighter");
#endif
}

bool SyntaxHighlighting::usesKSyntaxHighlighting()
{
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
    return true;
#else
    return false;
#endif
}

QSyntaxHighlighter* SyntaxHighlighting::attach(QTextDocument* document, const QPalette& palette)
{
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
    const KSyntaxHighlighting::Definition nix =
        repository().definitionForName(QStringLiteral("Nix"));
    if (nix.isValid()) {
        auto* highlighter = new KSyntaxHighlighting::SyntaxHighlighter(document);
        highlighter->setDefinition(nix);
        highlighter->setTheme(themeFor(palette));
        return highlighter;
    }
#endif
    return new NixHighlighter(document, palette);
}

void SyntaxHighlighting::setPalette(QSyntaxHighlighter* highlighter, const QPalette& palette)
{
    if (auto* builtin = qobject_cast<NixHighlighter*>(highlighter)) {
        builtin->setPalette(palette);
        return;
    }
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
    if (auto* ksyntax = qobject_cast<KSyntaxHighlighting::SyntaxHighlighter*>(highlighter)) {
        ksyntax->setTheme(themeFor(palette));
        ksyntax->rehighlight();
    }
#endif
}

} // namespace rg

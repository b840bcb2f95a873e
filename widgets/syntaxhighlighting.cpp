#include "syntaxhighlighting.h"

#include "diffhighlighter.h"
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

namespace {

const QString builtinName = QStringLiteral("built-in Nix highlighter");
const QString builtinDiffName = QStringLiteral("built-in diff highlighter");

#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
// Which definition a KSyntaxHighlighting highlighter was given, for nameOf: kept on the object
// so naming it needs nothing beyond the API attach() already uses.
const char* const definitionProperty = "rgDefinition";

QString ksyntaxNameFor(const QString& definition)
{
    return QStringLiteral("KSyntaxHighlighting %1 (%2 definition)")
        .arg(QStringLiteral(RG_KSYNTAXHIGHLIGHTING_VERSION), definition);
}

const QString ksyntaxName = ksyntaxNameFor(QStringLiteral("Nix"));

// The library's Nix definition; invalid when the library was built without its bundled
// definitions. The fallback is said once, not per preview.
KSyntaxHighlighting::Definition nixDefinition()
{
    const KSyntaxHighlighting::Definition nix =
        repository().definitionForName(QStringLiteral("Nix"));
    static const bool logged = [&] {
        if (!nix.isValid())
            qWarning("recipegrid: KSyntaxHighlighting has no Nix definition; the preview uses the "
                     "built-in Nix highlighter");
        return true;
    }();
    (void)logged;
    return nix;
}

// The library's Diff definition, with the same fallback (said once) as Nix.
KSyntaxHighlighting::Definition diffDefinition()
{
    const KSyntaxHighlighting::Definition diff =
        repository().definitionForName(QStringLiteral("Diff"));
    static const bool logged = [&] {
        if (!diff.isValid())
            qWarning("recipegrid: KSyntaxHighlighting has no Diff definition; the change review "
                     "uses the built-in diff highlighter");
        return true;
    }();
    (void)logged;
    return diff;
}
#endif

} // namespace

QString SyntaxHighlighting::backendName()
{
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
    if (nixDefinition().isValid())
        return ksyntaxName;
#endif
    return builtinName;
}

bool SyntaxHighlighting::usesKSyntaxHighlighting()
{
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
    return nixDefinition().isValid();
#else
    return false;
#endif
}

QString SyntaxHighlighting::nameOf(const QSyntaxHighlighter* highlighter)
{
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
    if (qobject_cast<const KSyntaxHighlighting::SyntaxHighlighter*>(highlighter)) {
        const QString definition = highlighter->property(definitionProperty).toString();
        return definition.isEmpty() ? ksyntaxName : ksyntaxNameFor(definition);
    }
#endif
    if (qobject_cast<const DiffHighlighter*>(highlighter))
        return builtinDiffName;
    return qobject_cast<const NixHighlighter*>(highlighter) ? builtinName : QString();
}

QSyntaxHighlighter* SyntaxHighlighting::attach(QTextDocument* document, const QPalette& palette)
{
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
    const KSyntaxHighlighting::Definition nix = nixDefinition();
    if (nix.isValid()) {
        auto* highlighter = new KSyntaxHighlighting::SyntaxHighlighter(document);
        highlighter->setDefinition(nix);
        highlighter->setTheme(themeFor(palette));
        highlighter->setProperty(definitionProperty, QStringLiteral("Nix"));
        return highlighter;
    }
#endif
    return new NixHighlighter(document, palette);
}

QSyntaxHighlighter* SyntaxHighlighting::attachDiff(QTextDocument* document, const QPalette& palette)
{
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
    const KSyntaxHighlighting::Definition diff = diffDefinition();
    if (diff.isValid()) {
        auto* highlighter = new KSyntaxHighlighting::SyntaxHighlighter(document);
        highlighter->setDefinition(diff);
        highlighter->setTheme(themeFor(palette));
        highlighter->setProperty(definitionProperty, QStringLiteral("Diff"));
        return highlighter;
    }
#endif
    return new DiffHighlighter(document, palette);
}

void SyntaxHighlighting::setPalette(QSyntaxHighlighter* highlighter, const QPalette& palette)
{
    if (auto* builtin = qobject_cast<NixHighlighter*>(highlighter)) {
        builtin->setPalette(palette);
        return;
    }
    if (auto* diff = qobject_cast<DiffHighlighter*>(highlighter)) {
        diff->setPalette(palette);
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

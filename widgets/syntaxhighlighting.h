#pragma once

// One interface for highlighting, whatever the backend: Nix in the preview and unified diffs
// in the change set review. KSyntaxHighlighting with its Nix (Diff) definition when a Qt 6
// build was found at configure time (RG_HAVE_KSYNTAXHIGHLIGHTING), otherwise the built-in
// NixHighlighter (DiffHighlighter).

#include <QPalette>
#include <QString>

class QSyntaxHighlighter;
class QTextDocument;

namespace rg {

class SyntaxHighlighting
{
public:
    // The highlighter attach() gives, by name: "KSyntaxHighlighting 5.103.0 (Nix definition)"
    // or "built-in Nix highlighter" — decided at run time, since a KSyntaxHighlighting build
    // without its Nix definition falls back to the built-in one. For About and logs.
    static QString backendName();
    static bool usesKSyntaxHighlighting();
    // The name of a highlighter attach() or attachDiff() returned: "built-in diff
    // highlighter", "KSyntaxHighlighting 5.103.0 (Diff definition)", …
    static QString nameOf(const QSyntaxHighlighter* highlighter);
    // A Nix highlighter for `document` (owned by it) with colours following `palette`.
    static QSyntaxHighlighter* attach(QTextDocument* document, const QPalette& palette);
    // A unified diff highlighter for `document` (owned by it), colours following `palette`.
    static QSyntaxHighlighter* attachDiff(QTextDocument* document, const QPalette& palette);
    // After a light/dark switch.
    static void setPalette(QSyntaxHighlighter* highlighter, const QPalette& palette);
};

} // namespace rg

#pragma once

// One interface for Nix highlighting in the preview, whatever the backend: KSyntaxHighlighting
// with its Nix definition when a Qt 6 build was found at configure time
// (RG_HAVE_KSYNTAXHIGHLIGHTING), otherwise the built-in NixHighlighter.

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
    // The name of a highlighter attach() returned.
    static QString nameOf(const QSyntaxHighlighter* highlighter);
    // A highlighter for `document` (owned by it) with colours following `palette`.
    static QSyntaxHighlighter* attach(QTextDocument* document, const QPalette& palette);
    // After a light/dark switch.
    static void setPalette(QSyntaxHighlighter* highlighter, const QPalette& palette);
};

} // namespace rg

#pragma once

// Read-only, monospace view of one unified diff, highlighted (SyntaxHighlighting::attachDiff).
// Added and removed lines are tinted across the whole width with the built-in highlighter.
// n / p and Alt+Down / Alt+Up ask for the next or previous file, so a review can be read
// from the keyboard without leaving the diff.

#include <QPlainTextEdit>

class QSyntaxHighlighter;

namespace rg {

class DiffView : public QPlainTextEdit
{
    Q_OBJECT
public:
    explicit DiffView(QWidget* parent = nullptr);

    void setDiff(const QString& diff); // scrolls to the top
    // Instead of a diff: why there is none ("select a file", "binary file", …).
    void showMessage(const QString& message);
    QString diff() const { return m_diff; }
    QSyntaxHighlighter* highlighter() const { return m_highlighter; }

signals:
    void nextFileRequested();
    void previousFileRequested();

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    QSyntaxHighlighter* m_highlighter;
    QString m_diff;
};

} // namespace rg

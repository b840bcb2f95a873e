#pragma once

// A strip above the grid for things the user must know now: a malformed spec
// (file:line:column), an unreadable recipe directory, a read-only revision.

#include <QFrame>

class QLabel;
class QToolButton;

namespace rg {

class MessageBanner : public QFrame
{
    Q_OBJECT
public:
    enum class Kind { Error, Warning, Info };

    explicit MessageBanner(QWidget* parent = nullptr);
    void showMessage(Kind kind, const QString& text);
    QString text() const;
    Kind kind() const { return m_kind; }

private:
    void applyStyle();
    QLabel* m_icon;
    QLabel* m_text;
    QToolButton* m_close;
    Kind m_kind = Kind::Info;
};

} // namespace rg

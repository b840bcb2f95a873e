#pragma once

#include <QDialog>

namespace rg {

// Version, what the app is for, and which Nix highlighter backend this build uses.
class AboutDialog : public QDialog
{
    Q_OBJECT
public:
    explicit AboutDialog(QWidget* parent = nullptr);
    QString text() const;

private:
    QString m_text;
};

} // namespace rg

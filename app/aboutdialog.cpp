#include "aboutdialog.h"

#include "syntaxhighlighting.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QVBoxLayout>
#include <QtGlobal>
#include <git2.h>

namespace rg {

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("About RecipeGrid"));
    int major = 0, minor = 0, revision = 0;
    git_libgit2_version(&major, &minor, &revision);
    m_text = tr("<h2>RecipeGrid %1</h2>"
                "<p>Build-matrix recipe repositories at a glance: every PyTorch variant "
                "(Python \u00d7 CUDA \u00d7 GPU arch \u00d7 CPU ISA) of a branch, what is ok, "
                "broken, redundant, missing, unexpected or impossible, and why.</p>"
                "<table>"
                "<tr><td><b>Nix highlighting</b></td><td>%2</td></tr>"
                "<tr><td><b>Qt</b></td><td>%3</td></tr>"
                "<tr><td><b>libgit2</b></td><td>%4.%5.%6</td></tr>"
                "</table>")
                 .arg(QStringLiteral(RG_VERSION), SyntaxHighlighting::backendName().toHtmlEscaped(),
                      QString::fromLatin1(qVersion()))
                 .arg(major)
                 .arg(minor)
                 .arg(revision);
    auto* layout = new QVBoxLayout(this);
    auto* label = new QLabel(m_text, this);
    label->setTextFormat(Qt::RichText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(label);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    setMinimumWidth(460);
}

QString AboutDialog::text() const
{
    return m_text;
}

} // namespace rg

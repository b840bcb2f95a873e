#include "emptystatepage.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace rg {

EmptyStatePage::EmptyStatePage(QWidget* parent)
    : QWidget(parent), m_title(new QLabel(this)), m_message(new QLabel(this)),
      m_open(new QPushButton(tr("&Open Repository\u2026"), this)),
      m_demo(new QPushButton(tr("Open the &Demo Repository"), this)),
      m_recent(new QListWidget(this)), m_recentTitle(new QLabel(tr("Recent repositories"), this))
{
    auto* outer = new QVBoxLayout(this);
    outer->addStretch(1);
    auto* column = new QVBoxLayout;
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.6);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setAlignment(Qt::AlignCenter);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::RichText);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setMaximumWidth(640);
    column->addWidget(m_title);
    column->addSpacing(8);
    // Not added with an alignment: an aligned widget gets its size hint, whose height is for
    // the label's own guess of a width, and a longer text then loses its last lines. Between
    // stretches the layout asks the label's height for the width it really gets.
    auto* message = new QHBoxLayout;
    message->addStretch(1);
    message->addWidget(m_message, 100);
    message->addStretch(1);
    column->addLayout(message);
    column->addSpacing(16);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_open);
    buttons->addWidget(m_demo);
    buttons->addStretch(1);
    column->addLayout(buttons);
    column->addSpacing(16);
    column->addWidget(m_recentTitle, 0, Qt::AlignHCenter);
    m_recent->setMaximumWidth(640);
    m_recent->setMaximumHeight(160);
    m_recent->setAccessibleName(tr("Recent repositories"));
    column->addWidget(m_recent, 0, Qt::AlignHCenter);
    outer->addLayout(column);
    outer->addStretch(2);
    m_open->setDefault(true);

    connect(m_open, &QPushButton::clicked, this, &EmptyStatePage::openRequested);
    connect(m_demo, &QPushButton::clicked, this, &EmptyStatePage::demoRequested);
    connect(m_recent, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { emit recentRequested(item->text()); });
}

void EmptyStatePage::showWelcome(const QStringList& recent)
{
    m_title->setText(tr("Welcome to RecipeGrid"));
    m_message->setText(tr(
        "Open a recipe repository \u2014 a git work tree whose <code>.flox/pkgs/*.nix</code> "
        "files each build one variant (Python \u00d7 CUDA \u00d7 GPU arch \u00d7 CPU ISA) \u2014 "
        "to see its whole build matrix at a glance.<br><br>New here? The demo repository "
        "shows every status: ok, broken, redundant, missing, unexpected and impossible."));
    m_welcome = true;
    setRecent(recent);
}

void EmptyStatePage::setRecent(const QStringList& recent)
{
    m_recent->clear();
    m_recent->addItems(recent);
    m_recent->setVisible(m_welcome && !recent.isEmpty());
    m_recentTitle->setVisible(m_welcome && !recent.isEmpty());
}

void EmptyStatePage::showNoRecipes(const QString& path, const QString& recipeDir)
{
    m_title->setText(tr("No recipes here"));
    m_message->setText(
        tr("<code>%1</code> has no recipe directory.<br><br>RecipeGrid looks for "
           "<code>%2/*.nix</code>: one Nix file per variant, named like "
           "<code>pytorch-python313-cuda13_0-sm120-avx512.nix</code>, and optionally a matrix "
           "spec in <code>.flox/recipegrid.json</code>. Open the root of such a repository.")
            .arg(path.toHtmlEscaped(), recipeDir.toHtmlEscaped()));
    m_welcome = false;
    m_recent->hide();
    m_recentTitle->hide();
}

QString EmptyStatePage::title() const
{
    return m_title->text();
}

QString EmptyStatePage::message() const
{
    return m_message->text();
}

} // namespace rg

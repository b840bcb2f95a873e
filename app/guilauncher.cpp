#include "guilauncher.h"

#include "mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>

namespace rg {

int GuiLauncher::run(int argc, char* argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("RecipeGrid"));
    QApplication::setOrganizationName(QStringLiteral("RecipeGrid"));
    QApplication::setApplicationVersion(QStringLiteral(RG_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Build-matrix recipe repositories at a glance.\n"
                       "Run `recipegrid help` for the headless commands."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("repository"),
                                 QStringLiteral("Recipe repository to open."), QStringLiteral("[REPO]"));
    parser.process(app);

    MainWindow window;
    window.show();
    if (!parser.positionalArguments().isEmpty())
        window.openRepository(parser.positionalArguments().constFirst());
    return QApplication::exec();
}

} // namespace rg

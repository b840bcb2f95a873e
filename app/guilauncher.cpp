#include "guilauncher.h"

#include "mainwindow.h"
#include "recipes/repositorysession.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QSettings>
#include <QTimer>
#include <iostream>

namespace rg {

namespace {

// For docs and visual checks: waits for the first analysis, lets the window paint, saves it.
void scheduleScreenshot(MainWindow* window, const QString& file, const QString& variant)
{
    auto* session = window->session();
    auto done = std::make_shared<bool>(false);
    auto take = [window, file, variant, done] {
        if (*done)
            return;
        *done = true;
        if (!variant.isEmpty() && !window->selectVariant(variant))
            std::cerr << "recipegrid: variant not in the grid: " << variant.toStdString() << '\n';
        // Two event-loop turns: the preview reads its file off-thread.
        QTimer::singleShot(700, window, [window, file] {
            const bool ok = window->grab().save(file);
            std::cerr << (ok ? "recipegrid: saved " : "recipegrid: could not save ")
                      << file.toStdString() << '\n';
            QCoreApplication::exit(ok ? 0 : 1);
        });
    };
    QObject::connect(session, &RepositorySession::analysisChanged, window, take);
    // Nothing to analyse (no repository given): shoot the welcome page.
    QTimer::singleShot(1500, window, [session, take] {
        if (!session->isOpen())
            take();
    });
    QTimer::singleShot(60000, window, [] { QCoreApplication::exit(2); });
}

} // namespace

int GuiLauncher::run(int argc, char* argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("RecipeGrid"));
    QApplication::setOrganizationName(QStringLiteral("RecipeGrid"));
    QApplication::setApplicationVersion(QStringLiteral(RG_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("recipegrid"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/recipegrid.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Build-matrix recipe repositories at a glance.\n"
                       "Run `recipegrid help` for the headless commands."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("repository"),
                                 QStringLiteral("Recipe repository to open."),
                                 QStringLiteral("[REPO]"));
    const QCommandLineOption demo(
        QStringLiteral("demo"),
        QStringLiteral("Open the bundled demo repository (a temporary git copy)."));
    parser.addOption(demo);
    const QCommandLineOption revision(
        QStringLiteral("revision"),
        QStringLiteral("Open REV of the repository read-only, from git."), QStringLiteral("REV"));
    parser.addOption(revision);
    QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Save the window to FILE once analysed, then quit."),
        QStringLiteral("FILE"));
    screenshot.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(screenshot);
    QCommandLineOption select(QStringLiteral("select"),
                              QStringLiteral("Select VARIANT's cell after opening."),
                              QStringLiteral("VARIANT"));
    select.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(select);
    parser.process(app);

    MainWindow window;
    window.show();
    if (parser.isSet(screenshot))
        scheduleScreenshot(&window, parser.value(screenshot), parser.value(select));
    else if (parser.isSet(select)) {
        QObject::connect(
            window.session(), &RepositorySession::analysisChanged, &window,
            [&window, variant = parser.value(select)] { window.selectVariant(variant); },
            Qt::SingleShotConnection);
    }

    if (parser.isSet(demo)) {
        window.openDemo();
    } else if (!parser.positionalArguments().isEmpty()) {
        const QString path = parser.positionalArguments().constFirst();
        if (parser.isSet(revision))
            window.openRevision(path, parser.value(revision));
        else
            window.openRepository(path);
    }
    return QApplication::exec();
}

} // namespace rg

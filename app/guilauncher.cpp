#include "guilauncher.h"

#include "headlesscommands.h"
#include "mainwindow.h"
#include "sessions/repositorysession.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QSettings>
#include <QTimer>
#include <iostream>
#include <string_view>

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
        if (!variant.isEmpty() && !window->selectCell(CellSelector(variant.toStdString())))
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

// The window's options. Described once so that --help and --version can be answered by a
// QCoreApplication: a QApplication needs a display, and asking for help must not.
struct GuiOptions
{
    QCommandLineOption demo{
        QStringLiteral("demo"),
        QStringLiteral("Open the bundled demo repository (a temporary git copy).")};
    QCommandLineOption revision{QStringLiteral("revision"),
                                QStringLiteral("Open REV of the repository read-only, from git."),
                                QStringLiteral("REV")};
    QCommandLineOption screenshot{
        QStringLiteral("screenshot"),
        QStringLiteral("Save the window to FILE once analysed, then quit."),
        QStringLiteral("FILE")};
    QCommandLineOption select{
        QStringLiteral("select"),
        QStringLiteral("Select the cell of RECIPE after opening: a path or file name, a variant "
                       "name, or a cell key (pytorch:python313-cpu-avx2)."),
        QStringLiteral("RECIPE")};

    void describe(QCommandLineParser& parser)
    {
        parser.setApplicationDescription(
            QStringLiteral("Build-matrix recipe repositories at a glance.\n"
                           "Run `recipegrid help` for the headless commands."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addPositionalArgument(QStringLiteral("repository"),
                                     QStringLiteral("Recipe repository to open."),
                                     QStringLiteral("[REPO]"));
        parser.addOption(demo);
        parser.addOption(revision);
        screenshot.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(screenshot);
        select.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(select);
    }
};

bool asksForHelpOrVersion(int argc, char* argv[])
{
    for (int i = 1; i < argc; ++i) {
        const std::string_view argument = argv[i];
        if (argument == "--")
            return false;
        if (argument == "-h" || argument == "--help" || argument == "--help-all" ||
            argument == "-?" || argument == "-v" || argument == "--version")
            return true;
    }
    return false;
}

// Whether Qt's platform plugin will find something to draw on. Where it finds no display
// server Qt aborts (exit 134, a core dump), so the window must not be tried then. xcb needs
// DISPLAY, wayland WAYLAND_DISPLAY; the others (offscreen, minimal, vnc, eglfs, linuxfb…) need
// neither, or are left to Qt to judge.
bool displayAvailable(int argc, char* argv[])
{
#if defined(Q_OS_UNIX) && !defined(Q_OS_MACOS)
    QString platforms = qEnvironmentVariable("QT_QPA_PLATFORM");
    for (int i = 1; i + 1 < argc; ++i) {
        const std::string_view argument = argv[i];
        if (argument == "-platform" || argument == "--platform")
            platforms = QString::fromLocal8Bit(argv[i + 1]);
    }
    const bool x11 = !qEnvironmentVariableIsEmpty("DISPLAY");
    const bool wayland = !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
    if (platforms.isEmpty())
        return x11 || wayland;
    // "wayland;xcb" is a list of fallbacks; "vnc:size=800x600" carries options.
    for (const QString& entry : platforms.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        const QString name = entry.section(QLatin1Char(':'), 0, 0).trimmed();
        const bool found = name == QLatin1String("xcb")                ? x11
                           : name.startsWith(QLatin1String("wayland")) ? wayland
                                                                       : true;
        if (found)
            return true;
    }
    return false;
#else
    Q_UNUSED(argc);
    Q_UNUSED(argv);
    return true;
#endif
}

void setApplicationIdentity()
{
    QCoreApplication::setApplicationName(QStringLiteral("RecipeGrid"));
    QCoreApplication::setOrganizationName(QStringLiteral("RecipeGrid"));
    QCoreApplication::setApplicationVersion(QStringLiteral(RG_VERSION));
}

} // namespace

int GuiLauncher::run(int argc, char* argv[])
{
    GuiOptions options;
    if (asksForHelpOrVersion(argc, argv)) {
        QCoreApplication headless(argc, argv);
        setApplicationIdentity();
        QCommandLineParser parser;
        options.describe(parser);
        parser.process(headless); // prints and exits
        return 0;
    }

    if (!displayAvailable(argc, argv)) {
        std::cerr << "recipegrid: no display to open the window on (DISPLAY and WAYLAND_DISPLAY "
                     "are unset); see 'recipegrid --help', or run a headless command ("
                  << HeadlessCommands::names() << "; 'recipegrid help' lists them)\n";
        return 2;
    }
    QApplication app(argc, argv);
    setApplicationIdentity();
    QApplication::setDesktopFileName(QStringLiteral("recipegrid"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/recipegrid.svg")));

    QCommandLineParser parser;
    options.describe(parser);
    parser.process(app);
    const QCommandLineOption& demo = options.demo;
    const QCommandLineOption& revision = options.revision;
    const QCommandLineOption& screenshot = options.screenshot;
    const QCommandLineOption& select = options.select;

    MainWindow window;
    window.show();
    if (parser.isSet(screenshot))
        scheduleScreenshot(&window, parser.value(screenshot), parser.value(select));
    else if (parser.isSet(select)) {
        QObject::connect(
            window.session(), &RepositorySession::analysisChanged, &window,
            [&window, cell = parser.value(select).toStdString()] {
                window.selectCell(CellSelector(cell));
            },
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

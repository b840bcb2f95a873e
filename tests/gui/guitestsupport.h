#pragma once

// Shared by the GUI suites: fixture repositories copied into a temporary directory (so tests
// may edit them), file helpers, and settings kept out of the user's own.

#include <QApplication>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QDirIterator>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

namespace rg::test {

// The action of the menu bar named `objectName`, nullptr when no menu has it.
inline QAction* menuAction(QMainWindow& window, const QString& objectName)
{
    for (QAction* menu : window.menuBar()->actions())
        if (menu->menu())
            for (QAction* action : menu->menu()->actions())
                if (action->objectName() == objectName)
                    return action;
    return nullptr;
}

// Copies tests/fixtures/<name> (hidden .flox included) to `target`.
inline bool copyFixture(const QString& name, const QString& target)
{
    const QString source = QStringLiteral(RG_FIXTURES_DIR "/") + name;
    QDirIterator it(source, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    int copied = 0;
    while (it.hasNext()) {
        const QString from = it.next();
        const QString to = target + from.mid(source.size());
        QDir().mkpath(QFileInfo(to).absolutePath());
        if (!QFile::copy(from, to))
            return false;
        QFile::setPermissions(to, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup |
                                      QFile::ReadOther);
        ++copied;
    }
    return copied > 0;
}

inline QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

inline bool writeAll(const QString& path, const QByteArray& bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return file.write(bytes) == bytes.size();
}

// QSettings and QStandardPaths in folders of this run's own: tests never see the user's recent
// list or build history, nor another run's. The folders are a temporary directory made on the
// first call and removed when the suite exits, so two runs of one suite at once (CTest in
// parallel, a developer beside CI) cannot wipe each other's; ~/.qttest, which Qt's test mode
// would use, is one folder per user shared by every run. Each later call empties them again,
// for suites where every test starts as a new user.
inline void isolateSettings()
{
    static QTemporaryDir root(QDir::tempPath() + QStringLiteral("/recipegrid-settings-XXXXXX"));
    static const bool pointed = [] {
        if (!root.isValid())
            qFatal("cannot make a temporary settings folder: %s", qPrintable(root.errorString()));
        // Test mode ignores XDG_CONFIG_HOME and XDG_DATA_HOME in favour of ~/.qttest.
        QStandardPaths::setTestModeEnabled(false);
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(root.filePath(QStringLiteral("config"))));
        qputenv("XDG_DATA_HOME", QFile::encodeName(root.filePath(QStringLiteral("data"))));
        return true;
    }();
    Q_UNUSED(pointed);
    const QString suite = QStringLiteral("RecipeGridTests-") +
                          QFileInfo(QCoreApplication::applicationFilePath()).completeBaseName();
    QCoreApplication::setOrganizationName(suite);
    QCoreApplication::setApplicationName(suite);
    for (const QString& folder : {QStringLiteral("config"), QStringLiteral("data")}) {
        QDir dir(root.filePath(folder));
        dir.removeRecursively();
        dir.mkpath(QStringLiteral("."));
    }
}

// Turns the event loop as the application's own does, asleep until an event or a timer is due,
// until `done()` holds or `timeoutMs` pass; true when it holds. QTest::qWait and QTRY_VERIFY
// instead sleep 10 ms between their turns of the loop, which a ResponsivenessProbe running
// meanwhile would count as the window's stall.
template <typename Predicate> bool runEventLoopUntil(Predicate done, int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    QTimer wake; // a turn at least every 5 ms, to look at `done` and the deadline
    wake.start(5);
    while (!done()) {
        if (deadline.hasExpired())
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
        // As QTest::qWait does: what was deleteLater()'d outside any event loop (a dialog
        // closed by a click the test sent) goes now, not when the test returns.
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }
    return true;
}

inline void runEventLoopFor(int ms)
{
    runEventLoopUntil([] { return false; }, ms);
}

// The modal dialog of type `Dialog` once it is the active one; nullptr if none comes in time.
template <typename Dialog> Dialog* waitForModal(int timeoutMs = 30000)
{
    Dialog* dialog = nullptr;
    const bool shown = runEventLoopUntil(
        [&] {
            dialog = qobject_cast<Dialog*>(QApplication::activeModalWidget());
            return dialog != nullptr;
        },
        timeoutMs);
    return shown ? dialog : nullptr;
}

inline const char* recipe(const char* variant)
{
    static thread_local QByteArray path;
    path = QByteArray(".flox/pkgs/") + variant + ".nix";
    return path.constData();
}

} // namespace rg::test

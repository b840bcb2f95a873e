// A suite that dies mid-build, for tst_remotebuilds::nothingIsLeftWhenTheSuiteDies: starts a
// builder host, has Nix send it a long build, prints what would be left behind if teardown
// depended on the suite ending well, and aborts.

#include "builderhosts.h"
#include "builds/buildqueue.h"

#include <QCoreApplication>
#include <cstdio>
#include <cstdlib>

using namespace rg;

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    test::configureNix();
    test::BuilderHosts hosts;
    QString error;
    if (!hosts.start(1, 1, {}, &error)) {
        std::fprintf(stderr, "builder hosts: %s\n", qPrintable(error));
        return 2;
    }
    QTemporaryDir dir;
    const QString name = QStringLiteral("doomed-") + test::randomNonce();
    BuildTarget target;
    target.variant = target.pname = name;
    target.repository = dir.path();
    target.recipeFile = dir.filePath(QStringLiteral(".flox/pkgs/") + name + QStringLiteral(".nix"));
    if (!hosts.writeRecipe(target.recipeFile, name, 300))
        return 2;
    BuildQueue queue;
    BuildSettings settings;
    settings.backend = BackendKind::Nix;
    settings.builders = hosts.machines();
    settings.maxJobs = 0;
    queue.setSettings(settings);
    if (!queue.enqueue(target, &error))
        return 2;
    const bool started = QTest::qWaitFor(
        [&] { return !hosts.sharedLog().filter(QStringLiteral(" start ") + name).isEmpty(); },
        60000);
    std::printf("token: %s\nroot: %s\nbuilding: %s\n", qPrintable(name),
                qPrintable(QFileInfo(hosts.clientKey()).path()), started ? "yes" : "no");
    std::fflush(stdout);
    std::abort();
}

#pragma once

// Remote build hosts for the builder suites, real ones: each host is an SSH server (dropbear)
// in network and mount namespaces of its own, joined to the suite by a veth link, with its own
// host key, the suite's client key in its authorized keys, and a Nix store of its own
// (tests/builds/builderhost.sh). Nix reaches them as it reaches any builder: ssh://root@ADDRESS
// with the machine line machines() gives.
// The suite must run under tests/tools/in_builder_namespace.sh (CTest's BUILDER_HOSTS suites
// do): there it is root of its own namespaces, and everything a host is (link, mounts,
// processes) ends with the suite's namespace whatever happens.

#include "buildfixture.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <memory>
#include <vector>

namespace rg::test {

class BuilderHosts
{
public:
    struct Host
    {
        QString name;    // "builder-1": what its builds print as their host
        QString address; // 10.231.N.2
        QString link;    // the suite's end of its veth link
        QString dir;     // its files; its store is dir + "/nix/store"
        QString machine; // its line in Nix's machine format
        std::unique_ptr<QProcess> server;
    };

    BuilderHosts() = default;
    BuilderHosts(const BuilderHosts&) = delete;
    ~BuilderHosts()
    {
        for (Host& h : m_hosts) {
            if (h.server && h.server->state() != QProcess::NotRunning) {
                h.server->kill();
                h.server->waitForFinished(5000);
            }
        }
        // A host that failed to start may have left its link here; a running host's link went
        // with its namespace.
        for (const QString& link : m_links)
            run(QStringLiteral("ip"), {QStringLiteral("link"), QStringLiteral("del"), link});
    }

    // Starts `count` hosts, each offering `jobs` jobs and `features`; false with Nix's or the
    // tool's words in `error`.
    bool start(int count, int jobs, const QStringList& features = {}, QString* error = nullptr)
    {
        if (!qEnvironmentVariableIsSet("RG_IN_BUILDER_NAMESPACE"))
            return fail(error, QStringLiteral("run under tests/tools/in_builder_namespace.sh"));
        if (!m_root.isValid() || !prepareShared(error))
            return false;
        for (int i = 0; i < count; ++i) {
            if (!startHost(i + 1, jobs, features, error))
                return false;
        }
        return true;
    }

    QString machines() const
    {
        QStringList lines;
        for (const Host& h : m_hosts)
            lines << h.machine;
        return lines.join(QLatin1Char('\n'));
    }
    const Host& host(int i) const { return m_hosts.at(std::size_t(i)); }
    int count() const { return int(m_hosts.size()); }
    QString clientKey() const { return m_root.filePath(QStringLiteral("client")); }
    // Every line the hosts' fixture builds wrote ("builder-2 start NAME", "builder-2 saw 6
    // running").
    QStringList sharedLog() const
    {
        return QString::fromUtf8(readFile(m_root.filePath(QStringLiteral("shared/log"))))
            .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }
    // How many times a client logged in to host i (its SSH server's log).
    int logins(int i) const
    {
        return int(
            readFile(host(i).dir + QStringLiteral("/server.log")).count("Pubkey auth succeeded"));
    }
    // Whether `storePath` (a /nix/store path) is in host i's own store.
    bool hostHas(int i, const QString& storePath) const
    {
        return QFileInfo::exists(host(i).dir + storePath);
    }
    // Takes host i's link down: it stays up, but nothing reaches it any more.
    bool cutLink(int i)
    {
        return run(QStringLiteral("ip"), {QStringLiteral("link"), QStringLiteral("set"),
                                          host(i).link, QStringLiteral("down")});
    }

    // Brings host i's link up again after cutLink().
    bool restoreLink(int i)
    {
        return run(QStringLiteral("ip"), {QStringLiteral("link"), QStringLiteral("set"),
                                          host(i).link, QStringLiteral("up")});
    }

    // Stops host i's SSH server (SIGSTOP): the kernel still accepts connections to it, but no
    // answer comes, as from a host that hangs; thaw() lets it go on.
    bool freeze(int i) { return signalServer(i, QStringLiteral("-STOP")); }
    bool thaw(int i) { return signalServer(i, QStringLiteral("-CONT")); }

    // Writes a fixture recipe (tests/fixtures/remote/recipe.nix) named `name` into `path`.
    bool writeRecipe(const QString& path, const QString& name, int seconds, int barrier = 1) const
    {
        QByteArray text = readFile(QStringLiteral(RG_FIXTURES_DIR "/remote/recipe.nix"));
        text.replace("@BUSYBOX@", m_root.filePath(QStringLiteral("busybox")).toUtf8());
        text.replace("@NAME@", name.toUtf8());
        text.replace("@NONCE@", randomNonce().toUtf8());
        text.replace("@SECONDS@", QByteArray::number(seconds));
        text.replace("@BARRIER@", QByteArray::number(barrier));
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile out(path);
        return out.open(QIODevice::WriteOnly) && out.write(text) == text.size();
    }

    // The system this machine builds for, as Nix names it ("x86_64-linux").
    static QString system()
    {
        QProcess p;
        p.start(QStringLiteral("nix-instantiate"),
                {QStringLiteral("--eval"), QStringLiteral("--expr"),
                 QStringLiteral("builtins.currentSystem")});
        p.waitForFinished(60000);
        return QString::fromUtf8(p.readAllStandardOutput()).trimmed().remove(QLatin1Char('"'));
    }

    // Runs a tool to its end; true when it exits 0. Its output goes to `output` when given.
    static bool run(const QString& program, const QStringList& args, QString* output = nullptr)
    {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(program, args);
        const bool ok =
            p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
        if (output)
            *output = QString::fromUtf8(p.readAll());
        return ok;
    }

private:
    bool signalServer(int i, const QString& signal) const
    {
        const QString pid =
            QString::fromUtf8(readFile(host(i).dir + QStringLiteral("/dropbear.pid"))).trimmed();
        return !pid.isEmpty() && run(QStringLiteral("kill"), {signal, pid});
    }
    static bool fail(QString* error, const QString& why)
    {
        if (error)
            *error = why;
        return false;
    }

    bool prepareShared(QString* error)
    {
        const QDir root(m_root.path());
        QString out;
        root.mkpath(QStringLiteral("busybox/bin"));
        root.mkpath(QStringLiteral("shared"));
        if (!QFile::copy(QStringLiteral("/bin/busybox"),
                         root.filePath(QStringLiteral("busybox/bin/busybox"))))
            return fail(error, QStringLiteral("no /bin/busybox (package busybox-static)"));
        if (!run(QStringLiteral("ssh-keygen"),
                 {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                  QStringLiteral("-N"), QString(), QStringLiteral("-f"), clientKey()},
                 &out))
            return fail(error, QStringLiteral("ssh-keygen: ") + out);
        m_system = system();
        return !m_system.isEmpty() || fail(error, QStringLiteral("nix-instantiate gave no system"));
    }

    bool startHost(int n, int jobs, const QStringList& features, QString* error)
    {
        Host h;
        h.name = QStringLiteral("builder-%1").arg(n);
        h.address = QStringLiteral("10.231.%1.2").arg(n);
        h.link = QStringLiteral("rgb%1").arg(n);
        h.dir = m_root.filePath(h.name);
        const QDir dir(h.dir);
        for (const char* sub : {"nix", "conf", "meta/rg-builder/shared"})
            dir.mkpath(QString::fromLatin1(sub));
        QFile::copy(clientKey() + QStringLiteral(".pub"),
                    dir.filePath(QStringLiteral("authorized_keys")));
        writeText(dir.filePath(QStringLiteral("meta/rg-builder/name")), h.name + QLatin1Char('\n'));
        writeText(dir.filePath(QStringLiteral("conf/nix.conf")),
                  QStringLiteral("build-users-group =\nsandbox = false\nsubstituters =\n"));
        QString out;
        const QString hostKey = dir.filePath(QStringLiteral("hostkey"));
        if (!run(QStringLiteral("dropbearkey"),
                 {QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-f"), hostKey},
                 &out))
            return fail(error, QStringLiteral("dropbearkey: ") + out);
        run(QStringLiteral("dropbearkey"), {QStringLiteral("-y"), QStringLiteral("-f"), hostKey},
            &out);
        QString publicKey;
        for (const QString& line : out.split(QLatin1Char('\n'))) {
            if (line.startsWith(QLatin1String("ssh-")))
                publicKey = line.section(QLatin1Char(' '), 0, 1);
        }
        h.server = std::make_unique<QProcess>();
        h.server->setProcessChannelMode(QProcess::MergedChannels);
        h.server->setStandardOutputFile(dir.filePath(QStringLiteral("server.log")));
        h.server->start(QStringLiteral("unshare"),
                        {QStringLiteral("--net"), QStringLiteral("--mount"),
                         QStringLiteral("--fork"), QStringLiteral("--kill-child"),
                         QStringLiteral("--"), QStringLiteral("bash"),
                         QStringLiteral(RG_SOURCE_DIR "/tests/builds/builderhost.sh"), h.dir,
                         h.address, m_root.filePath(QStringLiteral("shared"))});
        if (!h.server->waitForStarted(10000))
            return fail(error, QStringLiteral("cannot start unshare: ") + h.server->errorString());
        const QString pid = QString::number(h.server->processId());
        // unshare makes the namespace after it starts: a link moved to its pid before then
        // would land in the suite's own namespace.
        // The link reads "net:[inode]"; Qt makes it a path, so only its last part is compared.
        const auto netns = [](const QString& process) {
            return QFileInfo(QStringLiteral("/proc/%1/ns/net").arg(process))
                .symLinkTarget()
                .section(QLatin1Char('/'), -1);
        };
        QDeadlineTimer unshared(10000);
        while (netns(pid) == netns(QStringLiteral("self")) && !unshared.hasExpired())
            QThread::msleep(20);
        m_links << h.link;
        const bool linked =
            netns(pid) != netns(QStringLiteral("self")) &&
            run(QStringLiteral("ip"),
                {QStringLiteral("link"), QStringLiteral("add"), h.link, QStringLiteral("type"),
                 QStringLiteral("veth"), QStringLiteral("peer"), QStringLiteral("name"),
                 QStringLiteral("eth0"), QStringLiteral("netns"), pid},
                &out);
        if (!linked ||
            !run(QStringLiteral("ip"),
                 {QStringLiteral("addr"), QStringLiteral("add"),
                  QStringLiteral("10.231.%1.1/24").arg(n), QStringLiteral("dev"), h.link},
                 &out) ||
            !run(QStringLiteral("ip"),
                 {QStringLiteral("link"), QStringLiteral("set"), h.link, QStringLiteral("up")},
                 &out))
            return fail(error, QStringLiteral("ip: ") + out);
        if (!waitForServer(h.address))
            return fail(
                error, h.name + QStringLiteral(" does not answer on port 22: ") +
                           QString::fromUtf8(readFile(dir.filePath(QStringLiteral("server.log")))));
        h.machine =
            QStringLiteral("ssh://root@%1 %2 %3 %4 1 %5 - %6")
                .arg(h.address, m_system, clientKey())
                .arg(jobs)
                .arg(features.isEmpty() ? QStringLiteral("-") : features.join(QLatin1Char(',')),
                     QString::fromLatin1(publicKey.toUtf8().toBase64()));
        m_hosts.push_back(std::move(h));
        return true;
    }

    static bool waitForServer(const QString& address)
    {
        QDeadlineTimer deadline(20000);
        while (!deadline.hasExpired()) {
            if (run(QStringLiteral("timeout"),
                    {QStringLiteral("2"), QStringLiteral("bash"), QStringLiteral("-c"),
                     QStringLiteral("exec 3<>/dev/tcp/%1/22").arg(address)}))
                return true;
            QThread::msleep(50);
        }
        return false;
    }

    static void writeText(const QString& path, const QString& text)
    {
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write(text.toUtf8());
    }

    QTemporaryDir m_root;
    QString m_system;
    std::vector<Host> m_hosts;
    QStringList m_links;
};

} // namespace rg::test

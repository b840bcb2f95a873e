#pragma once

// Downloads the sources of new pins to learn their hashes: `nix-prefetch-url [--unpack] URL`
// run through QProcess with an argument list (never a shell), one URL after another. Each
// run is bounded by a timeout, since a download that stalls must not hang a bump; offline,
// Nix's own message ("unable to download …: Couldn't resolve host name") is reported with
// the URL. The hash printed is Nix base-32 SHA-256, which PinBumpPlanner converts to the
// notation each recipe uses. Lives in the thread it is created in (the GUI's or a worker's).

#include <QObject>
#include <QProcessEnvironment>
#include <QString>
#include <memory>
#include <string>
#include <vector>

class QProcess;
class QTimer;

namespace rg {

struct PrefetchResult
{
    std::string url;
    std::string hash;  // Nix base-32 sha256; "" on failure
    std::string error; // "https://…: unable to download …" / "timed out after 600 s"
    bool ok() const { return error.empty() && !hash.empty(); }
};

class PinPrefetcher : public QObject
{
    Q_OBJECT

public:
    explicit PinPrefetcher(QObject* parent = nullptr);
    ~PinPrefetcher() override;

    void setProgram(const QString& program); // default "nix-prefetch-url" from PATH
    void setTimeout(int milliseconds);       // per URL; default 10 minutes
    void setEnvironment(const QProcessEnvironment& environment);

    // Starts prefetching `urls` in order (unpacked when `unpack`); ignored while running.
    void start(const std::vector<std::string>& urls, bool unpack = true);
    void cancel(); // kills the running download; finished() follows
    bool isRunning() const;
    const std::vector<PrefetchResult>& results() const { return m_results; }

    // Blocking, for the command line and worker threads without an event loop.
    static PrefetchResult
    fetch(const std::string& url, bool unpack, int timeoutMilliseconds,
          const QString& program = QStringLiteral("nix-prefetch-url"),
          const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment());

signals:
    void started(int index, int total, const QString& url);
    void output(const QString& url, const QString& line); // nix's progress lines
    void fetched(const QString& url, const QString& hash);
    void failed(const QString& url, const QString& error);
    void finished(); // after the last URL, a failure does not stop the others

private:
    void startNext();
    void onProcessFinished();

    QString m_program = QStringLiteral("nix-prefetch-url");
    int m_timeout = 10 * 60 * 1000;
    QProcessEnvironment m_environment = QProcessEnvironment::systemEnvironment();
    std::vector<std::string> m_urls;
    bool m_unpack = true;
    size_t m_next = 0;
    std::vector<PrefetchResult> m_results;
    QProcess* m_process = nullptr;
    QTimer* m_timer = nullptr;
    bool m_timedOut = false;
    bool m_cancelled = false;
    QByteArray m_stderr;
};

} // namespace rg

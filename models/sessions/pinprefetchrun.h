#pragma once

// One prefetch for a pin bump: learns the new hashes by downloading what the bump would fetch.
// The targets are found off the GUI thread (PinBumpPlanner::prefetchTargets on the background
// pool); what an earlier attempt fetched (the request's newHashes) is not fetched again; then
// nix-prefetch-url runs once per kind of target, since --unpack holds for a whole run. A
// download that fails does not stop the others: its error is reported at the end. Stop kills
// the running download and ends the run at once.

#include "changes/pinbumpplanner.h"
#include "pins/pinbumprequest.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rg {

struct Analysis;
class PinPrefetcher;
class RepositorySource;

// Hashes by PrefetchTarget::key (Nix base-32 SHA-256).
using PrefetchedHashes = std::map<std::string, std::string>;

class PinPrefetchRun : public QObject
{
    Q_OBJECT

public:
    explicit PinPrefetchRun(QObject* parent = nullptr);
    ~PinPrefetchRun() override;

    void setProgram(const QString& program); // nix-prefetch-url by default
    const QString& program() const { return m_program; }

    // false, and nothing starts, while a run is going.
    bool start(std::shared_ptr<const RepositorySource> source,
               std::shared_ptr<const Analysis> analysis, const PinBumpRequest& request);
    void stop();
    bool isRunning() const;

signals:
    // `index` counts over the whole run, not one nix-prefetch-url batch.
    void downloadStarted(int index, int total, const QString& url);
    void output(const QString& line); // nix-prefetch-url's progress
    // Once per start(): every hash fetched, and each failure (or the stop) in words.
    void finished(const rg::PrefetchedHashes& hashes, const QStringList& errors);

private:
    struct Batch
    {
        bool unpack = true;
        std::vector<PrefetchTarget> targets;
    };

    void targetsFound();
    void startBatch();
    void batchFinished();
    void finish(const QStringList& errors);

    PinPrefetcher* m_prefetcher;
    QString m_program = QStringLiteral("nix-prefetch-url");
    QFutureWatcher<std::vector<PrefetchTarget>> m_targets;
    std::vector<Batch> m_batches;
    size_t m_batch = 0;
    int m_fetchedBefore = 0;
    int m_total = 0;
    PrefetchedHashes m_fetched;
    QStringList m_errors;
    bool m_running = false;
    bool m_stopped = false;
};

} // namespace rg

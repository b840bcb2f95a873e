#pragma once

// The repository the window has open: a work tree (watched, re-scanned when files change)
// or a git revision (read-only). Scans run on a worker thread through the Analyzer with a
// RecipeCache, so a re-scan after one edit parses only that file; the GUI thread never
// waits for I/O, parsing or libgit2. The same worker keys every recipe by its content
// (Cell::contentKey, RecipeContentKey), which is what build state is looked up by.

#include "analysis/analysis.h"
#include "analysis/analyzer.h"
#include "vcs/pathwatcher.h"
#include "vcs/repositorysource.h"
#include "vcs/sessiongitinfo.h"

#include <QFutureWatcher>
#include <QObject>
#include <QTimer>
#include <functional>
#include <memory>
#include <utility>

namespace rg {

class RepositorySession : public QObject
{
    Q_OBJECT
public:
    explicit RepositorySession(QObject* parent = nullptr);
    ~RepositorySession() override; // waits for a running scan: it holds no pointer to us

    // Starts a scan and returns at once; false (and errorOccurred) when the path cannot be
    // opened at all.
    bool openWorkTree(const QString& path);
    // Returns at once: git opens the revision on a worker thread, since libgit2 reads the
    // repository's refs and packs, and then the scan starts. False (and errorOccurred) when the
    // path does not exist; a revision git cannot open gives errorOccurred later, and what was
    // open stays. Another open or a close meanwhile wins over it.
    bool openRevision(const QString& repositoryPath, const QString& revision);
    void close();
    void reload(); // re-scan now (the cache still skips files that did not change)

    bool isOpen() const { return m_source != nullptr; }
    bool isReadOnly() const { return m_source && !m_source->isWritable(); }
    QString rootPath() const { return m_rootPath; }
    QString revision() const { return m_revision; } // "" for a work tree
    QString displayName() const;

    std::shared_ptr<const Analysis> analysis() const { return m_analysis; }
    bool isScanning() const { return m_scanning; }
    bool recipeDirFound() const { return m_recipeDirFound; }
    QString recipeDir() const { return m_recipeDir; }
    QString scanError() const { return m_scanError; } // listing the recipe dir failed
    const SessionGitInfo& git() const { return m_git; }

    int lastParsedCount() const { return m_lastParsed; } // files parsed by the last scan
    qint64 lastScanMilliseconds() const { return m_lastScanMs; }
    int scanCount() const { return m_scanCount; }

    // What the window knows of the recipes beyond their files (Nix's answers): run on every
    // analysis a scan makes, on the scan's worker, and at once on a copy of the analysis shown
    // now (also on a worker; analysisChanged follows). Null for none.
    using Refiner = std::function<void(Analysis&)>;
    void setRefiner(Refiner refiner);
    // The analysis as the files alone make it, before the refiner.
    std::shared_ptr<const Analysis> staticAnalysis() const { return m_base; }

    void setDebounceInterval(int milliseconds) { m_debounce.setInterval(milliseconds); }
    void setAnalyzerOptions(const AnalyzerOptions& options) { m_options = options; }

    // The open source, for reading a file off the GUI thread (sources are thread-safe).
    std::shared_ptr<const RepositorySource> source() const { return m_source; }
    uint64_t maxFileSize() const { return m_options.maxFileSize; }
    // Reads one file of the open source (work tree or revision) for the preview. Cheap enough
    // for one recipe; never called for a whole repository on the GUI thread.
    SourceFile readFile(const QString& relativePath) const;
    // Absolute path of a work-tree file; "" for a revision.
    QString absolutePath(const QString& relativePath) const;

signals:
    void opened();
    void scanStarted();
    void scanProgress(int done, int total); // total 0: busy, amount unknown
    void analysisChanged();
    void gitStateChanged();
    void errorOccurred(const QString& message);

private:
    struct ScanResult
    {
        std::shared_ptr<const Analysis> analysis;
        std::shared_ptr<const Analysis> base; // before the refiner
        bool recipeDirFound = false;
        std::string recipeDir;
        std::string scanError;
        SessionGitInfo git;
        int parsed = 0;
        qint64 milliseconds = 0;
        quint64 generation = 0;
    };

    void startScan();
    std::function<void(int, int)> progressReporter(quint64 generation);
    static ScanResult scan(const RepositorySource& source,
                           const std::shared_ptr<RecipeCache>& cache,
                           const AnalyzerOptions& options, const Refiner& refiner,
                           quint64 generation, PathWatcher* watcher);
    static void watchWorkTree(ScanResult& result, const Analysis& analysis,
                              const std::string& rootPath, PathWatcher& watcher);
    struct OpenedRevision
    {
        std::shared_ptr<const RepositorySource> source;
        QString error;
        QString path;
        QString revision;
        quint64 request = 0;
    };
    void revisionOpened();
    void scanFinished();
    void refineFinished();
    void resetState();

    std::shared_ptr<const RepositorySource> m_source;
    std::shared_ptr<RecipeCache> m_cache;
    AnalyzerOptions m_options;
    QString m_rootPath;
    QString m_revision;

    std::shared_ptr<const Analysis> m_analysis;
    std::shared_ptr<const Analysis> m_base;
    Refiner m_refiner;
    bool m_recipeDirFound = false;
    QString m_recipeDir;
    QString m_scanError;
    SessionGitInfo m_git;
    int m_lastParsed = 0;
    qint64 m_lastScanMs = 0;
    int m_scanCount = 0;

    bool m_scanning = false;
    bool m_pending = false;
    quint64 m_generation = 0;
    QFutureWatcher<ScanResult> m_scan;
    // Every open and close counts here; a revision git opened for an older request is dropped.
    quint64 m_openRequest = 0;
    QFutureWatcher<OpenedRevision> m_revisionOpen;
    // A refined copy of m_base, with the base it was made from: stale when a scan replaced it.
    using Refined = std::pair<std::shared_ptr<const Analysis>, std::shared_ptr<const Analysis>>;
    QFutureWatcher<Refined> m_refine;
    PathWatcher m_watcher; // work trees only; a revision does not change
    QTimer m_debounce;
};

} // namespace rg

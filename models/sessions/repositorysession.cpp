#include "sessions/repositorysession.h"

#include "analysis/recipecontentkey.h"
#include "sessions/backgroundpool.h"
#include "sessions/qtext.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>
#include <memory>
#include <mutex>
#include <set>

namespace rg {

RepositorySession::RepositorySession(QObject* parent) : QObject(parent)
{
    m_debounce.setSingleShot(true);
    // Editors save in bursts (write, rename, chmod); one re-scan per burst.
    m_debounce.setInterval(150);
    connect(&m_debounce, &QTimer::timeout, this, &RepositorySession::startScan);
    connect(&m_watcher, &PathWatcher::changed, &m_debounce, qOverload<>(&QTimer::start));
    connect(&m_scan, &QFutureWatcher<ScanResult>::finished, this, &RepositorySession::scanFinished);
    connect(&m_refine, &QFutureWatcher<Refined>::finished, this,
            &RepositorySession::refineFinished);
    connect(&m_revisionOpen, &QFutureWatcher<OpenedRevision>::finished, this,
            &RepositorySession::revisionOpened);
}

RepositorySession::~RepositorySession()
{
    m_revisionOpen.waitForFinished();
    m_scan.waitForFinished();
    m_refine.waitForFinished();
}

QString RepositorySession::displayName() const
{
    return m_source ? qs(m_source->displayName()) : QString();
}

void RepositorySession::resetState()
{
    m_debounce.stop();
    ++m_generation; // a scan still running for the old source is ignored when it ends
    m_watcher.clear(m_generation);
    m_source.reset();
    m_cache = std::make_shared<RecipeCache>();
    m_analysis.reset();
    m_base.reset();
    m_recipeDirFound = false;
    m_recipeDir.clear();
    m_scanError.clear();
    m_git = {};
    m_rootPath.clear();
    m_revision.clear();
    m_pending = false;
}

bool RepositorySession::openWorkTree(const QString& path)
{
    const QFileInfo info(path);
    if (!info.exists()) {
        emit errorOccurred(tr("%1: no such folder").arg(path));
        return false;
    }
    if (!info.isDir()) {
        emit errorOccurred(tr("%1: not a folder").arg(path));
        return false;
    }
    if (!info.isReadable() || !info.isExecutable()) {
        emit errorOccurred(tr("%1: permission denied").arg(path));
        return false;
    }
    ++m_openRequest;
    resetState();
    m_rootPath = QDir::cleanPath(info.absoluteFilePath());
    m_source = rg::openWorkTree(m_rootPath.toStdString());
    emit opened();
    startScan();
    return true;
}

bool RepositorySession::openRevision(const QString& repositoryPath, const QString& revision)
{
    if (!QFileInfo::exists(repositoryPath)) {
        emit errorOccurred(tr("%1 @ %2: no such folder").arg(repositoryPath, revision));
        return false;
    }
    const quint64 request = ++m_openRequest;
    m_revisionOpen.setFuture(
        QtConcurrent::run(backgroundPool(), [repositoryPath, revision, request]() {
            std::string error;
            // Braced initialisers run in order: the error is set before it is read.
            return OpenedRevision{
                openGitRevision(repositoryPath.toStdString(), revision.toStdString(), &error),
                qs(error), repositoryPath, revision, request};
        }));
    return true;
}

void RepositorySession::revisionOpened()
{
    const OpenedRevision result = m_revisionOpen.result();
    if (result.request != m_openRequest)
        return; // another open or a close came after it
    if (!result.source) {
        emit errorOccurred(tr("%1 @ %2: %3").arg(result.path, result.revision, result.error));
        return;
    }
    resetState();
    m_rootPath = QDir::cleanPath(QFileInfo(result.path).absoluteFilePath());
    m_revision = result.revision;
    m_source = result.source;
    emit opened();
    startScan();
}

void RepositorySession::close()
{
    ++m_openRequest;
    resetState();
    emit analysisChanged();
}

void RepositorySession::reload()
{
    if (m_source)
        startScan();
}

SourceFile RepositorySession::readFile(const QString& relativePath) const
{
    if (!m_source)
        return {relativePath.toStdString(), {}, "no repository open"};
    return m_source->read(relativePath.toStdString(), m_options.maxFileSize);
}

QString RepositorySession::absolutePath(const QString& relativePath) const
{
    if (!m_source || !m_revision.isEmpty())
        return {};
    return QDir(m_rootPath).absoluteFilePath(relativePath);
}

void RepositorySession::startScan()
{
    if (!m_source)
        return;
    if (m_scanning) {
        m_pending = true; // one more scan once this one ends: the files changed under it
        return;
    }
    m_scanning = true;
    m_pending = false;
    emit scanStarted();
    emit scanProgress(0, 0);

    const auto source = m_source;
    const auto cache = m_cache;
    AnalyzerOptions options = m_options;
    const quint64 generation = m_generation;
    options.progress = progressReporter(generation);
    // The destructor waits for the scan, so the watcher outlives it.
    PathWatcher* watcher = m_revision.isEmpty() ? &m_watcher : nullptr;
    m_scan.setFuture(QtConcurrent::run(
        backgroundPool(), [source, cache, options, refiner = m_refiner, generation, watcher]() {
            return scan(*source, cache, options, refiner, generation, watcher);
        }));
}

void RepositorySession::setRefiner(Refiner refiner)
{
    m_refiner = std::move(refiner);
    if (m_scanning) {
        m_pending = true; // the running scan took the refiner it had
        return;
    }
    if (!m_base)
        return;
    m_refine.setFuture(
        QtConcurrent::run(backgroundPool(), [base = m_base, refiner = m_refiner]() -> Refined {
            if (!refiner)
                return {base, base};
            auto refined = makeSharedFreedOffTheGuiThread<Analysis>(*base);
            refiner(*refined);
            return {base, std::move(refined)};
        }));
}

void RepositorySession::refineFinished()
{
    const Refined refined = m_refine.result();
    if (refined.first != m_base)
        return; // a scan replaced the analysis meanwhile, refined already
    m_analysis = refined.second;
    emit analysisChanged();
}

// Whole percents only, so 20,000 files post at most 100 events; the destructor waits for
// the scan, so `this` outlives every call. Deciding and posting under one lock keeps the
// events in the order of their counts: two workers must not post 11 before 10.
std::function<void(int, int)> RepositorySession::progressReporter(quint64 generation)
{
    struct Progress
    {
        std::mutex mutex;
        int lastPercent = -1;
    };
    auto shared = std::make_shared<Progress>();
    return [this, generation, shared](int done, int total) {
        const int percent = total > 0 ? done * 100 / total : 100;
        std::lock_guard lock(shared->mutex);
        if (percent <= shared->lastPercent)
            return;
        shared->lastPercent = percent;
        QMetaObject::invokeMethod(
            this,
            [this, generation, done, total] {
                if (generation == m_generation && m_scanning)
                    emit scanProgress(done, total);
            },
            Qt::QueuedConnection);
    };
}

// Runs on a worker thread: the analysis, content keys, and, for a work tree, the watches, in
// place before the result is reported.
RepositorySession::ScanResult RepositorySession::scan(const RepositorySource& source,
                                                      const std::shared_ptr<RecipeCache>& cache,
                                                      const AnalyzerOptions& options,
                                                      const Refiner& refiner, quint64 generation,
                                                      PathWatcher* watcher)
{
    ScanResult result;
    result.generation = generation;
    QElapsedTimer timer;
    timer.start();
    const int parsedBefore = cache->parsedCount();
    auto analysis =
        makeSharedFreedOffTheGuiThread<Analysis>(Analyzer().analyze(source, options, cache.get()));
    result.parsed = cache->parsedCount() - parsedBefore;
    // Build state is looked up by content: key every recipe here, not on the GUI thread.
    RecipeContentKey::keyAll(*analysis, source, options.threads);

    // The analyzer listed the recipe directory already: its file list and list error are
    // what the watches and the banner need, without listing a second time.
    result.recipeDir = analysis->recipeDir;
    const std::string& listError = analysis->sourceError;
    const std::vector<std::string>& files = analysis->files;
    if (watcher) {
        watchWorkTree(result, *analysis, source.rootPath(), *watcher);
        result.git = SessionGitInfo::read(source.rootPath());
    } else {
        result.recipeDirFound = listError.empty() || !files.empty();
        result.git = SessionGitInfo::read(source.rootPath(), false);
    }
    if (result.recipeDirFound)
        result.scanError = listError;
    result.base = analysis;
    if (refiner) {
        auto refined = makeSharedFreedOffTheGuiThread<Analysis>(*analysis);
        refiner(*refined);
        result.analysis = std::move(refined);
    } else {
        result.analysis = std::move(analysis);
    }
    result.milliseconds = timer.elapsed();
    return result;
}

// What a work-tree scan watches for changes.
void RepositorySession::watchWorkTree(ScanResult& result, const Analysis& analysis,
                                      const std::string& rootPath, PathWatcher& watcher)
{
    QStringList files;
    QStringList dirs;
    const QDir root(qs(rootPath));
    const QString dir = root.absoluteFilePath(qs(result.recipeDir));
    result.recipeDirFound = QFileInfo(dir).isDir();
    // The root and .flox too: a recipe directory or a spec created later.
    for (const QString& watched :
         {dir, root.absolutePath(), root.absoluteFilePath(QStringLiteral(".flox"))}) {
        if (QFileInfo(watched).isDir())
            dirs << watched;
    }
    const std::string spec =
        analysis.specPath.empty() ? std::string(MatrixSpec::defaultPath) : analysis.specPath;
    const QString specFile = root.absoluteFilePath(qs(spec));
    if (QFileInfo::exists(specFile))
        files << specFile;
    // Listed files exist (they were just listed); edits in place need file watches.
    // So do the modules recipes import: a changed module changes its importers' facts.
    const QString prefix = root.absolutePath() + QLatin1Char('/');
    files.reserve(static_cast<qsizetype>(analysis.files.size() + analysis.modules.size()) + 1);
    for (const std::string& file : analysis.files)
        files << prefix + qs(file);
    for (const std::string& module : analysis.modules) {
        const QString path = prefix + qs(module);
        if (QFileInfo::exists(path))
            files << path;
    }
    watcher.watch(result.generation, files, dirs);
}

void RepositorySession::scanFinished()
{
    m_scanning = false;
    ScanResult result;
    try {
        result = m_scan.result();
    } catch (const std::exception& error) {
        emit errorOccurred(
            tr("Scanning %1 failed: %2").arg(m_rootPath, QString::fromUtf8(error.what())));
        return;
    }
    if (result.generation != m_generation) {
        // The user opened something else while this ran; scan what is open now.
        if (m_source)
            startScan();
        return;
    }
    m_analysis = result.analysis;
    m_base = result.base;
    m_recipeDirFound = result.recipeDirFound;
    m_recipeDir = qs(result.recipeDir);
    m_scanError = qs(result.scanError);
    m_lastParsed = result.parsed;
    m_lastScanMs = result.milliseconds;
    ++m_scanCount;
    const bool gitChanged = result.git.branch != m_git.branch || result.git.dirty != m_git.dirty ||
                            result.git.isRepository != m_git.isRepository ||
                            result.git.headCommit != m_git.headCommit;
    m_git = result.git;
    emit scanProgress(1, 1);
    emit analysisChanged();
    if (gitChanged)
        emit gitStateChanged();
    if (!m_scanError.isEmpty())
        emit errorOccurred(m_scanError);
    if (m_pending)
        startScan();
}

} // namespace rg

#include "pins/pinalignment.h"

#include "analysis/analyzer.h"
#include "analysis/recipegrouping.h"
#include "matrix/versionspelling.h"
#include "pins/pininventory.h"
#include "vcs/gitrepositoryinfo.h"
#include "vcs/gitrevisionsource.h"

#include <QThreadPool>
#include <QtConcurrent/QtConcurrentMap>
#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

namespace rg {

namespace {

std::string baseName(const std::string& path)
{
    std::filesystem::path p(path);
    while (!p.empty() && p.filename().empty())
        p = p.parent_path();
    const std::string name = p.filename().string();
    return name.empty() ? path : name;
}

struct ReadColumn
{
    AlignmentColumn column;
    // Row → pin → recipes writing it.
    std::map<AlignmentRowKey, std::map<std::string, int>> pins;
};

// `notGit` gets git's words when the source is a folder outside git, read as a work tree.
std::unique_ptr<RepositorySource> open(const AlignmentSource& source, AlignmentColumn* column,
                                       std::string* notGit)
{
    std::string error;
    const auto info = GitRepositoryInfo::open(source.repository, &error);
    std::error_code noDirectory;
    // A folder outside git still holds recipes: its work tree is read as the window reads it,
    // without a commit.
    if (!info && source.revision.empty() &&
        std::filesystem::is_directory(source.repository, noDirectory)) {
        *notGit = error;
        return openWorkTree(source.repository);
    }
    if (!info) {
        column->error = error;
        return nullptr;
    }
    if (source.revision.empty() && !info->workTree().empty()) {
        column->commitId = info->headCommit();
        column->checkedOut = true;
        return openWorkTree(source.repository);
    }
    auto opened = GitRevisionSource::open(
        source.repository, source.revision.empty() ? "HEAD" : source.revision, &error);
    if (!opened) {
        column->error = error;
        return nullptr;
    }
    column->commitId = opened->commitId();
    column->checkedOut = !info->workTree().empty() && info->currentBranch() == source.revision;
    return opened;
}

// Blob id → the first pin the recipe writes ("" for none). Branches share most recipe files,
// so a file read on one branch is not parsed again for the next; only git blob ids are keys,
// since a work tree's stamp (mtime and size) does not name the content.
class BlobPins
{
public:
    std::optional<std::string> find(const std::string& blob) const
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_pins.find(blob);
        return it == m_pins.end() ? std::nullopt : std::optional(it->second);
    }
    void store(const std::string& blob, const std::string& pin)
    {
        std::lock_guard lock(m_mutex);
        m_pins.emplace(blob, pin);
    }

private:
    mutable std::mutex m_mutex;
    std::map<std::string, std::string> m_pins;
};

// The spec's recipe directory and package words, as far as a column needs them; the
// defaults when the revision has no readable spec.
MatrixSpec specOf(const RepositorySource& source)
{
    const SourceFile file = source.read(std::string(MatrixSpec::defaultPath), 1024 * 1024);
    SpecError error;
    if (file.error.empty())
        if (auto spec = MatrixSpec::fromJson(file.bytes, file.path, Catalog::builtin(), &error))
            return *spec;
    return MatrixSpec();
}

// Only what a row needs is read: each recipe's name and first pin (parser and fact
// extraction, no rules), not a whole analysis per branch.
void readPins(const RepositorySource& repository, bool gitBlobs, BlobPins* cache, ReadColumn* out)
{
    const MatrixSpec spec = specOf(repository);
    const Catalog catalog = spec.effectiveCatalog(Catalog::builtin());
    std::string error;
    const std::vector<SourceEntry> entries = repository.list(spec.recipeDir, &error);
    if (!error.empty()) {
        out->column.error = error;
        return;
    }
    const Analyzer analyzer(catalog);
    for (const SourceEntry& entry : entries) {
        const std::string fileName = entry.path.substr(entry.path.rfind('/') + 1);
        const auto name = VariantName::parse(fileName.substr(0, fileName.size() - 4));
        if (!name || entry.symlink)
            continue;
        std::optional<std::string> pin = gitBlobs ? cache->find(entry.stamp) : std::nullopt;
        if (!pin) {
            SourceFile file = repository.read(entry.path, AnalyzerOptions::defaultMaxFileSize);
            const RecipeFacts facts = analyzer.extract(entry.path, std::move(file.bytes));
            pin = facts.pins.empty() ? std::string() : facts.pins.front().revision;
            if (gitBlobs)
                cache->store(entry.stamp, *pin);
        }
        if (pin->empty())
            continue;
        const AlignmentRowKey key{
            RecipeGrouping::packageOf(name->package, spec, catalog), dottedPython(name->python),
            RecipeGrouping::acceleratorLabel(*name), PinInventory::acceleratorIdOf(*name)};
        ++out->pins[key][*pin];
        ++out->column.recipes;
    }
}

ReadColumn read(const AlignmentSource& source, BlobPins* cache)
{
    ReadColumn out;
    out.column.source = source;
    out.column.label = !source.label.empty() ? source.label
                       : source.revision.empty()
                           ? baseName(source.repository) + " (work tree)"
                           : baseName(source.repository) + " @ " + source.revision;
    std::string notGit;
    const std::unique_ptr<RepositorySource> repository = open(source, &out.column, &notGit);
    if (repository)
        readPins(*repository, dynamic_cast<const GitRevisionSource*>(repository.get()) != nullptr,
                 cache, &out);
    // A folder that is neither a repository nor a recipe folder: most likely a wrong path to
    // a clone, so git's words come first.
    if (!notGit.empty() && !out.column.error.empty())
        out.column.error = notGit + ", nor a recipe folder (" + out.column.error + ")";
    return out;
}

AlignmentCell cellOf(const std::map<std::string, int>& pins)
{
    AlignmentCell cell;
    cell.pins.assign(pins.begin(), pins.end());
    std::stable_sort(cell.pins.begin(), cell.pins.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    return cell;
}

} // namespace

AlignmentSource AlignmentSource::parse(const std::string& argument)
{
    const auto at = argument.rfind('@');
    std::error_code error;
    if (at == std::string::npos || at == 0 || std::filesystem::exists(argument, error))
        return {argument, {}, {}};
    return {argument.substr(0, at), argument.substr(at + 1), {}};
}

int AlignmentCell::recipes() const
{
    int total = 0;
    for (const auto& [pin, count] : pins)
        total += count;
    return total;
}

std::vector<AlignmentSource> PinAlignment::localBranches(const std::string& repositoryPath,
                                                         std::string* error)
{
    std::vector<AlignmentSource> out;
    for (const std::string& branch : listLocalBranches(repositoryPath, error))
        out.push_back({repositoryPath, branch, branch});
    return out;
}

PinAlignment PinAlignment::compute(const std::vector<AlignmentSource>& sources)
{
    std::vector<ReadColumn> read(sources.size());
    std::vector<size_t> indices(sources.size());
    for (size_t i = 0; i < indices.size(); ++i)
        indices[i] = i;
    // Each column opens its own libgit2 handles, so columns are independent. On a pool of
    // their own, never Qt's global one, which the GUI thread's paints wait on (backgroundpool.h).
    BlobPins cache;
    QThreadPool pool;
    QtConcurrent::blockingMap(&pool, indices,
                              [&](size_t i) { read[i] = rg::read(sources[i], &cache); });

    PinAlignment alignment;
    std::set<AlignmentRowKey> keys;
    for (ReadColumn& column : read) {
        for (const auto& [key, pins] : column.pins)
            keys.insert(key);
        alignment.m_columns.push_back(column.column);
    }
    for (const AlignmentRowKey& key : keys) {
        AlignmentRow row;
        row.key = key;
        std::set<std::string> dominant;
        for (const ReadColumn& column : read) {
            const auto found = column.pins.find(key);
            row.cells.push_back(found == column.pins.end() ? AlignmentCell{}
                                                           : cellOf(found->second));
            if (!row.cells.back().pins.empty())
                dominant.insert(row.cells.back().pin());
            row.mismatch = row.mismatch || row.cells.back().pins.size() > 1;
        }
        row.mismatch = row.mismatch || dominant.size() > 1;
        alignment.m_rows.push_back(std::move(row));
    }
    return alignment;
}

std::vector<std::string> PinAlignment::knownPins() const
{
    std::set<std::string> pins;
    for (const AlignmentRow& row : m_rows)
        for (const AlignmentCell& cell : row.cells)
            for (const auto& [pin, count] : cell.pins)
                if (isFullRevision(pin))
                    pins.insert(pin);
    return {pins.begin(), pins.end()};
}

std::optional<PinBumpRequest> PinAlignment::alignRequest(size_t row, size_t target,
                                                         size_t reference, bool wholeBranch,
                                                         std::string* error) const
{
    const auto fail = [&](const std::string& why) -> std::optional<PinBumpRequest> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (row >= m_rows.size() || target >= m_columns.size() || reference >= m_columns.size())
        return fail("no such row or column");
    const AlignmentRow& r = m_rows[row];
    const AlignmentCell& mine = r.cells[target];
    const AlignmentCell& theirs = r.cells[reference];
    const std::string what = r.key.package + " " + r.key.python + " " + r.key.accelerator;
    if (mine.pins.empty() || theirs.pins.empty())
        return fail((mine.pins.empty() ? m_columns[target] : m_columns[reference]).label +
                    " has no " + what + " recipe with a pin");
    const std::string to = theirs.pin();
    if (!isFullRevision(to))
        return fail(m_columns[reference].label + " pins " + what + " to '" + to +
                    "', not a full revision: nothing reproducible to align to");
    // A cell on several pins moves its most used pin that is not the reference's first.
    const auto from = std::find_if(mine.pins.begin(), mine.pins.end(),
                                   [&](const auto& pin) { return pin.first != to; });
    if (from == mine.pins.end())
        return fail(m_columns[target].label + " already uses " + shortRevision(to) + " for " +
                    what);
    PinBumpRequest request;
    request.from = from->first;
    request.to = to;
    if (!wholeBranch)
        request.scope = {{}, r.key.package, r.key.acceleratorId, r.key.python};
    return request;
}

} // namespace rg

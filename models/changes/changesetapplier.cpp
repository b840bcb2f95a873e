#include "changes/changesetapplier.h"

#include "vcs/atomicfile.h"

#include <QFile>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentMap>
#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace rg {

namespace {

namespace fs = std::filesystem;

QString qPath(const fs::path& path)
{
    return QFile::decodeName(QByteArray::fromStdString(path.native()));
}

std::string_view view(const QByteArray& bytes)
{
    return std::string_view(bytes.constData(), static_cast<size_t>(bytes.size()));
}

// Writes through a temporary file renamed over the target, so a failure at any point leaves
// either the old bytes or the new ones, never a mixture. Returns the OS error text, "" if written.
std::string writeAtomically(const fs::path& path, std::string_view bytes)
{
    return AtomicFile::write(qPath(path),
                             QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size())))
        .toStdString();
}

// Only relative, normalised paths below the root: anything else would let a change set (which
// may come from a file or a template) write outside the repository or into its git database.
std::string lexicalProblem(const std::string& path)
{
    if (path.empty())
        return "empty path";
    if (path.front() == '/')
        return "absolute path refused";
    size_t start = 0;
    bool first = true;
    while (start <= path.size()) {
        const size_t slash = std::min(path.find('/', start), path.size());
        const std::string_view part = std::string_view(path).substr(start, slash - start);
        if (part == "..")
            return "path leaves the repository ('..') and is refused";
        if (part.empty() || part == ".")
            return "path is not normalised";
        if (first && part == ".git")
            return "refusing to write into .git";
        first = false;
        start = slash + 1;
    }
    return {};
}

bool inside(const fs::path& root, const fs::path& candidate)
{
    std::error_code ec;
    const fs::path resolved = fs::weakly_canonical(candidate, ec);
    if (ec)
        return false;
    const fs::path relative = resolved.lexically_relative(root);
    return !relative.empty() && relative != "." && *relative.begin() != "..";
}

// One target as found on disk in the check phase; `current` is what a rollback restores.
struct Target
{
    const FileOperation* operation = nullptr;
    fs::path absolute;
    QByteArray current;
    QFileDevice::Permissions permissions;
};

ApplyResult refusal(const std::string& file, const std::string& why)
{
    return ApplyResult{false, file, file + ": " + why};
}

std::optional<ApplyResult> checkExisting(Target& target)
{
    const FileOperation& op = *target.operation;
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(target.absolute, ec);
    if (!fs::exists(status))
        return refusal(op.path, "no longer exists: changed on disk since the change set was "
                                "planned");
    if (!fs::is_regular_file(status))
        return refusal(op.path, "is not a regular file (a link, a directory…); only regular "
                                "files are rewritten");
    QFile file(qPath(target.absolute));
    if (!file.open(QIODevice::ReadOnly))
        return refusal(op.path, "cannot read: " + file.errorString().toStdString());
    target.current = file.readAll();
    target.permissions = file.permissions();
    if (contentHash(view(target.current)) != op.plannedHash)
        return refusal(op.path, "changed on disk since the change set was planned");
    return std::nullopt;
}

// Phase 1: everything that can be known before writing. Nothing on disk is touched.
std::optional<ApplyResult> check(const fs::path& root, const ChangeSet& changes,
                                 std::vector<Target>& targets)
{
    std::set<std::string> seen;
    for (const FileOperation& op : changes.operations) {
        if (!op.selected)
            continue;
        if (const std::string problem = lexicalProblem(op.path); !problem.empty())
            return refusal(op.path, problem);
        if (!seen.insert(op.path).second)
            return refusal(op.path, "appears twice in the change set");
        Target target{&op, root / op.path, {}, {}};
        // A symbolic link on the way (a directory linked elsewhere) can escape the root too.
        if (!inside(root, target.absolute))
            return refusal(op.path, "path leaves the repository and is refused");
        if (op.kind == FileOperationKind::Create) {
            std::error_code ec;
            if (fs::exists(fs::symlink_status(target.absolute, ec)))
                return refusal(op.path, "already exists: changed on disk since the change set "
                                        "was planned");
        } else if (auto refused = checkExisting(target)) {
            return refused;
        }
        targets.push_back(std::move(target));
    }
    return std::nullopt;
}

// What phase 2 did, in order, with what it takes to take each step back.
class Journal
{
public:
    explicit Journal(fs::path root) : m_root(std::move(root)) {}

    // Deletes, then creates the missing directories, then writes the files concurrently.
    // Returns the target that failed first (in change-set order) and why; nullopt when done.
    std::optional<std::pair<const Target*, std::string>> perform(const std::vector<Target>& all);
    // Takes back every recorded step, newest first. Returns what could not be taken back.
    std::string rollback();

private:
    enum class Kind { CreatedDirectory, WroteFile, RemovedFile, RemovedDirectory };
    struct Step
    {
        Kind kind;
        fs::path path;
        bool existed = false;
        QByteArray before;
        QFileDevice::Permissions permissions;
    };

    std::string remove(const Target& target);
    std::string createParents(const fs::path& file);
    void removeEmptyParents(const fs::path& file);

    fs::path m_root;
    std::vector<Step> m_steps;
};

std::string Journal::createParents(const fs::path& file)
{
    fs::path directory = m_root;
    const fs::path relative = file.parent_path().lexically_relative(m_root);
    for (const fs::path& part : relative) {
        if (part == ".")
            continue;
        directory /= part;
        std::error_code ec;
        if (fs::is_directory(directory, ec))
            continue;
        if (!fs::create_directory(directory, ec) || ec) {
            const std::string why = ec ? ec.message() : std::string("not a directory");
            return "cannot create directory " + directory.lexically_relative(m_root).string() +
                   ": " + why;
        }
        m_steps.push_back({Kind::CreatedDirectory, directory, false, {}, {}});
    }
    return {};
}

// As `git rm` does: a directory the deletion left empty goes too (and comes back on undo).
void Journal::removeEmptyParents(const fs::path& file)
{
    for (fs::path directory = file.parent_path(); directory != m_root && inside(m_root, directory);
         directory = directory.parent_path()) {
        // A linked directory is left alone: removing it would remove the link.
        std::error_code ec;
        if (!fs::is_directory(fs::symlink_status(directory, ec)) || !fs::is_empty(directory, ec) ||
            ec || !fs::remove(directory, ec) || ec)
            return;
        m_steps.push_back({Kind::RemovedDirectory, directory, false, {}, {}});
    }
}

std::string Journal::remove(const Target& target)
{
    std::error_code ec;
    if (!fs::remove(target.absolute, ec) || ec)
        return ec ? ec.message() : std::string("vanished before it could be deleted");
    m_steps.push_back(
        {Kind::RemovedFile, target.absolute, true, target.current, target.permissions});
    removeEmptyParents(target.absolute);
    return {};
}

std::optional<std::pair<const Target*, std::string>>
Journal::perform(const std::vector<Target>& all)
{
    struct Write
    {
        const Target* target;
        std::string error;
    };
    // Deletes first: one that empties a directory removes it, which must not happen to a
    // directory just created for a file still to be written.
    for (const Target& target : all)
        if (target.operation->kind == FileOperationKind::Delete)
            if (std::string error = remove(target); !error.empty())
                return std::pair(&target, std::move(error));
    std::vector<Write> writes;
    for (const Target& target : all) {
        if (target.operation->kind == FileOperationKind::Delete)
            continue;
        if (std::string error = createParents(target.absolute); !error.empty())
            return std::pair(&target, std::move(error));
        writes.push_back({&target, {}});
    }
    // Each QSaveFile commit waits for its fdatasync; run one after the other they dominate an
    // apply (250 recipes took over a second), while concurrent syncs share journal commits.
    QThreadPool pool;
    pool.setMaxThreadCount(std::min<int>(8, std::max<int>(1, static_cast<int>(writes.size()))));
    QtConcurrent::blockingMap(&pool, writes, [](Write& write) {
        write.error = writeAtomically(write.target->absolute, write.target->operation->after);
    });
    std::optional<std::pair<const Target*, std::string>> failure;
    for (const Write& write : writes) {
        if (write.error.empty()) {
            const bool existed = write.target->operation->kind == FileOperationKind::Modify;
            m_steps.push_back(
                {Kind::WroteFile, write.target->absolute, existed, write.target->current, {}});
        } else if (!failure) {
            failure = std::pair(write.target, write.error);
        }
    }
    return failure;
}

std::string Journal::rollback()
{
    std::string failures;
    auto failed = [&](const fs::path& path, const std::string& why) {
        failures +=
            (failures.empty() ? "" : "; ") + path.lexically_relative(m_root).string() + ": " + why;
    };
    for (auto step = m_steps.rbegin(); step != m_steps.rend(); ++step) {
        std::error_code ec;
        std::string error;
        switch (step->kind) {
        case Kind::CreatedDirectory:
            fs::remove(step->path, ec);
            break;
        case Kind::RemovedDirectory:
            fs::create_directory(step->path, ec);
            break;
        case Kind::WroteFile:
            if (step->existed)
                error = writeAtomically(step->path, view(step->before));
            else
                fs::remove(step->path, ec);
            break;
        case Kind::RemovedFile:
            error = writeAtomically(step->path, view(step->before));
            if (error.empty() && !QFile::setPermissions(qPath(step->path), step->permissions))
                error = "cannot restore its permissions";
            break;
        }
        if (ec)
            error = ec.message();
        if (!error.empty())
            failed(step->path, error);
    }
    m_steps.clear();
    return failures;
}

} // namespace

ChangeSetApplier::ChangeSetApplier(std::string root) : m_root(std::move(root)) {}

ApplyResult ChangeSetApplier::apply(const ChangeSet& changes) const
{
    std::error_code ec;
    const fs::path root = fs::canonical(fs::path(m_root), ec);
    if (ec)
        return ApplyResult{false, "", m_root + ": " + ec.message()};
    std::vector<Target> targets;
    if (auto refused = check(root, changes, targets))
        return *refused;

    Journal journal(root);
    const auto failure = journal.perform(targets);
    if (!failure)
        return ApplyResult{true, "", ""};
    ApplyResult result = refusal(failure->first->operation->path, failure->second);
    if (const std::string left = journal.rollback(); !left.empty())
        result.error += "; the rollback failed too: " + left;
    return result;
}

} // namespace rg

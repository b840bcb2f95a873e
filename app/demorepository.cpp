#include "demorepository.h"

#include "vcs/atomicfile.h"
#include "vcs/gitlibrary.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <algorithm>
#include <git2.h>
#include <memory>

namespace rg {

namespace {

QString gitError()
{
    return QString::fromStdString(GitLibrary::lastError());
}

struct Git
{
    Git() { GitLibrary::ensureInitialised(); }
    ~Git()
    {
        git_index_free(index);
        git_repository_free(repository);
    }
    git_repository* repository = nullptr;
    git_index* index = nullptr;
};

bool writeFile(const QString& root, const QString& relative, QString* error)
{
    QFile source(
        QStringLiteral("%1/%2").arg(QLatin1String(DemoRepository::resourceRoot), relative));
    if (!source.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: %2").arg(source.fileName(), source.errorString());
        return false;
    }
    const QString target = QDir(root).absoluteFilePath(relative);
    QDir().mkpath(QFileInfo(target).absolutePath());
    if (const QString failed = AtomicFile::write(target, source.readAll()); !failed.isEmpty()) {
        *error = QStringLiteral("%1: %2").arg(target, failed);
        return false;
    }
    return true;
}

// Stages the whole work tree (additions, changes and deletions) and commits it on HEAD.
bool commitAll(Git& git, const char* message, const git_oid* parent, git_oid* commit,
               QString* error)
{
    git_strarray everything{};
    char pattern[] = "*";
    char* patterns[] = {pattern};
    everything.strings = patterns;
    everything.count = 1;
    git_oid tree{};
    git_tree* treeObject = nullptr;
    git_commit* parentCommit = nullptr;
    git_signature* signature = nullptr;
    bool ok =
        git_index_add_all(git.index, &everything, GIT_INDEX_ADD_DEFAULT, nullptr, nullptr) == 0 &&
        git_index_update_all(git.index, &everything, nullptr, nullptr) == 0 &&
        git_index_write(git.index) == 0 && git_index_write_tree(&tree, git.index) == 0 &&
        git_tree_lookup(&treeObject, git.repository, &tree) == 0 &&
        git_signature_new(&signature, "RecipeGrid Demo", "demo@recipegrid.invalid", 1770336000,
                          0) == 0 &&
        (!parent || git_commit_lookup(&parentCommit, git.repository, parent) == 0);
    if (ok) {
        const git_commit* parents[] = {parentCommit};
        ok = git_commit_create(commit, git.repository, "HEAD", signature, signature, nullptr,
                               message, treeObject, parent ? 1 : 0, parents) == 0;
    }
    if (!ok)
        *error = gitError();
    git_signature_free(signature);
    git_commit_free(parentCommit);
    git_tree_free(treeObject);
    return ok;
}

} // namespace

QStringList DemoRepository::files()
{
    QStringList result;
    const QString root = QLatin1String(resourceRoot);
    QDirIterator it(root, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        result << it.next().mid(root.size() + 1);
    std::sort(result.begin(), result.end());
    return result;
}

QString DemoRepository::create(QString* error, const QString& parentDirectory)
{
    QString ignored;
    if (!error)
        error = &ignored;
    const QStringList all = files();
    if (all.isEmpty()) {
        *error = QStringLiteral("the demo repository is not compiled into this build");
        return {};
    }
    QStringList onMain;
    QFile manifest{QString::fromLatin1(mainFilesResource)};
    if (manifest.open(QIODevice::ReadOnly)) {
        for (const QByteArray& line : manifest.readAll().split('\n')) {
            const QString path = QString::fromUtf8(line.trimmed());
            if (!path.isEmpty() && !path.startsWith(QLatin1Char('#')) && all.contains(path))
                onMain << path;
        }
    }

    const QString parent = parentDirectory.isEmpty() ? QDir::tempPath() : parentDirectory;
    QTemporaryDir directory(
        QDir(parent).absoluteFilePath(QStringLiteral("recipegrid-demo-XXXXXX")));
    if (!directory.isValid()) {
        *error = directory.errorString();
        return {};
    }
    const QString root = directory.path();

    Git git;
    git_repository_init_options options;
    git_repository_init_options_init(&options, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
    options.flags = GIT_REPOSITORY_INIT_MKPATH;
    options.initial_head = "main";
    if (git_repository_init_ext(&git.repository, root.toUtf8().constData(), &options) != 0 ||
        git_repository_index(&git.index, git.repository) != 0) {
        *error = gitError();
        return {};
    }
    // Commits need an identity even where the user configured none.
    git_config* config = nullptr;
    if (git_repository_config(&config, git.repository) == 0) {
        git_config_set_string(config, "user.name", "RecipeGrid Demo");
        git_config_set_string(config, "user.email", "demo@recipegrid.invalid");
        git_config_free(config);
    }

    git_oid first{};
    const git_oid* parentCommit = nullptr;
    if (!onMain.isEmpty()) {
        for (const QString& path : onMain) {
            if (!writeFile(root, path, error))
                return {};
        }
        if (!commitAll(git, "Seed 001 starting state: six CUDA 13.0 recipes", nullptr, &first,
                       error))
            return {};
        git_commit* commit = nullptr;
        git_reference* branch = nullptr;
        const bool ok = git_commit_lookup(&commit, git.repository, &first) == 0 &&
                        git_branch_create(&branch, git.repository, "cuda-13_0", commit, 0) == 0 &&
                        git_repository_set_head(git.repository, "refs/heads/cuda-13_0") == 0;
        git_reference_free(branch);
        git_commit_free(commit);
        if (!ok) {
            *error = gitError();
            return {};
        }
        parentCommit = &first;
    }
    for (const QString& path : all) {
        if (!writeFile(root, path, error))
            return {};
    }
    git_oid second{};
    if (!commitAll(git, "Work towards the full CUDA 13.0 matrix", parentCommit, &second, error))
        return {};
    directory.setAutoRemove(false);
    return root;
}

void DemoRepository::remove(const QString& root)
{
    if (!root.isEmpty())
        QDir(root).removeRecursively();
}

} // namespace rg

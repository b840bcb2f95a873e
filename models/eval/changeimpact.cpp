#include "eval/changeimpact.h"

#include "eval/recipeevaluator.h"
#include "vcs/atomicfile.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

namespace rg {

namespace {

// The work tree without .git, with the planned files written over it.
bool writeOverlay(const QString& root, const QString& overlay, const ChangeImpact::Planned& planned,
                  std::string* error)
{
    QDirIterator it(root, QDir::Files | QDir::Hidden | QDir::NoSymLinks,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString relative = QDir(root).relativeFilePath(it.next());
        if (relative.startsWith(QLatin1String(".git/")))
            continue;
        const QString target = overlay + QLatin1Char('/') + relative;
        QDir().mkpath(QFileInfo(target).absolutePath());
        if (!QFile::copy(it.filePath(), target)) {
            *error = "cannot copy " + relative.toStdString() + " to evaluate the plan";
            return false;
        }
    }
    for (const auto& [path, text] : planned) {
        const QString target = overlay + QLatin1Char('/') + QString::fromStdString(path);
        if (!text) {
            QFile::remove(target);
            continue;
        }
        QDir().mkpath(QFileInfo(target).absolutePath());
        const QString failed = AtomicFile::write(target, QByteArray::fromStdString(*text));
        if (!failed.isEmpty()) {
            *error = "cannot write " + path + " to evaluate the plan: " + failed.toStdString();
            return false;
        }
    }
    return true;
}

} // namespace

RecipeImpact::Verdict RecipeImpact::verdict() const
{
    if ((!before.evaluated && before.transient) || (!after.evaluated && after.transient))
        return Verdict::Unanswered;
    if (before.evaluated)
        return after.evaluated ? Verdict::Evaluates : Verdict::Breaks;
    return after.evaluated ? Verdict::Mends : Verdict::FailsOnBoth;
}

std::string RecipeImpact::versionChanges() const
{
    std::string out;
    const auto add = [&out](const char* label, const std::string& from, const std::string& to) {
        if (from != to)
            out += (out.empty() ? "" : " · ") + std::string(label) + " " +
                   (from.empty() ? "-" : from) + " → " + (to.empty() ? "-" : to);
    };
    add("torch", before.torch ? before.torch->version : "",
        after.torch ? after.torch->version : "");
    add("Python", before.pythonVersion, after.pythonVersion);
    add("CUDA", before.cudaVersion, after.cudaVersion);
    add("cuDNN", before.cudnnVersion, after.cudnnVersion);
    return out;
}

nlohmann::json RecipeImpact::toJson() const
{
    return {{"path", path},
            {"breaks", breaks()},
            {"derivationChanges", derivationChanges()},
            {"versionChanges", versionChanges()},
            {"before", before.toJson()},
            {"after", after.toJson()}};
}

std::vector<RecipeImpact> ChangeImpact::of(const NixInstallation& nix, const EvalSettings& settings,
                                           const std::vector<EvalItem>& items,
                                           const Planned& planned, std::string* error,
                                           const Progress& progress,
                                           const std::atomic<bool>* cancel)
{
    QTemporaryDir overlay;
    if (!overlay.isValid() ||
        !writeOverlay(QString::fromStdString(settings.repoRoot), overlay.path(), planned, error)) {
        if (error->empty())
            *error = "cannot make a temporary folder to evaluate the plan";
        return {};
    }
    const int total = static_cast<int>(items.size()) * 2;
    const auto reportFrom = [&progress, total](int offset) -> RecipeEvaluator::Progress {
        if (!progress)
            return {};
        return [&progress, total, offset](int done, int, const std::string& current) {
            if (current.empty()) // a finished one
                progress(offset + done, total);
        };
    };
    const auto cancelled = [cancel] { return cancel && cancel->load(); };
    const std::vector<EvaluatedRecipe> before =
        RecipeEvaluator(settings, nix).evaluate(items, reportFrom(0), cancel);
    if (cancelled())
        return {};
    EvalSettings planSettings = settings;
    planSettings.repoRoot = QDir(overlay.path()).canonicalPath().toStdString();
    planSettings.cacheDir.clear(); // the planned files are not the repository's
    std::vector<EvalItem> planItems = items;
    for (EvalItem& item : planItems)
        item.contentKey.clear();
    const std::vector<EvaluatedRecipe> after =
        RecipeEvaluator(planSettings, nix)
            .evaluate(planItems, reportFrom(int(items.size())), cancel);
    if (cancelled())
        return {};
    std::vector<RecipeImpact> impacts;
    for (size_t i = 0; i < items.size(); ++i)
        impacts.push_back({items[i].path, before[i], after[i]});
    return impacts;
}

} // namespace rg

#include "changes/changeplanner.h"

#include "analysis/analyzer.h"
#include "analysis/cellselector.h"
#include "changes/overlaysource.h"
#include "changes/readmematrix.h"
#include "changes/removalreport.h"
#include "changes/variantgenerator.h"

#include <algorithm>
#include <map>
#include <set>

namespace rg {

namespace {

constexpr uint64_t maxRecipeSize = AnalyzerOptions::defaultMaxFileSize;
constexpr const char* readmePath = "README.md";

std::string rulesOf(const Cell& entry)
{
    std::string out;
    std::set<std::string> seen;
    for (const Finding& finding : entry.findings)
        if (finding.severity != Severity::Info && seen.insert(finding.ruleId).second)
            out += (out.empty() ? "" : ", ") + finding.ruleId;
    return out;
}

bool contains(const std::vector<const Cell*>& list, const Cell* entry)
{
    return std::find(list.begin(), list.end(), entry) != list.end();
}

} // namespace

class PlanBuilder
{
public:
    PlanBuilder(std::shared_ptr<const RepositorySource> source, const Analysis& analysis)
        : m_source(std::move(source)), m_analysis(analysis), m_generator(*m_source, analysis)
    {
        m_facts.seed(analysis);
    }

    ChangeSet build(const ChangeRequest& request)
    {
        m_changes.title = titleOf(request);
        for (const Cell* entry : select(request))
            plan(request.action, *entry, !request.cells.empty());
        // The README follows the recipes; alone it is offered only when completing. A fix
        // leaves the set of variants as it is, so it adds no section to a README without one.
        const bool completing = request.action == ChangeAction::Complete;
        verify(request.updateReadme && (!m_changes.operations.empty() || completing),
               request.addReadmeSection && request.action != ChangeAction::Fix);
        std::sort(m_changes.operations.begin(), m_changes.operations.end(),
                  [](const FileOperation& a, const FileOperation& b) { return a.path < b.path; });
        return std::move(m_changes);
    }

private:
    std::string packageOf(const ChangeRequest& request) const
    {
        return request.package.empty() ? m_analysis.spec.package : request.package;
    }

    std::string titleOf(const ChangeRequest& request) const
    {
        static const char* verbs[] = {"Create", "Fix", "Delete", "Complete"};
        const std::string verb = verbs[static_cast<int>(request.action)];
        if (request.cells.size() == 1)
            return verb + " " + request.cells.front();
        if (request.cells.empty())
            return verb + " " + packageOf(request);
        return verb + " " + std::to_string(request.cells.size()) + " cells";
    }

    std::vector<const Cell*> select(const ChangeRequest& request)
    {
        std::vector<const Cell*> selected;
        if (request.cells.empty()) {
            const std::string package = packageOf(request);
            for (const Cell& entry : m_analysis.cells)
                if (entry.package == package)
                    selected.push_back(&entry);
            return selected;
        }
        for (const std::string& cell : request.cells) {
            const CellSelector selector(cell);
            bool found = false;
            for (const Cell& entry : m_analysis.cells) {
                if (!selector.matches(entry))
                    continue;
                const bool byPath = selector.namesRecipeOf(entry);
                found = true;
                if (!contains(selected, &entry))
                    selected.push_back(&entry);
                if (byPath)
                    break;
            }
            if (!found && !synthesize(request.action, cell))
                m_changes.skipped.push_back({cell, "no such cell or recipe in the grid"});
        }
        return selected;
    }

    // A variant named in full that the grid does not show (no spec asks for it, no
    // inference suggests it) can still be created.
    bool synthesize(ChangeAction action, const std::string& cell)
    {
        if (action != ChangeAction::Create && action != ChangeAction::Complete)
            return false;
        auto name = VariantName::parse(cell);
        if (!name || !name->suffixes.empty())
            return false;
        Cell entry;
        entry.variant = *name;
        entry.package = name->package;
        entry.status = CellStatus::Missing;
        create(entry);
        return true;
    }

    void plan(ChangeAction action, const Cell& entry, bool named)
    {
        const std::string name = entry.variant.toString();
        switch (action) {
        case ChangeAction::Create:
            if (entry.recipe)
                m_changes.skipped.push_back({name, "already has a recipe: " + entry.recipe->path});
            else
                create(entry);
            return;
        case ChangeAction::Fix:
            if (!entry.recipe)
                m_changes.skipped.push_back({name, "has no recipe to fix"});
            else if (entry.count(Severity::Error) + entry.count(Severity::Warning) == 0)
                m_changes.skipped.push_back({name, "has nothing to fix"});
            else
                fix(entry);
            return;
        case ChangeAction::Delete:
            if (entry.recipe)
                remove(entry, "deleted on request");
            else
                m_changes.skipped.push_back({name, "has no recipe to delete"});
            return;
        case ChangeAction::Complete:
            complete(entry, named);
            return;
        }
    }

    // What completing the matrix does with one cell.
    void complete(const Cell& entry, bool named)
    {
        switch (entry.status) {
        case CellStatus::Missing:
            create(entry);
            return;
        case CellStatus::Gap:
            if (named) // inference only suggests gaps: created when a user names them
                create(entry);
            return;
        case CellStatus::Redundant:
            remove(entry, "redundant: " + entry.reason);
            return;
        case CellStatus::Unexpected:
            remove(entry, "not in the spec");
            // A recipe that works is someone's build: it goes only when the user says so.
            if (entry.count(Severity::Error) == 0 && !m_changes.operations.empty() &&
                m_changes.operations.back().path == entry.recipe->path) {
                m_changes.operations.back().heldBack =
                    "a working recipe: deleted only if you check it";
                m_changes.operations.back().selected = false;
            }
            return;
        case CellStatus::Impossible:
            if (!entry.expected)
                remove(entry, "impossible: " + entry.reason);
            return;
        case CellStatus::Broken:
            // A broken file under another name than its variant's ("…-nightly") or outside
            // the spec is removed; the spec's cell is created from the canonical recipe.
            if (!entry.variant.suffixes.empty() ||
                (!entry.expected && !m_analysis.specPath.empty()))
                remove(entry, "broken, not the variant's recipe (" + rulesOf(entry) + ")");
            else
                fix(entry);
            return;
        case CellStatus::Ok:
        case CellStatus::Unchecked: // no finding names anything to change
            return;
        }
    }

    void remove(const Cell& entry, std::string reason)
    {
        SourceFile file = m_source->read(entry.recipe->path, maxRecipeSize);
        if (!file.error.empty()) {
            m_changes.skipped.push_back({entry.recipe->path, file.error});
            return;
        }
        FileOperation op;
        op.kind = FileOperationKind::Delete;
        op.path = entry.recipe->path;
        op.before = std::move(file.bytes);
        op.plannedHash = contentHash(op.before);
        op.reason = std::move(reason);
        op.subject = entry.variant.toString();
        m_changes.operations.push_back(std::move(op));
    }

    void create(const Cell& entry)
    {
        VariantName name = entry.variant;
        name.suffixes.clear();
        const std::string& dir = m_analysis.recipeDir;
        const std::string path =
            (dir.empty() ? std::string() : dir + "/") + name.toString() + ".nix";
        if (m_source->exists(path)) {
            m_changes.skipped.push_back({name.toString(), path + " exists already"});
            return;
        }
        GeneratedRecipe recipe = m_generator.create(name);
        if (recipe.text.empty()) {
            m_changes.skipped.push_back({name.toString(), recipe.error});
            return;
        }
        FileOperation op;
        op.kind = FileOperationKind::Create;
        op.path = path;
        op.after = std::move(recipe.text);
        op.reason = (entry.status == CellStatus::Gap ? "gap; " : "missing; ") + recipe.how;
        op.subject = name.toString();
        m_changes.operations.push_back(std::move(op));
    }

    void fix(const Cell& entry)
    {
        SourceFile file = m_source->read(entry.recipe->path, maxRecipeSize);
        if (!file.error.empty()) {
            m_changes.skipped.push_back({entry.recipe->path, file.error});
            return;
        }
        GeneratedRecipe recipe = m_generator.fix(entry, file.bytes);
        if (recipe.text.empty() || recipe.text == file.bytes) {
            m_changes.skipped.push_back(
                {entry.recipe->path, recipe.text.empty() ? recipe.error : "no fix changes it"});
            return;
        }
        FileOperation op;
        op.kind = FileOperationKind::Modify;
        op.path = entry.recipe->path;
        op.before = std::move(file.bytes);
        op.after = std::move(recipe.text);
        op.plannedHash = contentHash(op.before);
        op.reason = rulesOf(entry) + "; " + recipe.how;
        op.subject = entry.variant.toString();
        if (!recipe.notRegenerated.empty())
            m_notRegenerated[op.path] = recipe.notRegenerated;
        op.alsoRemoves = RemovalReport::outsideFindings(
            op.before, op.after, VariantGenerator::namedRanges(entry, op.before));
        op.selected = op.alsoRemoves.empty();
        m_changes.operations.push_back(std::move(op));
    }

    // Analyses the repository as the change set leaves it; a written recipe that does not
    // parse or still has an error is dropped and its cell reported instead.
    void verify(bool updateReadme, bool addReadmeSection)
    {
        if (m_changes.operations.empty() && !updateReadme)
            return;
        Analysis after = analyzePlanned();
        std::set<std::string> dropped;
        for (const Cell& entry : after.cells) {
            if (!entry.recipe)
                continue;
            auto op =
                std::find_if(m_changes.operations.begin(), m_changes.operations.end(),
                             [&](const FileOperation& o) { return o.path == entry.recipe->path; });
            if (op == m_changes.operations.end() || op->kind == FileOperationKind::Delete)
                continue;
            const Finding* error = entry.firstError();
            if (!error)
                continue;
            // Why the fix left it so, when regenerating it was refused.
            const auto refused = m_notRegenerated.find(op->path);
            m_changes.skipped.push_back(
                {op->subject, "the written recipe would still be wrong (" + error->ruleId +
                                  "): " + error->message +
                                  (refused == m_notRegenerated.end()
                                       ? std::string()
                                       : "; not regenerated: " + refused->second)});
            dropped.insert(op->path);
        }
        std::erase_if(m_changes.operations,
                      [&](const FileOperation& op) { return dropped.count(op.path) > 0; });
        if (!dropped.empty())
            after = analyzePlanned();
        if (updateReadme)
            planReadme(after, addReadmeSection);
    }

    // Only the planned files are parsed: the others' facts come from the analysis given.
    Analysis analyzePlanned()
    {
        auto planned = std::make_shared<OverlaySource>(m_source);
        for (const FileOperation& op : m_changes.operations) {
            if (op.kind == FileOperationKind::Delete)
                planned->remove(op.path);
            else
                planned->write(op.path, op.after);
        }
        AnalyzerOptions options;
        options.specPath = m_analysis.specPath;
        options.recipeDir = m_analysis.recipeDir;
        return Analyzer(m_analysis.catalog).analyze(*planned, options, &m_facts);
    }

    void planReadme(const Analysis& after, bool addSection)
    {
        if (!m_source->exists(readmePath))
            return;
        SourceFile readme = m_source->read(readmePath, maxRecipeSize);
        if (!readme.error.empty()) {
            m_changes.skipped.push_back({readmePath, readme.error});
            return;
        }
        if (!addSection && readme.bytes.find(ReadmeMatrix::beginMarker) == std::string::npos)
            return;
        std::vector<VariantName> variants;
        const std::string package = m_analysis.spec.package;
        for (const Cell& entry : after.cells)
            if (entry.recipe && entry.package == package && entry.recipe->variant &&
                entry.recipe->variant->suffixes.empty())
                variants.push_back(*entry.recipe->variant);
        const std::string text =
            ReadmeMatrix::updated(readme.bytes, ReadmeMatrix::section(variants, after.catalog));
        if (text == readme.bytes)
            return;
        FileOperation op;
        op.kind = FileOperationKind::Modify;
        op.path = readmePath;
        op.before = std::move(readme.bytes);
        op.after = text;
        op.plannedHash = contentHash(op.before);
        op.reason = "the variant matrix section, regenerated";
        m_changes.operations.push_back(std::move(op));
    }

    std::shared_ptr<const RepositorySource> m_source;
    const Analysis& m_analysis;
    VariantGenerator m_generator;
    ChangeSet m_changes;
    std::map<std::string, std::string> m_notRegenerated; // path → why, for verify()
    RecipeCache m_facts;
};

ChangePlanner::ChangePlanner(std::shared_ptr<const RepositorySource> source,
                             std::shared_ptr<const Analysis> analysis)
    : m_source(std::move(source)), m_analysis(std::move(analysis))
{}

ChangeSet ChangePlanner::plan(const ChangeRequest& request) const
{
    return PlanBuilder(m_source, *m_analysis).build(request);
}

} // namespace rg

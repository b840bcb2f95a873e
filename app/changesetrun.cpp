#include "changesetrun.h"

#include "analysis/analysisreport.h"
#include "changes/changesetapplier.h"
#include "changes/gitcommitter.h"
#include "changes/removalreport.h"
#include "changes/unifieddiff.h"

#include <iostream>

namespace rg {

namespace {

const char* const dot = " \xc2\xb7 "; // " · "

// What a fix takes out beyond its findings, or why a deletion is held back, one line below
// the operation's.
std::string removalLine(const FileOperation& op)
{
    std::string out;
    if (!op.alsoRemoves.empty())
        out += "  " + AnalysisReport::printable(RemovalReport::summary(op.alsoRemoves)) + "\n";
    if (!op.heldBack.empty())
        out += "  " + AnalysisReport::printable(op.heldBack) + "\n";
    return out;
}

std::string operationLine(const FileOperation& op)
{
    return std::string(fileOperationKindId(op.kind)) + "  " + AnalysisReport::printable(op.path) +
           "  (" + AnalysisReport::printable(op.reason) + ")\n" + removalLine(op);
}

} // namespace

std::string ChangeSetRun::countsLine(const ChangeSet& changes)
{
    return std::to_string(changes.count(FileOperationKind::Create)) + " create" + dot +
           std::to_string(changes.count(FileOperationKind::Modify)) + " modify" + dot +
           std::to_string(changes.count(FileOperationKind::Delete)) + " delete";
}

std::string ChangeSetRun::planText(const ChangeSet& changes, bool diff, const std::string& note)
{
    std::string out;
    for (const FileOperation& op : changes.operations)
        if (op.selected)
            out += operationLine(op);
    for (const FileOperation& op : changes.operations)
        if (!op.selected)
            out += "not selected: " + std::string(fileOperationKindId(op.kind)) + "  " +
                   AnalysisReport::printable(op.path) + "\n" + removalLine(op);
    out += countsLine(changes) + "\n" + note;
    if (!changes.skipped.empty()) {
        out += "Skipped (" + std::to_string(changes.skipped.size()) + "):\n";
        for (const SkippedCell& cell : changes.skipped)
            out += "  " + AnalysisReport::printable(cell.subject) + ": " +
                   AnalysisReport::printable(cell.why) + "\n";
    }
    if (diff)
        for (const FileOperation& op : changes.operations)
            if (op.selected)
                out += "\n" + UnifiedDiff::of(op);
    return out;
}

nlohmann::json ChangeSetRun::document(const ChangeSet& changes, const Options& options)
{
    nlohmann::json doc;
    doc["schema"] = 1;
    doc["command"] = options.command;
    doc["repository"] = options.root;
    doc["title"] = changes.title;
    doc["dryRun"] = options.dryRun;
    nlohmann::json operations = nlohmann::json::array();
    for (const FileOperation& op : changes.operations) {
        const DiffStat stat = UnifiedDiff::statOf(op);
        nlohmann::json entry = {
            {"kind", fileOperationKindId(op.kind)},
            {"path", op.path},
            {"reason", op.reason},
            {"subject", op.subject.empty() ? nlohmann::json() : nlohmann::json(op.subject)},
            {"selected", op.selected},
            {"alsoRemoves", op.alsoRemoves},
            {"heldBack", op.heldBack},
            {"added", stat.added},
            {"removed", stat.removed}};
        if (options.diff)
            entry["diff"] = UnifiedDiff::of(op);
        operations.push_back(std::move(entry));
    }
    doc["operations"] = std::move(operations);
    doc["counts"] = {{"create", changes.count(FileOperationKind::Create)},
                     {"modify", changes.count(FileOperationKind::Modify)},
                     {"delete", changes.count(FileOperationKind::Delete)}};
    nlohmann::json skipped = nlohmann::json::array();
    for (const SkippedCell& cell : changes.skipped)
        skipped.push_back({{"subject", cell.subject}, {"why", cell.why}});
    doc["skipped"] = std::move(skipped);
    doc["applied"] = false;
    doc["commit"] = nullptr;
    doc["error"] = nullptr;
    return doc;
}

int ChangeSetRun::finish(const ChangeSet& changes, const Options& options,
                         const std::string& commitMessage, nlohmann::json doc)
{
    const std::string prefix = "recipegrid " + options.command + ": ";
    int exitCode = 0;
    std::string text;
    const auto apply = [&] {
        const ApplyResult applied = ChangeSetApplier(options.root).apply(changes);
        if (!applied.applied) {
            // The applier's refusals already start with the file; its write errors may not.
            const bool named = applied.file.empty() || applied.error.starts_with(applied.file);
            const std::string where = named ? std::string() : applied.file + ": ";
            doc["error"] = {{"file", applied.file}, {"message", applied.error}};
            std::cerr << prefix
                      << "cannot apply: " << AnalysisReport::printable(where + applied.error)
                      << "; nothing was changed\n";
            return 1;
        }
        doc["applied"] = true;
        text = "Applied: " + countsLine(changes) + "\n";
        if (options.commit) {
            const std::string message = options.message.empty() ? commitMessage : options.message;
            const CommitResult committed = GitCommitter::commit(options.root, changes, message);
            if (!committed.committed) {
                doc["error"] = {{"file", nullptr}, {"message", committed.error}};
                std::cerr << prefix << "applied but not committed: "
                          << AnalysisReport::printable(committed.error) << "\n";
                return 1;
            }
            doc["commit"] = committed.id;
            text += "Committed " + committed.id.substr(0, 12) + ": " +
                    AnalysisReport::printable(message.substr(0, message.find('\n'))) + "\n";
        }
        // What the repository now is, so a run ends with the verdict `check` would give.
        const Analysis after = Analyzer().analyze(*openWorkTree(options.root), options.analyzer);
        doc["summaryAfter"] = after.summary();
        text += "Now: " + after.summary() + "\n";
        return 0;
    };
    if (!changes.hasSelected())
        text = "Nothing to do.\n";
    else if (options.dryRun)
        text = "Dry run: nothing was written.\n";
    else
        exitCode = apply();
    if (options.json)
        std::cout << doc.dump(2) << "\n";
    else
        std::cout << text;
    std::cout.flush();
    return exitCode;
}

} // namespace rg

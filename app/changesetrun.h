#pragma once

// How a headless command shows, applies and commits a change set, the same way for
// create / fix / delete / complete and bump-pin: the plan as text or JSON, a dry run, an
// all-or-nothing apply, an optional commit of exactly its paths, and the verdict after.

#include "analysis/analyzer.h"
#include "changes/changeset.h"

#include <nlohmann/json.hpp>
#include <string>

namespace rg {

class ChangeSetRun
{
public:
    struct Options
    {
        std::string command; // "complete", "bump-pin": the prefix of error messages
        std::string root;    // absolute
        bool dryRun = false;
        bool diff = false;
        bool commit = false;
        std::string message; // the commit message given; "" for the change set's own
        bool json = false;
        AnalyzerOptions analyzer;
    };

    // "2 create · 5 modify · 1 delete"
    static std::string countsLine(const ChangeSet& changes);
    // The plan as a reader sees it: one line per operation, the counts, `note` (a line of the
    // command's own, or ""), what was skipped and why, and the diffs when asked.
    static std::string planText(const ChangeSet& changes, bool diff, const std::string& note);
    // The JSON every such command prints; it adds its own keys.
    static nlohmann::json document(const ChangeSet& changes, const Options& options);
    // Applies the selected operations unless it is a dry run or there are none, commits with
    // `message` (or the given one), prints the text or `doc`, and returns the exit code.
    static int finish(const ChangeSet& changes, const Options& options,
                      const std::string& commitMessage, nlohmann::json doc);
};

} // namespace rg

#pragma once

// An Analysis written out for people (text), scripts (JSON) and code-scanning tools (SARIF
// 2.1.0). Used by `recipegrid check`; kept beside the engine so the GUI can export the same.
//
// JSON shape (schema 1; keys always present unless marked optional):
//   {
//     "schema": 1,
//     "repository": "/path/to/repo",        "revision": "main" | null,
//     "recipeDir": ".flox/pkgs",
//     "spec": { "path": ".flox/recipegrid.json" | null, "inferred": false,
//               "error": "file:line:column: /pointer: message" | null },
//     "summary": { "expected": 44, "ok": 1, "broken": 3, "redundant": 1, "missing": 41,
//                  "unexpected": 1, "impossible": 0, "findings": 52,
//                  "errors": 12, "warnings": 40, "infos": 0 },
//     "entries": [ { "variant": "pytorch-python313-cuda13_0-sm120-avx512",
//                    "status": "ok", "expected": true,
//                    "file": ".flox/pkgs/….nix" | null, "reason": "pin differs; …",
//                    "facts": { "pattern": "pinned-overlays", "pins": ["6a03…"],
//                               "torchVersion": "2.10.0" | null, "pname": "…" | null }  // optional
//                    "findings": [ Finding… ] } ],
//     "repositoryFindings": [ Finding… ],
//     "unnamed": [ ".flox/pkgs/common.nix" ]
//   }
//   Finding = { "ruleId": "pin-mismatch", "severity": "error", "message": "…",
//               "file": ".flox/pkgs/….nix", "line": 12, "column": 20, "fix": "replace-pin" }

#include "analysis/analysis.h"

#include <string>
#include <string_view>

namespace rg {

struct ReportContext
{
    std::string repository;  // shown as given
    std::string revision;    // "" for the work tree
    std::string toolVersion; // RecipeGrid's version for SARIF's tool.driver, "" if unknown
};

class AnalysisReport
{
public:
    static std::string json(const Analysis& analysis, const ReportContext& context);
    static std::string sarif(const Analysis& analysis, const ReportContext& context);
    // Grouped by status, then by file; ANSI colours only when `color`.
    static std::string text(const Analysis& analysis, const ReportContext& context, bool color);

    // Findings that make a check fail (errors and warnings; infos do not).
    static int problemCount(const Analysis& analysis);
    // Control characters of file names and messages escaped for a terminal (`\x0a`): a newline
    // in a name must not forge an output line, an ESC must not reach the terminal.
    static std::string printable(std::string_view text);
};

} // namespace rg

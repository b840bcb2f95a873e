#pragma once

// One rule's verdict on one recipe: what is wrong, where, and what kind of fix applies.

#include "nix/node.h"

#include <string>
#include <string_view>

namespace rg {

enum class Severity { Error, Warning, Info };

enum class FixKind {
    None,
    Regenerate, // rewrite from the canonical recipe, keeping the variant's own values
    ReplacePin, // swap the nixpkgs revision in place
    NewHash,    // the source needs a hash Nix accepts, learnt by prefetching it
    EditValue,  // rewrite one value (gpuArchSM, cpuFlags, platforms, pname, attribute name)
    Rename,     // move the file to its canonical name
    Delete,     // remove the file (redundant / not wanted)
    Create,     // generate the missing recipe
};

std::string_view severityId(Severity severity); // "error" / "warning" / "info"
std::string_view fixKindId(FixKind fix);        // "regenerate", "replace-pin", …

struct Finding
{
    std::string ruleId; // stable, kebab-case: "pin-mismatch", "missing-overlay", …
    Severity severity = Severity::Error;
    std::string
        message; // names the evidence: "pin fe5e41d… differs from 6a030d5… (spec, CUDA 13.0)"
    std::string file;       // path relative to the repository root; "" for repository-level
    nix::SourceRange range; // evidence in the file; empty range when the evidence is an absence
    uint32_t line = 0;      // 1-based position of range.begin (0 = whole file)
    uint32_t column = 0;
    FixKind fix = FixKind::None;
};

} // namespace rg

#pragma once

// A user's command template, e.g. `nix build -f {file} --out-link {out} --keep-going`.
// The template is split into words first (quotes group words, no shell), then each word's
// placeholders are replaced, so a value never splits into several arguments.
// Placeholders: {variant} {pname} {file} {repo} {out}.

#include "builds/buildbackend.h"

namespace rg {

class CustomBackend : public BuildBackend
{
public:
    BackendKind kind() const override { return BackendKind::Custom; }
    std::optional<ProcessSpec> buildProcess(const BuildTarget& target,
                                            const BuildSettings& settings,
                                            QString* error) const override;

    // Shell-like word splitting without a shell: whitespace separates words, '…' and "…"
    // group them, a backslash escapes the next character outside single quotes. nullopt
    // when a quote is left open.
    static std::optional<QStringList> splitWords(const QString& command);
};

} // namespace rg

#pragma once

// Turns a build target into the process that builds it. One subclass per tool: flox, nix,
// a user's command template. Backends only construct commands; BuildQueue runs them.

#include "builds/buildsettings.h"
#include "builds/buildtarget.h"
#include "builds/processspec.h"

#include <memory>
#include <optional>

namespace rg {

class BuildBackend
{
public:
    virtual ~BuildBackend();

    virtual BackendKind kind() const = 0;
    // nullopt with a sentence in `error` when the target or the settings cannot make a
    // command (invalid names, an empty template, an unknown placeholder …).
    virtual std::optional<ProcessSpec> buildProcess(const BuildTarget& target,
                                                    const BuildSettings& settings,
                                                    QString* error) const = 0;

    // The backend a repository asks for: `.flox/` present and `flox` on PATH → flox,
    // otherwise nix. `path` is the PATH to search (the process's PATH when empty).
    static BackendKind detect(const QString& repository, const QString& path = {});
    // The backend for `settings.backend`, resolving Auto with detect().
    static std::unique_ptr<BuildBackend> create(BackendKind kind, const QString& repository);

protected:
    // Validates the target's names before they reach a command line.
    static bool checkTarget(const BuildTarget& target, QString* error);
};

} // namespace rg

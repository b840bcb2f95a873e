#pragma once

// One Nix process evaluating a list of recipes through the batch wrapper (evalwrapper.nix),
// reading each result as Nix writes it. When Nix stops at a recipe that does not evaluate,
// that recipe gets Nix's message and a new process goes on with the rest; a failure to fetch a
// pin fails every recipe on that pin at once, with one message. A recipe that runs past the
// time limit, a process past its memory limit and a cancel stop the process with its whole
// process group. Blocking: run it on a worker thread.

#include "eval/evalsettings.h"
#include "eval/evaluatedrecipe.h"
#include "eval/nixinstallation.h"

#include <QStringList>
#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace rg {

class EvalBatch
{
public:
    using OnBegin = std::function<void(const std::string& path)>;
    using OnResult = std::function<void(EvaluatedRecipe result)>;

    EvalBatch(const NixInstallation& nix, const EvalSettings& settings,
              const std::atomic<bool>& cancel);

    // Every item gets exactly one result (cancelled ones a transient failure).
    void run(const std::vector<EvalItem>& items, const OnBegin& onBegin, const OnResult& onResult);

    // The wrapper expression, as Nix gets it.
    static const std::string& wrapper();

private:
    struct Pass;
    void runPass(Pass& pass);
    QStringList argumentsFor(const Pass& pass) const;
    void readLine(Pass& pass, std::string_view line) const;
    void finishFailedPass(Pass& pass, int exitCode, bool crashed);

    const NixInstallation& m_nix;
    const EvalSettings& m_settings;
    const std::atomic<bool>& m_cancel;
};

} // namespace rg

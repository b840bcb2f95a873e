#pragma once

// Reads where a recipe's GPU architectures reach the build (gpuTargets, cudaCapabilities,
// TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES, COMPUTE_CAPABILITY): each entry with the
// bytes it is written in and the binding it flowed through, so a fix edits the literal.

#include "facts/factcontext.h"
#include "facts/shellsettings.h"

namespace rg {

class ArchSinkReader
{
public:
    ArchSinkReader(FactContext& context, const ShellSettings& settings);

    // Fills `archSinks`, in the order the sinks are written.
    void read();

private:
    void addArchEntry(ArchSink sink, const SourcedText& entry, size_t offset, size_t length,
                      nix::SourceRange sinkRange);
    void addArchList(ArchSink sink, const SourcedText& value, nix::SourceRange sinkRange);
    void readBindings();
    void readShellSettings();
    void readCmakeFeatures();

    FactContext& m_context;
    RecipeFacts& m_facts;
    const RecipeWalk& m_walk;
    const ShellSettings& m_settings;
};

} // namespace rg

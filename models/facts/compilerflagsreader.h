#pragma once

// Reads the machine flags (`-mavx2`, `-march=…`) that reach the compiler: from the flag
// sinks (CXXFLAGS, NIX_CFLAGS_COMPILE, CFLAGS, CMAKE_CXX_FLAGS) as settings or bindings, else
// from the list the recipe keeps its flags in. A sink whose value cannot be read is noted,
// since its flags cannot be judged.

#include "facts/factcontext.h"
#include "facts/shellsettings.h"

#include <optional>
#include <string_view>

namespace rg {

class CompilerFlagsReader
{
public:
    CompilerFlagsReader(FactContext& context, const ShellSettings& settings);

    // Fills `compilerFlags`, `moreCompilerFlags` and `unreadFlagSinks`.
    void read();

private:
    std::optional<SourcedText> addedFlags(const nix::Value& value, std::string_view sink,
                                          const nix::Node& at, int depth = 0) const;
    bool note(const SourcedText& value, std::string_view sink);
    void readBinding(const BindingRecord& binding, std::string_view sink);
    void readFlagList();

    FactContext& m_context;
    RecipeFacts& m_facts;
    const RecipeWalk& m_walk;
    const ShellSettings& m_settings;
};

} // namespace rg

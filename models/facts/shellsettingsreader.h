#pragma once

// Reads the facts a recipe states as shell settings in its scripts and CMake flags:
// USE_MAGMA, USE_CUDA, and machine flags put straight into CXXFLAGS.

#include "facts/factcontext.h"
#include "facts/shellsettings.h"

namespace rg {

class ShellSettingsReader
{
public:
    ShellSettingsReader(FactContext& context, const ShellSettings& settings);

    // Fills what the recipe's bindings have not already stated.
    void read();

private:
    RecipeFacts& m_facts;
    const ShellSettings& m_settings;
};

} // namespace rg

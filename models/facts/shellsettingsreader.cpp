#include "facts/shellsettingsreader.h"

#include "facts/syntaxqueries.h"

namespace rg {

using Setting = ShellSettings::Setting;

ShellSettingsReader::ShellSettingsReader(FactContext& context, const ShellSettings& settings)
    : m_facts(context.facts()), m_settings(settings)
{}

void ShellSettingsReader::read()
{
    for (const Setting& setting : m_settings.settings("USE_MAGMA"))
        if (isOff(setting.value))
            m_facts.magmaDisabled.push_back({"USE_MAGMA=" + setting.value, setting.range});
    if (!m_facts.cudaSupport || !m_facts.cudaSupport->value) {
        for (const Setting& setting : m_settings.settings("USE_CUDA")) {
            if (isOn(setting.value)) {
                m_facts.cudaSupport = Fact<bool>{true, setting.range};
                break;
            }
            if (isOff(setting.value) && !m_facts.cudaSupport)
                m_facts.cudaSupport = Fact<bool>{false, setting.range};
        }
    }
    if (!m_facts.cpuFlags) {
        // Recipes without a cpuFlags list put the flags straight into CXXFLAGS.
        for (const Setting& setting : m_settings.settings("CXXFLAGS")) {
            std::vector<std::string> flags = machineFlags(setting.value);
            if (!flags.empty()) {
                m_facts.cpuFlags = Fact<std::vector<std::string>>{flags, setting.range};
                break;
            }
        }
    }
}

} // namespace rg

#include "facts/archnotation.h"

#include "matrix/versionspelling.h"

#include <algorithm>
#include <array>
#include <utility>

namespace rg {

namespace {

bool uses(ArchSink sink, std::initializer_list<ArchSink> sinks)
{
    return std::find(sinks.begin(), sinks.end(), sink) != sinks.end();
}

// "8.6", "12.0", "9.0a", "10.0f" → the integer capability; "" otherwise.
std::string fromDotted(std::string_view text)
{
    if (!text.empty() && (text.back() == 'a' || text.back() == 'f'))
        text.remove_suffix(1);
    const auto dot = text.find('.');
    if (dot == std::string_view::npos)
        return {};
    const std::string_view major = text.substr(0, dot);
    const std::string_view minor = text.substr(dot + 1);
    if (!allDigits(major) || !allDigits(minor) || minor.size() != 1)
        return {};
    return std::string(major) + std::string(minor);
}

// "86", "90a", "86-real", "sm_86", "compute_86", "sm86" → "86"; "" otherwise.
std::string fromInteger(std::string_view text, bool* prefixed)
{
    *prefixed = false;
    for (std::string_view prefix : {"sm_", "compute_", "sm"})
        if (text.starts_with(prefix)) {
            text.remove_prefix(prefix.size());
            *prefixed = true;
            break;
        }
    for (std::string_view suffix : {"-real", "-virtual"})
        if (text.ends_with(suffix))
            text.remove_suffix(suffix.size());
    if (!text.empty() && (text.back() == 'a' || text.back() == 'f'))
        text.remove_suffix(1);
    return allDigits(text) ? std::string(text) : std::string();
}

// Generation names select_compute_arch.cmake knows, with the capabilities each stands for.
const std::array<std::pair<std::string_view, std::vector<std::string>>, 11>& generations()
{
    static const std::array<std::pair<std::string_view, std::vector<std::string>>, 11> names = {{
        {"Kepler+Tegra", {"32"}},
        {"Kepler+Tesla", {"37"}},
        {"Kepler", {"30", "35"}},
        {"Maxwell+Tegra", {"53"}},
        {"Maxwell", {"50", "52"}},
        {"Pascal", {"60", "61"}},
        {"Volta", {"70"}},
        {"Turing", {"75"}},
        {"Ampere", {"80", "86"}},
        {"Ada", {"89"}},
        {"Hopper", {"90"}},
    }};
    return names;
}

} // namespace

ArchReading ArchNotation::read(ArchSink sink, std::string_view entry)
{
    ArchReading reading;
    if (entry.ends_with("+PTX") && uses(sink, {ArchSink::GpuTargets, ArchSink::TorchCudaArchList}))
        entry.remove_suffix(4);
    const std::string dottedNumber = fromDotted(entry);
    bool prefixed = false;
    const std::string integerNumber = fromInteger(entry, &prefixed);
    switch (sink) {
    case ArchSink::GpuTargets:
    case ArchSink::TorchCudaArchList:
        for (const auto& [name, numbers] : generations())
            if (entry == name) {
                reading.accepted = true;
                reading.numbers = numbers;
                return reading;
            }
        if (entry == "All" || entry == "Common" || entry == "Auto") {
            reading.accepted = reading.denotesAny = true;
            return reading;
        }
        reading.accepted = !dottedNumber.empty();
        break;
    case ArchSink::CudaCapabilities:
        reading.accepted = !dottedNumber.empty();
        break;
    case ArchSink::CmakeCudaArchitectures:
        if (entry == "native" || entry == "all" || entry == "all-major") {
            reading.accepted = reading.denotesAny = true;
            return reading;
        }
        reading.accepted = !integerNumber.empty() && !prefixed;
        break;
    case ArchSink::ComputeCapability:
        // Read by project CMake scripts of their own; both spellings are seen working.
        reading.accepted = !dottedNumber.empty() || (!integerNumber.empty() && !prefixed);
        break;
    }
    if (!dottedNumber.empty())
        reading.numbers = {dottedNumber};
    else if (!integerNumber.empty())
        reading.numbers = {integerNumber};
    return reading;
}

std::string ArchNotation::write(ArchSink sink, std::string_view number)
{
    if (uses(sink, {ArchSink::CmakeCudaArchitectures, ArchSink::ComputeCapability}))
        return std::string(number);
    return dotted(number);
}

std::string ArchNotation::suffixOf(ArchSink sink, std::string_view entry)
{
    const ArchReading reading = read(sink, entry);
    if (!reading.accepted || reading.denotesAny)
        return {};
    size_t at = 0;
    while (at < entry.size() && entry[at] >= '0' && entry[at] <= '9')
        ++at;
    if (at < entry.size() && entry[at] == '.') {
        ++at;
        while (at < entry.size() && entry[at] >= '0' && entry[at] <= '9')
            ++at;
    }
    return at == 0 ? std::string() : std::string(entry.substr(at));
}

std::string_view ArchNotation::accepts(ArchSink sink)
{
    switch (sink) {
    case ArchSink::GpuTargets:
    case ArchSink::TorchCudaArchList:
        return "dotted capabilities such as \"8.6\", \"8.6+PTX\" or \"9.0a\" (PyTorch's "
               "select_compute_arch.cmake stops with \"Unknown CUDA Architecture Name\" "
               "otherwise)";
    case ArchSink::CudaCapabilities:
        return "dotted capabilities such as \"8.6\"";
    case ArchSink::CmakeCudaArchitectures:
        return "integers such as \"86\" or \"86-real\" (CMake rejects other spellings)";
    case ArchSink::ComputeCapability:
        return "a capability such as \"86\"";
    }
    return "";
}

std::string ArchNotation::numberOf(std::string_view gpuArchId)
{
    if (!gpuArchId.starts_with("sm") || !allDigits(gpuArchId.substr(2)))
        return {};
    return std::string(gpuArchId.substr(2));
}

std::string ArchNotation::dotted(std::string_view number)
{
    if (number.size() < 2)
        return std::string(number);
    return std::string(number.substr(0, number.size() - 1)) + "." +
           std::string(number.substr(number.size() - 1));
}

} // namespace rg

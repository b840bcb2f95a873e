#include "matrix/variantname.h"

#include "matrix/versionspelling.h"

#include <algorithm>

namespace rg {

namespace {

bool isLowerAlnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// "python313" → "313", "py313" → "313" (sets `shortForm`); 2–4 digits so "python3" (no minor
// version) and years do not pass for a Python axis.
std::optional<std::string> pythonDigits(std::string_view token, bool* shortForm)
{
    std::string_view digits;
    if (token.starts_with("python")) {
        digits = token.substr(6);
        *shortForm = false;
    } else if (token.starts_with("py")) {
        digits = token.substr(2);
        *shortForm = true;
    } else {
        return std::nullopt;
    }
    if (!allDigits(digits) || digits.size() < 2 || digits.size() > 4)
        return std::nullopt;
    return std::string(digits);
}

// "cuda13_0" → "13.0"
std::optional<std::string> cudaDotted(std::string_view token)
{
    if (!token.starts_with("cuda"))
        return std::nullopt;
    token.remove_prefix(4);
    const auto underscore = token.find('_');
    if (underscore == std::string_view::npos)
        return std::nullopt;
    const std::string_view major = token.substr(0, underscore);
    const std::string_view minor = token.substr(underscore + 1);
    if (!allDigits(major) || !allDigits(minor))
        return std::nullopt;
    return std::string(major) + "." + std::string(minor);
}

bool isGpuArch(std::string_view token)
{
    return token.size() > 2 && token.starts_with("sm") && allDigits(token.substr(2));
}

// An ISA word starts with a letter and holds letters, digits, '_' or '.' ("armv8.2").
bool isIsaWord(std::string_view token)
{
    if (token.empty() || token.front() < 'a' || token.front() > 'z')
        return false;
    return std::all_of(token.begin(), token.end(),
                       [](char c) { return isLowerAlnum(c) || c == '_' || c == '.'; });
}

std::vector<std::string_view> splitDashes(std::string_view s)
{
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        const auto dash = s.find('-', start);
        parts.push_back(s.substr(start, dash == std::string_view::npos ? dash : dash - start));
        if (dash == std::string_view::npos)
            return parts;
        start = dash + 1;
    }
}

} // namespace

std::string_view acceleratorId(Accelerator accelerator)
{
    switch (accelerator) {
    case Accelerator::Cuda:
        return "cuda";
    case Accelerator::Cpu:
        return "cpu";
    case Accelerator::Darwin:
        return "darwin";
    }
    return "cpu";
}

std::optional<Accelerator> acceleratorFromId(std::string_view id)
{
    for (const Accelerator a : {Accelerator::Cuda, Accelerator::Cpu, Accelerator::Darwin})
        if (acceleratorId(a) == id)
            return a;
    return std::nullopt;
}

bool VariantName::isSuffixWord(std::string_view word)
{
    static constexpr std::string_view words[] = {"magma",  "nightly",      "dev", "test",
                                                 "debug",  "experimental", "old", "new",
                                                 "backup", "wip",          "tmp"};
    return std::find(std::begin(words), std::end(words), word) != std::end(words);
}

std::optional<VariantName> VariantName::parse(std::string_view stem)
{
    if (const auto slash = stem.find_last_of('/'); slash != std::string_view::npos)
        stem.remove_prefix(slash + 1);
    if (stem.ends_with(".nix"))
        stem.remove_suffix(4);

    const std::vector<std::string_view> tokens = splitDashes(stem);
    if (std::any_of(tokens.begin(), tokens.end(), [](std::string_view t) { return t.empty(); }))
        return std::nullopt;

    // The package word is everything before the first Python token, so package names that
    // contain dashes or digits ("pytorch210", "flash-attn") need no list of known packages.
    VariantName name;
    std::size_t i = 0;
    bool shortPython = false;
    std::optional<std::string> python;
    for (; i < tokens.size(); ++i) {
        if ((python = pythonDigits(tokens[i], &shortPython)))
            break;
    }
    if (!python || i == 0)
        return std::nullopt;
    for (std::size_t k = 0; k < i; ++k) {
        const std::string_view t = tokens[k];
        if (!std::all_of(t.begin(), t.end(), [](char c) {
                return isLowerAlnum(c) || c == '_' || c == '.' || c == '+';
            }))
            return std::nullopt;
        if (k > 0)
            name.package += '-';
        name.package += t;
    }
    name.python = *python;
    name.legacyForm = shortPython;
    ++i;
    if (i >= tokens.size())
        return std::nullopt;

    if (auto cuda = cudaDotted(tokens[i])) {
        name.accelerator = Accelerator::Cuda;
        name.cuda = std::move(*cuda);
        ++i;
        if (i >= tokens.size() || !isGpuArch(tokens[i]))
            return std::nullopt;
        name.gpuArch = tokens[i];
    } else if (isGpuArch(tokens[i])) {
        // Proof-of-concept names (pytorch-py313-sm90-avx512) carry no CUDA component.
        name.accelerator = Accelerator::Cuda;
        name.gpuArch = tokens[i];
        name.legacyForm = true;
    } else if (tokens[i] == "cpu") {
        name.accelerator = Accelerator::Cpu;
    } else if (tokens[i] == "darwin") {
        name.accelerator = Accelerator::Darwin;
    } else {
        return std::nullopt;
    }
    ++i;

    if (i < tokens.size() && !isSuffixWord(tokens[i])) {
        if (!isIsaWord(tokens[i]))
            return std::nullopt;
        name.isa = tokens[i];
        std::replace(name.isa.begin(), name.isa.end(), '.', '_');
        if (name.isa != tokens[i])
            name.isaAsWritten = tokens[i];
        ++i;
    }

    for (; i < tokens.size(); ++i)
        name.suffixes.emplace_back(tokens[i]);
    return name;
}

std::string VariantName::toString() const
{
    std::string out = package + "-" + cellKey();
    for (const auto& suffix : suffixes)
        out += "-" + suffix;
    return out;
}

std::optional<VariantName> VariantName::ofSiblingPath(std::string_view path)
{
    if (!path.starts_with("./") || !path.ends_with(".nix") ||
        path.find('/', 2) != std::string_view::npos)
        return std::nullopt;
    return parse(path.substr(2, path.size() - 6));
}

bool VariantName::matchesBase(const VariantName& base) const
{
    return python == base.python && accelerator == base.accelerator && gpuArch == base.gpuArch &&
           (base.cuda.empty() || cuda.empty() || cuda == base.cuda) &&
           (base.isa.empty() || isa == base.isa);
}

std::string VariantName::cellKey() const
{
    std::string out = "python" + python;
    switch (accelerator) {
    case Accelerator::Cuda:
        if (!cuda.empty()) {
            std::string underscored = cuda;
            std::replace(underscored.begin(), underscored.end(), '.', '_');
            out += "-cuda" + underscored;
        }
        out += "-" + gpuArch;
        break;
    case Accelerator::Cpu:
        out += "-cpu";
        break;
    case Accelerator::Darwin:
        out += "-darwin";
        break;
    }
    return isa.empty() ? out : out + "-" + isa;
}

} // namespace rg

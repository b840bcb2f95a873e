#include "facts/syntaxqueries.h"

#include "matrix/versionspelling.h"

#include <algorithm>

namespace rg {

using nix::Node;
using nix::NodeKind;

bool isPythonPackageSet(std::string_view name)
{
    return name.starts_with("python") && name.ends_with("Packages") && name.size() > 14 &&
           allDigits(name.substr(6, name.size() - 14));
}

bool isCudaPackageSet(std::string_view name)
{
    if (!name.starts_with("cudaPackages"))
        return false;
    std::string_view rest = name.substr(12);
    if (rest.empty())
        return true;
    if (rest.front() != '_')
        return false;
    return std::all_of(rest.begin(), rest.end(),
                       [](char c) { return c == '_' || (c >= '0' && c <= '9'); });
}

bool isCudaInputName(std::string_view name)
{
    return isCudaPackageSet(name) || name == "cudatoolkit" || name == "cudnn" ||
           name == "cuda_cudart" || name == "libcublas" || name == "nccl";
}

std::string_view calleeName(const Node& apply)
{
    const Node* callee = &apply;
    while (callee && callee->kind == NodeKind::Apply)
        callee = callee->function();
    if (!callee)
        return {};
    if (callee->kind == NodeKind::Identifier)
        return callee->text;
    if (callee->kind == NodeKind::Select) {
        const Node* path = callee->attrPath();
        if (path && !path->children.empty() && path->children.back()->kind == NodeKind::AttrName)
            return path->children.back()->text;
    }
    return {};
}

std::vector<const Node*> callArguments(const Node& apply)
{
    std::vector<const Node*> arguments;
    const Node* call = &apply;
    while (call && call->kind == NodeKind::Apply) {
        arguments.push_back(call->argument());
        call = call->function();
    }
    std::reverse(arguments.begin(), arguments.end());
    return arguments;
}

std::vector<std::pair<std::string_view, const Node*>> selectNames(const Node& select)
{
    std::vector<std::pair<std::string_view, const Node*>> names;
    const Node* subject = select.subject();
    if (subject && subject->kind == NodeKind::Identifier)
        names.emplace_back(subject->text, subject);
    else if (subject && subject->kind == NodeKind::Select)
        names = selectNames(*subject);
    else
        names.emplace_back(std::string_view(), subject);
    if (const Node* path = select.attrPath())
        for (const Node* segment : path->children)
            names.emplace_back(
                segment->kind == NodeKind::AttrName ? segment->text : std::string_view(), segment);
    return names;
}

std::string_view lastSegment(const std::string& path)
{
    const auto dot = path.rfind('.');
    return dot == std::string::npos ? std::string_view(path)
                                    : std::string_view(path).substr(dot + 1);
}

bool isOff(std::string_view value)
{
    return value == "OFF" || value == "off" || value == "0" || value == "FALSE" ||
           value == "false" || value == "NO" || value == "no" || value == "Off";
}

bool isOn(std::string_view value)
{
    return value == "ON" || value == "on" || value == "1" || value == "TRUE" || value == "true" ||
           value == "YES" || value == "yes" || value == "On";
}

std::vector<std::string> machineFlags(std::string_view text)
{
    std::vector<std::string> flags;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find_first_of(" \t\n", at);
        if (end == std::string::npos)
            end = text.size();
        const std::string_view token = text.substr(at, end - at);
        if (token.starts_with("-m"))
            flags.emplace_back(token);
        at = end + 1;
    }
    return flags;
}

std::optional<nix::Value> optionalList(const nix::Value& value)
{
    const std::string_view path = value.symbolicPath();
    if (path.ends_with("optionals(...)") || path.ends_with("optional(...)"))
        return value.fallback();
    return std::nullopt;
}

} // namespace rg

#include "matrix/cellid.h"

#include <functional>

namespace rg {

CellId CellId::of(const VariantName& name, const std::string& package)
{
    return {package.empty() ? name.package : package,
            name.python,
            name.accelerator,
            name.cuda,
            name.gpuArch,
            name.isa};
}

std::optional<CellId> CellId::fromKey(std::string_view key)
{
    const auto colon = key.find(':');
    if (colon == std::string_view::npos || colon == 0)
        return std::nullopt;
    const std::string package(key.substr(0, colon));
    const auto name = VariantName::parse(package + "-" + std::string(key.substr(colon + 1)));
    if (!name || name->package != package || !name->suffixes.empty())
        return std::nullopt;
    return of(*name);
}

VariantName CellId::variant() const
{
    VariantName name;
    name.package = package;
    name.python = python;
    name.accelerator = accelerator;
    name.cuda = cuda;
    name.gpuArch = gpuArch;
    name.isa = isa;
    return name;
}

std::string CellId::point() const
{
    return variant().cellKey();
}

std::string CellId::toKey() const
{
    return package + ':' + point();
}

std::size_t CellIdHash::operator()(const CellId& id) const
{
    return std::hash<std::string>()(id.toKey());
}

} // namespace rg

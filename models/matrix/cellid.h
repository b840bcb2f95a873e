#pragma once

// One grid cell: a matrix point of one package. Recipes with the same CellId compete for one
// cell (a second one, or a suffixed one, is redundant). The package is the cell's package,
// which a package word may only imply: pytorch210-… files belong to pytorch's cells.
// Written as a key "pytorch:python313-cuda13_0-sm120-avx512" in the CLI, settings and
// history; toKey() and fromKey() are the only places that spelling is made and read.

#include "matrix/variantname.h"

#include <compare>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rg {

struct CellId
{
    std::string package;
    std::string python; // digits: "313"
    Accelerator accelerator = Accelerator::Cpu;
    std::string cuda;    // dotted "13.0"; "" when the name has no CUDA component
    std::string gpuArch; // "sm120"; "" unless accelerator == Cuda
    std::string isa;     // "avx512"; "" for a generic build

    // The cell `name` stands for, in `package` (the name's own package word when empty).
    static CellId of(const VariantName& name, const std::string& package = {});
    static std::optional<CellId> fromKey(std::string_view key);

    std::string toKey() const;   // "pytorch:python313-cuda13_0-sm120-avx512"
    std::string point() const;   // the key without its package: "python313-cuda13_0-sm120-avx512"
    VariantName variant() const; // the canonical variant name of the cell

    friend bool operator==(const CellId&, const CellId&) = default;
    friend auto operator<=>(const CellId&, const CellId&) = default;
};

struct CellIdHash
{
    std::size_t operator()(const CellId& id) const;
};

} // namespace rg

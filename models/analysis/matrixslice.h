#pragma once

// One page of the grid: a Python version and an accelerator (CUDA) version. The grid shows
// GPU archs × CPU ISAs of the selected slices; CPU-only and Darwin rows only depend on Python.

#include "analysis/analysis.h"
#include "matrix/catalog.h"

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg {

struct MatrixSlice
{
    std::string python;  // digits as in file names: "313"
    std::string cuda;    // dotted "13.0"; "" when the recipes name no CUDA version
    std::string package; // "torchvision"; "" when the repository builds one package only

    // "Python 3.13 · CUDA 13.0", "torchvision · Python 3.13 · no CUDA version"
    std::string label() const;
    bool contains(const VariantName& name) const; // CPU-only / Darwin: Python (and package)
    bool contains(const Cell& entry) const;       // by the entry's package
    // Stable text for settings: "313/13.0", "313/13.0/torchvision".
    std::string key() const;
    static std::optional<MatrixSlice> fromKey(std::string_view key);

    // Every slice the analysis has entries for: per package word when there are several,
    // then newest Python, then newest CUDA first. A Python version that only has CPU-only or
    // Darwin recipes gets a slice with cuda "".
    static std::vector<MatrixSlice> slicesOf(const Analysis& analysis);
    // The slice with the most entries: what the grid shows first.
    static std::optional<MatrixSlice> busiest(const Analysis& analysis);

    friend bool operator==(const MatrixSlice&, const MatrixSlice&) = default;
    friend auto operator<=>(const MatrixSlice&, const MatrixSlice&) = default;
};

} // namespace rg

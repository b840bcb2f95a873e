#include "recipes/matrixslice.h"

#include <algorithm>
#include <map>

namespace rg {

std::string dottedPython(std::string_view digits, const Catalog& catalog)
{
    if (const PythonVersion* version = catalog.python(digits))
        return version->dotted;
    if (digits.size() >= 2)
        return std::string(digits.substr(0, 1)) + '.' + std::string(digits.substr(1));
    return std::string(digits);
}

std::string MatrixSlice::label(const Catalog& catalog) const
{
    std::string text = "Python " + dottedPython(python, catalog);
    text += cuda.empty() ? " \u00b7 no CUDA version" : " \u00b7 CUDA " + cuda;
    return text;
}

std::string MatrixSlice::key() const
{
    return python + '/' + cuda;
}

std::optional<MatrixSlice> MatrixSlice::fromKey(std::string_view key)
{
    const auto slash = key.find('/');
    if (slash == std::string_view::npos || slash == 0)
        return std::nullopt;
    return MatrixSlice{std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

namespace {

// Newest first: Python 3.13 before 3.12, CUDA 13.0 before 12.9, named CUDA before none.
bool newerFirst(const MatrixSlice& a, const MatrixSlice& b)
{
    if (a.python != b.python) {
        if (a.python.size() != b.python.size())
            return a.python.size() > b.python.size();
        return a.python > b.python;
    }
    if (a.cuda.empty() != b.cuda.empty())
        return !a.cuda.empty();
    return compareVersions(a.cuda, b.cuda) > 0;
}

std::map<MatrixSlice, int> sliceSizes(const Analysis& analysis)
{
    std::map<MatrixSlice, int> sizes;
    std::map<std::string, bool> pythonHasCuda;
    for (const MatrixEntry& entry : analysis.entries) {
        const VariantName& name = entry.variant;
        if (name.accelerator == Accelerator::Cuda) {
            ++sizes[MatrixSlice{name.python, name.cuda}];
            pythonHasCuda[name.python] = true;
        } else {
            pythonHasCuda.try_emplace(name.python, false);
        }
    }
    for (const auto& [python, hasCuda] : pythonHasCuda) {
        if (!hasCuda)
            sizes[MatrixSlice{python, {}}] += 0;
    }
    // CPU-only and Darwin entries show in every slice of their Python version.
    for (const MatrixEntry& entry : analysis.entries) {
        if (entry.variant.accelerator == Accelerator::Cuda)
            continue;
        for (auto& [slice, size] : sizes)
            size += slice.python == entry.variant.python ? 1 : 0;
    }
    return sizes;
}

} // namespace

std::vector<MatrixSlice> MatrixSlice::slicesOf(const Analysis& analysis)
{
    std::vector<MatrixSlice> slices;
    for (const auto& [slice, size] : sliceSizes(analysis))
        slices.push_back(slice);
    std::sort(slices.begin(), slices.end(), newerFirst);
    return slices;
}

std::optional<MatrixSlice> MatrixSlice::busiest(const Analysis& analysis)
{
    std::optional<MatrixSlice> best;
    int bestSize = -1;
    const auto sizes = sliceSizes(analysis);
    for (const MatrixSlice& slice : slicesOf(analysis)) {
        const int size = sizes.at(slice);
        if (size > bestSize) {
            best = slice;
            bestSize = size;
        }
    }
    return best;
}

} // namespace rg

#include "analysis/matrixslice.h"

#include "matrix/versionspelling.h"

#include <algorithm>
#include <map>
#include <set>

namespace rg {

std::string MatrixSlice::label() const
{
    std::string text = package.empty() ? std::string() : package + " \u00b7 ";
    text += "Python " + dottedPython(python);
    text += cuda.empty() ? " \u00b7 no CUDA version" : " \u00b7 CUDA " + cuda;
    return text;
}

bool MatrixSlice::contains(const VariantName& name) const
{
    if (name.python != python || (!package.empty() && name.package != package))
        return false;
    return name.accelerator != Accelerator::Cuda || name.cuda == cuda;
}

bool MatrixSlice::contains(const Cell& entry) const
{
    VariantName name = entry.variant;
    if (!entry.package.empty())
        name.package = entry.package; // pytorch210-… files belong to pytorch's cells
    return contains(name);
}

std::string MatrixSlice::key() const
{
    return package.empty() ? python + '/' + cuda : python + '/' + cuda + '/' + package;
}

std::optional<MatrixSlice> MatrixSlice::fromKey(std::string_view key)
{
    const auto slash = key.find('/');
    if (slash == std::string_view::npos || slash == 0)
        return std::nullopt;
    MatrixSlice slice{std::string(key.substr(0, slash)), std::string(key.substr(slash + 1)), {}};
    if (const auto second = slice.cuda.find('/'); second != std::string::npos) {
        slice.package = slice.cuda.substr(second + 1);
        slice.cuda.erase(second);
    }
    return slice;
}

namespace {

// Newest first: Python 3.13 before 3.12, CUDA 13.0 before 12.9, named CUDA before none.
bool newerFirst(const MatrixSlice& a, const MatrixSlice& b)
{
    if (a.package != b.package)
        return a.package < b.package;
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
    std::set<std::string> packages;
    for (const Cell& entry : analysis.cells)
        packages.insert(entry.package.empty() ? entry.variant.package : entry.package);
    const bool perPackage = packages.size() > 1;

    std::map<MatrixSlice, int> sizes;
    std::map<std::pair<std::string, std::string>, bool> pythonHasCuda; // (package, python)
    for (const Cell& entry : analysis.cells) {
        const VariantName& name = entry.variant;
        const std::string package = !perPackage             ? std::string()
                                    : entry.package.empty() ? name.package
                                                            : entry.package;
        if (name.accelerator == Accelerator::Cuda) {
            ++sizes[MatrixSlice{name.python, name.cuda, package}];
            pythonHasCuda[{package, name.python}] = true;
        } else {
            pythonHasCuda.try_emplace({package, name.python}, false);
        }
    }
    for (const auto& [key, hasCuda] : pythonHasCuda) {
        if (!hasCuda)
            sizes[MatrixSlice{key.second, {}, key.first}] += 0;
    }
    // CPU-only and Darwin entries show in every slice of their Python version.
    for (const Cell& entry : analysis.cells) {
        if (entry.variant.accelerator == Accelerator::Cuda)
            continue;
        for (auto& [slice, size] : sizes)
            size += slice.contains(entry) ? 1 : 0;
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

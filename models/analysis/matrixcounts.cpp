#include "analysis/matrixcounts.h"

#include <numeric>

namespace rg {

namespace {

// "1 ok · 2 broken": the statuses that occur, in status order.
std::string byStatusText(const std::array<int, cellStatusCount>& counts)
{
    std::string text;
    for (int i = 0; i < cellStatusCount; ++i) {
        const int n = counts[static_cast<size_t>(i)];
        if (n == 0)
            continue;
        if (!text.empty())
            text += " \u00b7 ";
        text += std::to_string(n) + ' ' + std::string(cellStatusId(static_cast<CellStatus>(i)));
    }
    return text;
}

} // namespace

MatrixCounts MatrixCounts::of(const Analysis& analysis)
{
    MatrixCounts counts;
    for (const Cell& entry : analysis.cells) {
        const auto status = static_cast<size_t>(entry.status);
        if (entry.expected)
            ++counts.expected[status];
        else if (entry.status == CellStatus::Gap)
            ++counts.gaps;
        else
            ++counts.notExpected[status];
    }
    return counts;
}

int MatrixCounts::expectedTotal() const
{
    return std::accumulate(expected.begin(), expected.end(), 0);
}

int MatrixCounts::notExpectedTotal() const
{
    return std::accumulate(notExpected.begin(), notExpected.end(), 0);
}

std::array<int, cellStatusCount> MatrixCounts::byStatus() const
{
    std::array<int, cellStatusCount> all{};
    for (size_t i = 0; i < all.size(); ++i)
        all[i] = expected[i] + notExpected[i];
    all[static_cast<size_t>(CellStatus::Gap)] += gaps;
    return all;
}

std::string MatrixCounts::summary() const
{
    const int inMatrix = expectedTotal();
    std::string text = std::to_string(inMatrix) + " expected";
    if (inMatrix > 0)
        text += " (" + byStatusText(expected) + ')';
    if (const int outside = notExpectedTotal(); outside > 0)
        text += " \u00b7 " + std::to_string(outside) + " not expected (" +
                byStatusText(notExpected) + ')';
    if (gaps > 0)
        text +=
            " \u00b7 " + std::to_string(gaps) + ' ' + std::string(cellStatusId(CellStatus::Gap));
    return text;
}

} // namespace rg

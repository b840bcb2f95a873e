#pragma once

// Which line of a changed run became which: a line and its replacement are a pair when they
// have the same words but for fewer than half of them, and at most two (a value changed in
// place: a pin, a hash, an arch).
// Used to tell a value edit from a line removed, in fix reviews and in the regeneration merge,
// with the line tools both need.

#include "nix/node.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace rg {

class LinePairing
{
public:
    // For each of `before`, the index of its pair in `after`, or -1; pairs keep their order.
    static std::vector<int> pair(const std::vector<std::string>& before,
                                 const std::vector<std::string>& after);
    static bool sameShape(const std::string& before, const std::string& after);
    // The lines of `text` without their newlines ("a\nb\n" → {"a", "b"}).
    static std::vector<std::string> split(const std::string& text);
    // For each line of `lines` (split from one text), whether it overlaps a non-empty range of
    // `named` (byte ranges of that text).
    static std::vector<bool> named(const std::vector<std::string>& lines,
                                   const std::vector<nix::SourceRange>& named);
    // Without its leading and trailing blanks and newlines.
    static std::string trimmed(std::string_view line);

    // `count` items of `all` from `first`, cut at its end: one run of a line hunk.
    template <typename T>
    static std::vector<T> slice(const std::vector<T>& all, int first, int count)
    {
        const auto size = static_cast<ptrdiff_t>(all.size());
        return std::vector<T>(all.begin() + std::min<ptrdiff_t>(first, size),
                              all.begin() + std::min<ptrdiff_t>(first + count, size));
    }
};

} // namespace rg

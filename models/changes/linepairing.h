#pragma once

// Which line of a changed run became which: a line and its replacement are a pair when they
// have the same words but for fewer than half of them, and at most two (a value changed in
// place: a pin, a hash, an arch).
// Used to tell a value edit from a line removed, in fix reviews and in the regeneration merge.

#include <string>
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
};

} // namespace rg

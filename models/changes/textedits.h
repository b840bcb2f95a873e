#pragma once

// Byte-range replacements on one text, applied together so every range refers to the
// original bytes. Edits that overlap an earlier one are refused rather than merged, so a
// generator never writes half of two edits into the same bytes.

#include "nix/node.h"

#include <string>
#include <string_view>
#include <vector>

namespace rg {

class TextEdits
{
public:
    // False (and nothing recorded) when `range` overlaps an edit already recorded, unless it
    // is the same range with the same text.
    bool replace(nix::SourceRange range, std::string text);
    bool empty() const { return m_edits.empty(); }
    bool touches(nix::SourceRange range) const;
    std::string applyTo(std::string_view original) const;

private:
    struct Edit
    {
        nix::SourceRange range;
        std::string text;
    };
    std::vector<Edit> m_edits;
};

} // namespace rg

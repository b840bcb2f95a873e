#pragma once

// Maps byte offsets of one text to 1-based line:column, the form every finding is shown in.

#include <cstdint>
#include <string_view>
#include <vector>

namespace rg::nix {

struct TextPosition
{
    uint32_t line = 1;
    uint32_t column = 1;
};

class LineIndex
{
public:
    explicit LineIndex(std::string_view text);

    TextPosition position(uint32_t offset) const;
    uint32_t lineStart(uint32_t line) const; // offset of the first byte of a 1-based line
    uint32_t lineCount() const { return static_cast<uint32_t>(m_lineStarts.size()); }

private:
    std::vector<uint32_t> m_lineStarts;
};

} // namespace rg::nix

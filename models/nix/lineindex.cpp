#include "nix/lineindex.h"

#include <algorithm>

namespace rg::nix {

LineIndex::LineIndex(std::string_view text)
{
    m_lineStarts.push_back(0);
    for (uint32_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n')
            m_lineStarts.push_back(i + 1);
}

TextPosition LineIndex::position(uint32_t offset) const
{
    auto it = std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), offset);
    const auto line = static_cast<uint32_t>(it - m_lineStarts.begin());
    return {line, offset - m_lineStarts[line - 1] + 1};
}

uint32_t LineIndex::lineStart(uint32_t line) const
{
    if (line == 0)
        return 0;
    return m_lineStarts[std::min<size_t>(line, m_lineStarts.size()) - 1];
}

} // namespace rg::nix

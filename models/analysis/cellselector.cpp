#include "analysis/cellselector.h"

namespace rg {

bool CellSelector::namesRecipe(const std::string& path, const std::string& fileName) const
{
    return !m_text.empty() && (m_text == path || m_text == fileName);
}

bool CellSelector::namesCellKey(std::string_view key) const
{
    if (m_text.empty())
        return false;
    if (key == m_text)
        return true;
    const auto colon = key.find(':');
    return colon != std::string_view::npos && key.substr(colon + 1) == m_text;
}

bool CellSelector::namesRecipeOf(const Cell& entry) const
{
    return entry.recipe && namesRecipe(entry.recipe->path, entry.recipe->fileName);
}

bool CellSelector::matches(const Cell& entry) const
{
    // The variant's own spelling too: a pytorch210-… file's name, suffixes included.
    return namesRecipeOf(entry) || namesCellKey(entry.id.toKey()) ||
           entry.variant.toString() == m_text;
}

} // namespace rg

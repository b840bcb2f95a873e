#include "analysis/cellselector.h"

#include <algorithm>
#include <cctype>

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

std::vector<std::string>
CellSelector::namesEndingInIt(const std::vector<Cell>& cells,
                              const std::function<bool(const Cell&)>& eligible) const
{
    std::string words = m_text;
    std::replace(words.begin(), words.end(), ' ', '-');
    std::transform(words.begin(), words.end(), words.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::vector<std::string> names;
    if (words.empty() || words.find(':') != std::string::npos)
        return names;
    for (const Cell& entry : cells) {
        const std::string name = entry.variant.toString();
        if ((!eligible || eligible(entry)) && name.ends_with("-" + words))
            names.push_back(name);
    }
    return names;
}

std::string CellSelector::didYouMean(const std::vector<std::string>& names)
{
    constexpr size_t shown = 3;
    std::string text;
    for (size_t i = 0; i < names.size() && i < shown; ++i)
        text += (i ? ", " : "; did you mean ") + names[i];
    if (names.size() > shown)
        text += " (or one of " + std::to_string(names.size() - shown) + " more)";
    return text.empty() ? text : text + "?";
}

} // namespace rg

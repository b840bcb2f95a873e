#pragma once

// One word a user writes to name cells or recipes — on the command line, in a pin bump's
// scope, in a change request — read the same way everywhere. It names:
//   a recipe, by its path relative to the repository root or by its file name;
//   a cell, by its key with or without the package ("pytorch:python313-cpu-avx2",
//   "python313-cpu-avx2") or by a recipe's variant name ("pytorch-python313-cpu-avx2").

#include "analysis/analysis.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rg {

class CellSelector
{
public:
    explicit CellSelector(std::string text) : m_text(std::move(text)) {}

    const std::string& text() const { return m_text; }

    bool namesRecipe(const std::string& path, const std::string& fileName) const;
    // `key` as CellId::toKey() writes it.
    bool namesCellKey(std::string_view key) const;
    // The entry's recipe or its cell.
    bool matches(const Cell& entry) const;
    bool namesRecipeOf(const Cell& entry) const;

    // The variant names of the `cells` (those `eligible` takes, all without it) that end in this
    // text's words ("sm90-avx2", "SM90 avx2"): what a user who wrote a cell's last words most
    // likely meant. None for a cell key ("pytorch:…").
    std::vector<std::string>
    namesEndingInIt(const std::vector<Cell>& cells,
                    const std::function<bool(const Cell&)>& eligible = {}) const;
    // "; did you mean A, B, C (or one of 2 more)?" for `names`, "" for none.
    static std::string didYouMean(const std::vector<std::string>& names);

private:
    std::string m_text;
};

} // namespace rg

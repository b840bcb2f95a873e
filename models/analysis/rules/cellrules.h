#pragma once

// Rules about cells rather than recipes: which recipe stands for a cell, which duplicate or
// alias it, and which cells no recipe builds. They run as the cell assignment places each
// recipe and each empty cell.

namespace rg {

struct CellCheck;

class CellRules
{
public:
    static void notAVariantName(CellCheck& c);
    static void publishedAlias(CellCheck& c);
    static void duplicate(CellCheck& c);
    static void unexpected(CellCheck& c);
    static void missing(CellCheck& c);
    static void gap(CellCheck& c);
};

} // namespace rg

#pragma once

// Heights counted in rows of a list or table, for sizing what holds it (a dock) to show them.

class QAbstractItemView;

namespace rg {

class ViewRows
{
public:
    // One row as `view` draws it, or would while it is empty.
    static int rowHeight(const QAbstractItemView* view);
};

} // namespace rg

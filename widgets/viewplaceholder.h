#pragma once

// Text across an item view's empty viewport: why it is empty, or how to fill it. A table of
// headers alone tells a new user nothing.

class QAbstractItemView;
class QString;

namespace rg {

class ViewPlaceholder
{
public:
    // Draws `text` over `view`'s viewport when its model has no rows; call it from the view's
    // paintEvent, after the view's own painting.
    static void paint(QAbstractItemView* view, const QString& text);
};

} // namespace rg

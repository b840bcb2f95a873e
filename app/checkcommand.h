#pragma once

#include <QStringList>

namespace rg {

// `recipegrid check` (placeholder until its issue lands).
class CheckCommand
{
public:
    static int run(const QStringList& arguments);
};

} // namespace rg

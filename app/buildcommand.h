#pragma once

#include <QStringList>

namespace rg {

// `recipegrid build` (placeholder until its issue lands).
class BuildCommand
{
public:
    static int run(const QStringList& arguments);
};

} // namespace rg

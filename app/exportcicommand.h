#pragma once

#include <QStringList>

namespace rg {

// `recipegrid exportci` (placeholder until its issue lands).
class ExportCiCommand
{
public:
    static int run(const QStringList& arguments);
};

} // namespace rg

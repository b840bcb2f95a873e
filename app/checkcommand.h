#pragma once

#include <QStringList>

namespace rg {

// `recipegrid check [--spec FILE] [--rev REV] [--format text|json|sarif] REPO`: analyses a
// recipe repository (its work tree, or any git revision without checking it out) and prints
// the findings. Exit status: 0 clean, 1 findings, 2 usage or I/O error.
class CheckCommand
{
public:
    static int run(const QStringList& arguments);
};

} // namespace rg

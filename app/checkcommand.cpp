#include "checkcommand.h"

#include <iostream>

namespace rg {

int CheckCommand::run(const QStringList&)
{
    std::cerr << "recipegrid: this command is not available yet\n";
    return 2;
}

} // namespace rg

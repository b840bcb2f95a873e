#pragma once

#include <QStringList>

namespace rg {

// `recipegrid bump-pin REPO --from OLD --to NEW …`: plans a nixpkgs pin bump of a work tree
// (PinBumpPlanner), prints it, and unless --dry-run applies it all or nothing, optionally
// committing it. Exit status: 0 done, 1 prefetching, applying or committing failed, 2 usage,
// pin or repository error (a malformed or unknown pin, a from-pin no recipe uses).
//
// `recipegrid pins REPO [--rev REV] [--compare OTHER[@REV]…] [--branches]`: the pins of a
// branch grouped by package and accelerator, and with --compare / --branches the pins of each
// package × Python × accelerator side by side. Exit status: 0, 1 when a compared row
// mismatches, 2 usage or repository error (a compared repository that cannot be read is
// reported in its column and does not stop the others).
class PinCommand
{
public:
    static int bumpPin(const QStringList& arguments);
    static int pins(const QStringList& arguments);
};

} // namespace rg

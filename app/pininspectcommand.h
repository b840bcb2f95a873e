#pragma once

#include <QStringList>

namespace rg {

// `recipegrid pins REPO --inspect [--revision REV]… [--nixpkgs REV=PATH]… [--format text|json]`:
// what every pin of the branch, and every revision named, contains, asked of Nix: the nixpkgs
// version, the Python and torch versions of the Python sets the branch uses, the default CUDA,
// and the CUDA, cuDNN and NCCL versions of its CUDA sets. With two or more revisions, values
// that differ from the first are marked. Exit status: 0 every revision read, 2 otherwise.
class PinInspectCommand
{
public:
    static bool wanted(const QStringList& arguments); // `pins` with --inspect
    static int run(const QStringList& arguments);
};

} // namespace rg

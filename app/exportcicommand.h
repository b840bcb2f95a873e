#pragma once

#include <QStringList>

namespace rg {

// `recipegrid export-ci REPO [VARIANT…] [--output FILE]`: writes a GitHub Actions workflow
// whose job matrix is the chosen variants (default: every recipe in the recipe directory).
// Each job builds with flox (falling back to nix where flox cannot be installed), verifies the
// result's Python and CUDA versions, and optionally publishes (--publish-org).
class ExportCiCommand
{
public:
    static int run(const QStringList& arguments);
};

} // namespace rg

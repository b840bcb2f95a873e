#pragma once

// A Nix that never answers (test::hangingNix): as an installation, and first on PATH while
// this lives, since the sessions look Nix up there.

#include "../processes.h"
#include "eval/nixinstallation.h"

#include <QTemporaryDir>

namespace rg::test {

struct HangingNix
{
    HangingNix()
    {
        nix.instantiate = hangingNix(dir);
        nix.version = "2.26.3";
        qputenv("PATH", dir.path().toUtf8() + ':' + path);
    }
    ~HangingNix() { qputenv("PATH", path); }
    HangingNix(const HangingNix&) = delete;
    HangingNix& operator=(const HangingNix&) = delete;

    // Its processes and theirs: each names the folder.
    int processes() const { return processesMentioning(dir.path().toUtf8()); }

    QTemporaryDir dir;
    const QByteArray path = qgetenv("PATH");
    NixInstallation nix;
};

} // namespace rg::test

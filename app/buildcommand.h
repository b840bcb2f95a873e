#pragma once

#include <QStringList>

namespace rg {

// `recipegrid build REPO VARIANT… [--jobs N] [--backend flox|nix|custom] [--command TEMPLATE]
// [--nix-option k=v]…`: builds variants through BuildSession (logs and history land where the
// window finds them), streams their logs to stdout (each line prefixed "[variant] " when
// several run), prints a summary, and exits 0 only when every build succeeded and no
// verification failed. SIGINT cancels the running builds (their whole process groups), then
// exits 130.
class BuildCommand
{
public:
    static int run(const QStringList& arguments);
};

} // namespace rg

#pragma once

// The Nix that evaluates recipes: `nix-instantiate` found on PATH, with its version. Nix 2.8
// is the oldest that evaluates the way the batch wrapper needs (builtins.fromJSON of the
// request, scopedImport, JSON output of --strict evaluation). Finding it runs a process:
// call it off the GUI thread.

#include <QString>
#include <string>

namespace rg {

struct NixInstallation
{
    QString instantiate; // absolute path of nix-instantiate; "" when not found
    std::string version; // "2.8.0"
    std::string error;   // why it cannot be used; "" when it can

    bool usable() const { return error.empty(); }

    static NixInstallation find();
    // Nix creates a store's database and links on first use, and two processes doing that at
    // once fail ("database is busy", "creating symlink … File exists"): before starting
    // several, one opens the store ("" for Nix's default). What it says, the later ones say too.
    void openStore(const std::string& store) const;
    // Whether `version` ("2.26.3") is at least major.minor.
    static bool atLeast(const std::string& version, int major, int minor);
};

} // namespace rg

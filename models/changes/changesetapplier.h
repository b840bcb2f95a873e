#pragma once

// Writes a change set's selected operations into a work tree, all or nothing. Before writing
// anything it refuses when any target changed on disk since planning (a Modify/Delete whose
// current bytes no longer hash to plannedHash, a Create whose path now exists). Each file is
// written through QSaveFile; when one write fails, every file already written is restored
// byte for byte and every file created is removed before the error is returned.

#include "changes/changeset.h"

#include <string>

namespace rg {

struct ApplyResult
{
    bool applied = false;
    std::string file;  // the file the error names (relative path), "" on success
    std::string error; // "… changed on disk since the change set was planned", OS error text
};

class ChangeSetApplier
{
public:
    explicit ChangeSetApplier(std::string root);

    ApplyResult apply(const ChangeSet& changes) const;

private:
    std::string m_root;
};

} // namespace rg

#pragma once

// Writes a change set's selected operations into a work tree, all or nothing. Before writing
// anything it refuses when any target changed on disk since planning (a Modify/Delete whose
// current bytes no longer hash to plannedHash, a Create whose path now exists), and any path that
// is absolute, not normalised, inside .git or leads out of the root (also through a symbolic
// link). Then it deletes, creates the missing parent directories and writes each file through
// QSaveFile (concurrently: every commit waits for its own fsync), which keeps a rewritten file's
// permissions. A directory a deletion leaves empty is removed, as `git rm` does. When any step
// fails, every step already taken is taken back (files rewritten or restored byte for byte with
// their permissions, created files and directories removed) before the error is returned.
// Undo is apply(changes.inverse()); a deleted file's mode is not part of a FileOperation, so an
// undo recreates it with the default mode.

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

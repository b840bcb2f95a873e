#pragma once

// Pins side by side: one column per git revision (every local branch of this repository,
// and the repositories the user adds, each at a branch or tag), one row per package ×
// Python version × accelerator, each cell the pins that column's recipes of the row write.
// Revisions are read through libgit2 (openGitRevision), nothing is checked out. A column that
// cannot be read (not a git repository, unknown revision) carries its error; the others are
// unaffected. Value type; compute() is safe on a worker thread.

#include "pins/pinbumprequest.h"

#include <optional>
#include <string>
#include <vector>

namespace rg {

struct AlignmentSource
{
    std::string repository; // a path inside a clone, bare or not
    std::string revision;   // branch, tag, commit; "" → the work tree as it is on disk
                            // (uncommitted edits included), HEAD for a bare repository
    std::string label;      // column title; "" → "name @ revision"

    // "PATH@REV" → {PATH, REV}; a path without '@' (or whose '@' is part of a directory
    // name that exists) keeps revision "".
    static AlignmentSource parse(const std::string& argument);
};

struct AlignmentColumn
{
    AlignmentSource source;
    std::string label;
    std::string commitId; // 40 hex; "" when unreadable or outside git
    std::string error;    // "…: not a git repository", "unknown revision 'x'"; "" when read
    int recipes = 0;
    bool checkedOut = false; // the branch the repository's work tree has checked out
};

struct AlignmentRowKey
{
    std::string package;       // "pytorch"
    std::string python;        // dotted "3.13"
    std::string accelerator;   // "CUDA 12.9", "CPU-only", "Darwin"
    std::string acceleratorId; // "cuda12.9", "cpu", "darwin"
    friend auto operator<=>(const AlignmentRowKey&, const AlignmentRowKey&) = default;
};

struct AlignmentCell
{
    // Pin → recipes writing it, most used first; empty when the column has no such recipe.
    std::vector<std::pair<std::string, int>> pins;
    std::string pin() const { return pins.empty() ? std::string() : pins.front().first; }
    int recipes() const;
};

struct AlignmentRow
{
    AlignmentRowKey key;
    std::vector<AlignmentCell> cells; // one per column
    // Columns that have recipes for the row disagree on the pin, or one writes several.
    bool mismatch = false;
};

class PinAlignment
{
public:
    // The local branches of the repository at `repositoryPath` as sources, sorted by name;
    // empty and `error` when it is not a git repository.
    static std::vector<AlignmentSource> localBranches(const std::string& repositoryPath,
                                                      std::string* error);
    static PinAlignment compute(const std::vector<AlignmentSource>& sources);

    const std::vector<AlignmentColumn>& columns() const { return m_columns; }
    const std::vector<AlignmentRow>& rows() const { return m_rows; } // sorted by key
    // Every full pin seen in any readable column, for resolving abbreviated pins.
    std::vector<std::string> knownPins() const;

    // The bump that makes column `target`'s recipes of `row` use column `reference`'s pin:
    // from = the target cell's pin, to = the reference cell's. `wholeBranch` widens the scope
    // from the row to every recipe of the target on that pin: a whole branch's bump in one click.
    // nullopt and `error` when a cell is empty, already aligned, or the reference pin is not full.
    std::optional<PinBumpRequest> alignRequest(size_t row, size_t target, size_t reference,
                                               bool wholeBranch, std::string* error) const;

private:
    std::vector<AlignmentColumn> m_columns;
    std::vector<AlignmentRow> m_rows;
};

} // namespace rg

#pragma once

// Plans the change set for what a user asks of cells: create a missing recipe, fix a broken
// one, delete a redundant/unexpected/impossible one, or complete a whole package (every
// missing, broken and redundant cell). Every generated or fixed recipe is re-analysed with
// the rest of the repository before it is offered: a file that does not parse or still has
// an error against the spec is left out and reported in ChangeSet::skipped instead.
// Pure function of its inputs; safe on a worker thread.

#include "analysis/analysis.h"
#include "changes/changeset.h"
#include "vcs/repositorysource.h"

#include <memory>
#include <string>
#include <vector>

namespace rg {

enum class ChangeAction {
    Create,   // generate the recipes of missing (or gap) cells
    Fix,      // minimal edit, or regenerate keeping the variant's own values
    Delete,   // remove the recipe files of the cells
    Complete, // per cell what it needs: create, fix, delete
};

struct ChangeRequest
{
    ChangeAction action = ChangeAction::Complete;
    // What CellSelector reads: cell keys (CellId::toKey), variant names, recipe paths. Empty with
    // Complete: every cell of `package`.
    std::vector<std::string> cells;
    std::string package; // Complete without cells: "" → the spec's package
    // README.md's variant-matrix section, as its own operation: kept up to date where the
    // README has the markers; added to one without them only when asked for, since a README
    // may document its matrix by hand.
    bool updateReadme = true;
    bool addReadmeSection = false;
};

class ChangePlanner
{
public:
    ChangePlanner(std::shared_ptr<const RepositorySource> source,
                  std::shared_ptr<const Analysis> analysis);

    ChangeSet plan(const ChangeRequest& request) const;

private:
    std::shared_ptr<const RepositorySource> m_source;
    std::shared_ptr<const Analysis> m_analysis;
};

} // namespace rg

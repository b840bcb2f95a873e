#pragma once

// The spec an analysis judged by, once the cells are placed: what the rules about the spec
// read, and where they report.

#include "analysis/analysis.h"

#include <cstddef>

namespace rg {

struct SpecCheck
{
    Analysis& analysis;  // its spec, specPath, specError, cells; repositoryFindings is added to
    size_t inferredFrom; // the recipes an inferred spec was inferred from
};

} // namespace rg

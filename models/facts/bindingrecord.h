#pragma once

#include "nix/node.h"

#include <string>

namespace rg {

// A binding as written: `path = value;`, an inherited name, or a formal's default. `source`
// is what the evaluator evaluates for its value: the value expression, or the inherited name.
struct BindingRecord
{
    std::string path; // full attribute path from the nearest set that is an argument
    std::string last; // its last segment
    const nix::Node* value = nullptr;  // null for `inherit`
    const nix::Node* key = nullptr;    // the AttrPath, or the inherited AttrName
    const nix::Node* source = nullptr; // the value, or the inherited name
};

} // namespace rg

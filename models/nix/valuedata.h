#pragma once

// Internal to rg_nix: what a Value handle points at. ValueData is immutable once made and
// lives in the arena of the Evaluator that made it; Thunk and Env belong to evaluatorimpl.h.

#include "nix/value.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rg::nix::detail {

struct Thunk;
struct Env;

// A name bound in an environment or an attribute of a set, with where it was bound.
struct Slot
{
    std::string_view name;
    Thunk* thunk = nullptr;
    BindingStep step; // step.name empty when not written in a file
};

// One binding of a value's chain. The list is shared between values: the head is the
// outermost binding, `inner` leads towards the literal.
struct ChainLink
{
    BindingStep step;
    const ChainLink* inner = nullptr;
    uint32_t length = 1;
};

enum class PartsKind : uint8_t { None, String, List };

struct ValueData
{
    Value::Kind kind = Value::Kind::Unknown;
    bool boolean = false;
    int64_t integer = 0;
    double number = 0;
    // String, Path: the text. Function: the library function's symbolic name. Unknown: the
    // symbolic path (when hasPath).
    std::string text;
    std::vector<StringPiece> pieces; // String, Path
    uint32_t file = 0;               // Path: the file it is relative to
    Origin origin;

    std::vector<Thunk*> elements; // List
    std::vector<Slot> attributes; // AttrSet, sorted by name
    std::optional<Value> rest;    // AttrSet: the unknown left side of `//`

    // Function: a lambda of a file, or a library function with the arguments it has so far.
    const Node* lambda = nullptr;
    const Env* env = nullptr;
    int native = -1;
    std::vector<Thunk*> arguments;

    // Unknown
    Value::Cause cause = Value::Cause::Unsupported;
    bool hasPath = false;
    std::string reason;
    std::string root; // what a Dependent unknown comes down to (a path or the first reason)
    std::optional<Value> fallback;
    PartsKind partsKind = PartsKind::None;
    std::vector<Value> parts;
};

} // namespace rg::nix::detail

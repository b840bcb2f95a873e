#include "eval/outputstate.h"

namespace rg {

namespace {

struct Spelling
{
    const char* id;
    const char* label;
};

Spelling spellingOf(OutputState::Where where)
{
    switch (where) {
    case OutputState::Where::Missing:
        return {"missing", "needs build"};
    case OutputState::Where::Built:
        return {"built", "built"};
    case OutputState::Where::Cached:
        return {"cached", "in cache"};
    case OutputState::Where::Unknown:
        break;
    }
    return {"unknown", "unknown"};
}

} // namespace

std::string OutputState::label() const
{
    const std::string label = spellingOf(where).label;
    return where == Where::Cached ? label + " " + cache : label;
}

std::string OutputState::id() const
{
    return spellingOf(where).id;
}

} // namespace rg

#pragma once

// Build state shown on top of a cell's status, as the grid's model and the details show it
// (BuildSession::cellState makes it). Results belong to the recipe's content: `Outdated` is a
// build of an older version of the recipe (it or a file it imports changed since), whatever
// that build's result was; the summary says which and when.

#include <QString>

namespace rg {

struct CellBuildState
{
    enum class Result { None, Succeeded, Failed, Cancelled, Outdated };
    bool queued = false;
    bool running = false;
    double progress = -1; // 0..1 while running, -1 when unknown
    Result last = Result::None;
    bool verificationFailed = false;
    QString summary; // one line for tooltips: "succeeded in 1h 02m, verified"
    // The remote builder the build runs or ran on ("user@host"); "" for this machine or none.
    QString builder;
};

} // namespace rg

#pragma once

// How messages name the signal that ended a process: "SIGSEGV (Segmentation fault)", the
// abbreviation (locale-free, what a user searches for) and the C library's description.

#include <QString>

namespace rg::ProcessSignal {

QString name(int signal);

} // namespace rg::ProcessSignal

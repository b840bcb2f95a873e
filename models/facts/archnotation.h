#pragma once

// What a GPU architecture entry means at the sink it reaches, and how to write one there.
// Notations are the sinks' business, not the binding's: "8.6" is right in gpuTargets and
// wrong in CMAKE_CUDA_ARCHITECTURES, "86" the other way round, and "sm_86" is rejected by
// both (PyTorch's select_compute_arch.cmake stops with "Unknown CUDA Architecture Name").

#include "facts/recipefacts.h"
#include "matrix/catalog.h"

#include <string>
#include <string_view>
#include <vector>

namespace rg {

struct ArchReading
{
    bool accepted = false;            // the sink takes this notation
    bool denotesAny = false;          // "all", "native", "Auto": no single arch to compare
    std::vector<std::string> numbers; // capabilities it denotes, as integers: "86", "120"
};

class ArchNotation
{
public:
    static ArchReading read(ArchSink sink, std::string_view entry);
    // The entry to write for `number` ("121") at `sink`: "12.1" or "121".
    static std::string write(ArchSink sink, std::string_view number);
    // What follows the capability in an entry the sink accepts: "+PTX" of "8.6+PTX", "a" of
    // "9.0a", "-real" of "86-real"; "" for a plain one. A fix writes the same form.
    static std::string suffixOf(ArchSink sink, std::string_view entry);
    // What the sink accepts, for messages: "dotted capabilities such as \"8.6\"".
    static std::string_view accepts(ArchSink sink);
    // "sm121" → "121"; "" when the id is not sm + digits.
    static std::string numberOf(std::string_view gpuArchId);
    // "121" → "12.1", "86" → "8.6".
    static std::string dotted(std::string_view number);
};

} // namespace rg

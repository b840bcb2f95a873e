#pragma once

// A string the facts read, with the runs of it that are bytes of the file being read: a fact
// taken from it can point at exactly the bytes an edit must rewrite, wherever the string was
// assembled from interpolations, bindings or modules.

#include "nix/value.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rg {

struct SourcedText
{
    std::string text;
    nix::SourceRange range; // the literal it was found in (or the expression computing it)
    std::vector<nix::StringPiece> pieces;
    std::string writtenIn; // "lib/cpu-isa.nix:3" when written in one of the repository's modules

    // The source range of text[offset, offset+length) when it lies in one piece.
    std::optional<nix::SourceRange> sourceOf(size_t offset, size_t length) const;

    // Runs adjacent both in the text and in the source are one run.
    void addPiece(const nix::StringPiece& piece);

    // Appends more[from, from + length) with the pieces that cover it.
    void append(std::string_view more, std::span<const nix::StringPiece> morePieces,
                size_t from = 0, size_t length = std::string_view::npos);
};

// The string items of a list; nullopt items are elements whose value is not known.
using TextItems = std::vector<std::optional<SourcedText>>;

} // namespace rg

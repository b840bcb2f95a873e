#include "facts/sourcedtext.h"

#include <algorithm>

namespace rg {

std::optional<nix::SourceRange> SourcedText::sourceOf(size_t offset, size_t length) const
{
    for (const nix::StringPiece& piece : pieces)
        if (offset >= piece.offset && offset + length <= piece.offset + piece.length) {
            const auto begin = static_cast<uint32_t>(piece.source + (offset - piece.offset));
            return nix::SourceRange{begin, static_cast<uint32_t>(begin + length)};
        }
    return std::nullopt;
}

void SourcedText::addPiece(const nix::StringPiece& piece)
{
    if (!pieces.empty()) {
        nix::StringPiece& last = pieces.back();
        if (last.file == piece.file && last.offset + last.length == piece.offset &&
            last.source + last.length == piece.source) {
            last.length += piece.length;
            return;
        }
    }
    pieces.push_back(piece);
}

void SourcedText::append(std::string_view more, std::span<const nix::StringPiece> morePieces,
                         size_t from, size_t length)
{
    from = std::min(from, more.size());
    length = std::min(length, more.size() - from);
    const size_t base = text.size();
    text.append(more.substr(from, length));
    for (const nix::StringPiece& piece : morePieces) {
        const size_t begin = std::max(piece.offset, from);
        const size_t end = std::min(piece.offset + piece.length, from + length);
        if (begin < end)
            addPiece({base + (begin - from), end - begin, piece.file,
                      static_cast<uint32_t>(piece.source + (begin - piece.offset))});
    }
}

} // namespace rg

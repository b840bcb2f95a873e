#pragma once

// Reads the fetcher a pin's revision is written in: the call's hash, URL, owner and repo, which
// a bump rewrites along with the revision. The pin reader records them when the recipe is
// analysed; the bump planner reads them again when the bytes it rewrites are no longer those.

#include "facts/recipefacts.h"
#include "nix/syntaxtree.h"

#include <array>
#include <optional>
#include <string_view>

namespace rg {

class PinFetcherReader
{
public:
    // The attributes a fetcher takes its hash in, in the order one is chosen when a set writes
    // several: every reader of a pin's hash counts these and no others.
    static constexpr std::array<std::string_view, 3> hashAttributes{"sha256", "hash", "narHash"};
    static bool isHashAttribute(std::string_view name);

    // The fetcher whose attribute set holds the revision at `revision`, as `tree` writes it;
    // nullopt when the innermost set applied to a function around it is no fetcher's.
    static std::optional<FetcherFact> around(const nix::SyntaxTree& tree,
                                             nix::SourceRange revision);

    // A pin kept in JSON (`{ "rev": "…", "sha256": "…" }`, niv's sources.json): the object the
    // revision is a member of, fetched as a tarball, as fetchTarball and niv do.
    static std::optional<FetcherFact> inJson(std::string_view bytes, nix::SourceRange revision);

    // Whether `bytes` still write the call `fetcher` was read from where it was read: then all
    // it says holds for them.
    static bool stillIn(const FetcherFact& fetcher, std::string_view bytes);
};

} // namespace rg

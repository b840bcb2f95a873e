#pragma once

// Plans a nixpkgs pin bump as a change set, reviewed, applied, undone and committed like any
// other (ChangeSetApplier, ChangeSet::inverse, GitCommitter). Per recipe in scope only the
// bytes of each revision string equal to `from` change (PinFact::range), plus:
//   - the fetcher's hash (`sha256 = "…"` / `hash = "…"` in the same attribute set), which
//     belongs to the old revision and would make Nix refuse the new one (or worse, with a
//     cached store path, silently build the old tree). It becomes the hash given for the new
//     URL or revision in `newHashes` (converted to the old value's notation: Nix base-32,
//     hex or SRI), else the all-zero hash of the old value's notation — nixpkgs'
//     lib.fakeSha256 / lib.fakeHash, which no download matches, so the first build fails
//     naming the right hash — and the operation's reason says the recipe needs a new hash.
//     An old hash is never kept. A hash that cannot be located in the fetcher's own attribute
//     set (bound elsewhere, computed) is not guessed at: the recipe is skipped, with why.
//   - with renamePythonSet, the `python3Packages` the torch is selected from becomes the
//     file's explicit set (`python313Packages` for a python313 name) — only when that is its
//     only mention: an overlay that overrides `python3Packages` would otherwise stop
//     reaching the torch the recipe builds (then the file keeps the name, and says so).
//   - with readme, README.md's table rows quoting the pin (the version matrix), and with docs
//     every other Markdown file quoting it: each file its own deselectable operation. A quote
//     is a token of hex digits that is a prefix (7+ characters) of `from`, not next to other
//     letters or digits — the full 40-hex form, `6a030d5`, inside links and emphasis — and is
//     replaced by the same-length prefix of `to`. README lines outside tables keep their pin.
// Pure function of its inputs; safe on a worker thread.

#include "analysis/analysis.h"
#include "changes/changeset.h"
#include "pins/pinbumprequest.h"
#include "vcs/repositorysource.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rg {

// What must be downloaded to know the new hashes: one per distinct URL.
struct PrefetchTarget
{
    std::string url;                  // after the bump
    bool unpack = true;               // fetchTarball / fetchFromGitHub hash the unpacked tree
    std::string key;                  // the newHashes key to store the result under (the url)
    std::vector<std::string> recipes; // paths that need it
};

struct PinBumpPlan
{
    ChangeSet changes; // empty when `error` is set
    std::string error; // "malformed pin …", "no recipe uses pin …"; "" when planned
    int recipes = 0;   // recipes bumped (those reading a bumped module included)
    std::vector<std::string> needsHash; // recipe paths given the fake hash
};

class PinBumpPlanner
{
public:
    PinBumpPlanner(std::shared_ptr<const RepositorySource> source,
                   std::shared_ptr<const Analysis> analysis);

    PinBumpPlan plan(const PinBumpRequest& request) const;
    // The URLs whose hashes the bump needs (recipes in scope whose fetcher pins a hash).
    std::vector<PrefetchTarget> prefetchTargets(const PinBumpRequest& request) const;

    // "Bump nixpkgs 6a030d5 → 0182a36", a blank line, both full revisions, then the files.
    static std::string commitMessage(const ChangeSet& changes, const PinBumpRequest& request);

    // The contents of the hash string (`sha256 = "…"` / `hash = "…"`) in the fetcher whose
    // revision is at `pin.range` in `bytes`, the file `pin` is written in (as the analysis read
    // it, or since edited); nullopt when the fetcher pins no hash.
    static std::optional<nix::SourceRange> hashOf(std::string_view bytes, const PinFact& pin);

    // Whether `hash` is a SHA-256 in a notation Nix reads: Nix base-32 (52), hex (64), SRI.
    static bool isSha256(const std::string& hash);

    // A pin as the user typed it: 40 hex digits are taken as they are (lower-cased); 7 to 39
    // hex digits must be the prefix of exactly one of `known` (this repository's pins, its
    // branches', compared repositories'). nullopt and `error` ("malformed pin 'xyz': …",
    // "unknown pin '1234567': no known pin starts with it", "ambiguous pin …: a, b").
    static std::optional<std::string>
    resolvePin(const std::string& typed, const std::vector<std::string>& known, std::string* error);

private:
    std::shared_ptr<const RepositorySource> m_source;
    std::shared_ptr<const Analysis> m_analysis;
};

} // namespace rg

#pragma once

// The hash notations Nix accepts where a fetcher or a fixed-output derivation takes a hash,
// as Nix's own parser (libutil/hash.cc) reads them, so a recipe whose hash Nix would refuse
// before fetching anything ("invalid base-32 hash") is found without running Nix.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg::nix {

class NixHash
{
public:
    // "0123456789abcdfghijklmnpqrsvwxyz": no e, o, u, t.
    static constexpr std::string_view base32Alphabet = "0123456789abcdfghijklmnpqrsvwxyz";

    // Whether a binding of this name holds a hash: sha256, sha1, sha512, md5 (typed by the
    // name), hash, narHash, outputHash (typed by the value's prefix).
    static bool isHashAttribute(std::string_view attribute);

    // Why Nix refuses `text` as the value of `attribute`; "" when Nix accepts it, or when
    // only the context could tell (an untyped hash without prefix, the empty "fake" hash).
    static std::string problem(std::string_view attribute, std::string_view text);

    // The digest of `bytes` bytes that a Nix base-32 text encodes (its bits are written from
    // the last byte down); nullopt when Nix would refuse it: another length, a letter outside
    // the alphabet, or a first digit whose high bits do not fit (a SHA-256 in 52 digits holds
    // 260 bits, so its first digit is 0 or 1).
    static std::optional<std::vector<unsigned char>> fromBase32(std::string_view text,
                                                                size_t bytes);
};

} // namespace rg::nix

#include "nix/nixhash.h"

#include <algorithm>
#include <array>

namespace rg::nix {

namespace {

struct HashType
{
    std::string_view name;
    size_t bytes;
};

constexpr std::array<HashType, 4> hashTypes = {
    {{"md5", 16}, {"sha1", 20}, {"sha256", 32}, {"sha512", 64}}};

const HashType* typeNamed(std::string_view name)
{
    const auto found = std::ranges::find(hashTypes, name, &HashType::name);
    return found == hashTypes.end() ? nullptr : &*found;
}

size_t base16Length(size_t bytes)
{
    return bytes * 2;
}

size_t base32Length(size_t bytes)
{
    return (bytes * 8 - 1) / 5 + 1;
}

size_t base64Length(size_t bytes)
{
    return (bytes + 2) / 3 * 4;
}

bool isHexDigit(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool isBase64Digit(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/';
}

// How many bytes Nix's decoder makes of `text`: it stops at the first '=' and refuses any
// other character outside the alphabet (nullopt).
std::optional<size_t> base64Bytes(std::string_view text)
{
    const std::string_view digits = text.substr(0, text.find('='));
    if (!std::ranges::all_of(digits, isBase64Digit))
        return std::nullopt;
    return digits.size() * 6 / 8;
}

std::string singleQuoted(std::string_view text)
{
    return "'" + std::string(text) + "'";
}

// Why `digits`, read as a hash of `type` in the notation its length says, is refused.
std::string digestProblem(const HashType& type, std::string_view digits, bool sri)
{
    const std::string name(type.name);
    if (!sri && digits.size() == base16Length(type.bytes))
        return std::ranges::all_of(digits, isHexDigit)
                   ? std::string()
                   : "invalid base-16 " + name + " (a letter beyond f)";
    if (!sri && digits.size() == base32Length(type.bytes)) {
        if (!std::ranges::all_of(digits, [](char c) {
                return NixHash::base32Alphabet.find(c) != std::string_view::npos;
            }))
            return "invalid base-32 " + name + " (Nix's base-32 has no e, o, u or t)";
        if (!NixHash::fromBase32(digits, type.bytes)) {
            const size_t bits = digits.size() * 5, spare = bits - type.bytes * 8;
            return "invalid base-32 " + name + ": " + std::to_string(digits.size()) +
                   " digits hold " + std::to_string(bits) +
                   " bits, so the first digit must be at most " +
                   std::string(1, NixHash::base32Alphabet[(32 >> spare) - 1]);
        }
        return {};
    }
    if (sri || digits.size() == base64Length(type.bytes)) {
        const auto bytes = base64Bytes(digits);
        if (bytes == type.bytes)
            return {};
        return std::string(sri ? "invalid SRI " : "invalid base-64 ") + name + " (" +
               std::to_string(type.bytes) + " bytes are " +
               std::to_string(base64Length(type.bytes)) + " base-64 characters with padding)";
    }
    return "wrong length for a " + name + ": " + std::to_string(digits.size()) +
           " characters, where Nix takes " + std::to_string(base16Length(type.bytes)) +
           " (base-16), " + std::to_string(base32Length(type.bytes)) + " (base-32) or " +
           std::to_string(base64Length(type.bytes)) + " (base-64)";
}

} // namespace

bool NixHash::isHashAttribute(std::string_view attribute)
{
    return typeNamed(attribute) || attribute == "hash" || attribute == "narHash" ||
           attribute == "outputHash";
}

std::string NixHash::problem(std::string_view attribute, std::string_view text)
{
    if (text.empty() || !isHashAttribute(attribute))
        return {};
    const HashType* expected = typeNamed(attribute);
    // "sha256:…" names its type; "sha256-…" is SRI, always base-64 (as Nix reads the prefix:
    // a ':' first, else a '-').
    const size_t colon = text.find(':');
    const size_t dash = colon == std::string_view::npos ? text.find('-') : std::string_view::npos;
    const size_t split = colon != std::string_view::npos ? colon : dash;
    const HashType* type = expected;
    std::string_view digits = text;
    if (split != std::string_view::npos) {
        const std::string_view prefix = text.substr(0, split);
        type = typeNamed(prefix);
        if (!type)
            return "unknown hash algorithm " + singleQuoted(prefix);
        if (expected && expected != type)
            return "a " + std::string(type->name) + " hash where Nix takes a " +
                   std::string(expected->name);
        digits = text.substr(split + 1);
    }
    if (!type)
        return {}; // an untyped hash without prefix: its type comes from elsewhere
    return digestProblem(*type, digits, dash != std::string_view::npos);
}

std::optional<std::vector<unsigned char>> NixHash::fromBase32(std::string_view text, size_t bytes)
{
    if (text.size() != base32Length(bytes))
        return std::nullopt;
    std::vector<unsigned char> digest(bytes, 0);
    for (size_t n = 0; n < text.size(); ++n) {
        const size_t digit = base32Alphabet.find(text[text.size() - n - 1]);
        if (digit == std::string_view::npos)
            return std::nullopt;
        const size_t bit = n * 5, i = bit / 8, j = bit % 8;
        digest[i] |= static_cast<unsigned char>(digit << j);
        if (i + 1 < bytes)
            digest[i + 1] |= static_cast<unsigned char>(digit >> (8 - j));
        else if (digit >> (8 - j))
            return std::nullopt;
    }
    return digest;
}

} // namespace rg::nix

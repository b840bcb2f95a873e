#pragma once

// The JSON reader behind builtins.fromJSON. It accepts what Nix's fromJSON accepts (RFC 8259,
// as nlohmann_json reads it: no comments, UTF-8 checked, a byte order mark skipped) and
// remembers where each value was written, so that a pin's rev read from pins/nixpkgs.json
// can be traced to, and rewritten at, its bytes in that file.
//
// Not nlohmann_json, which the project uses elsewhere: version 3.11 reports no byte positions
// for values (its SAX interface only has them for errors) and does not say whether a string
// was written with escapes, both of which mapping a string's text to its bytes needs.
//
// Bounds: nesting deeper than `maxDepth` fails (tooDeep()); everything else is linear in the
// input, which the caller bounds. Reading never throws.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rg::nix {

class JsonReader
{
public:
    struct Node
    {
        enum class Kind : uint8_t { Null, Bool, Int, Float, String, Array, Object };
        Kind kind = Kind::Null;
        bool boolean = false;
        int64_t integer = 0;
        double number = 0;
        std::string text;            // String: decoded
        bool escaped = false;        // String: written with escapes, so text is not its bytes
        uint32_t begin = 0, end = 0; // the literal in the input, quotes included
        uint32_t size = 0;           // Array, Object: members, which follow it in pre-order
        uint32_t next = 0;           // the index of the first node after it and its members
        std::string key;             // a member of an Object: its name, decoded
        bool keyEscaped = false;     // … written with escapes
        uint32_t keyBegin = 0;       // … and its bytes inside the quotes
        uint32_t keyEnd = 0;
    };

    explicit JsonReader(uint32_t maxDepth) : m_maxDepth(maxDepth) {}

    // Reads one JSON value, with whitespace around it, from `text`; false when `text` is no
    // JSON (error() says why and at which byte) or nests too deeply.
    bool read(std::string_view text);

    // In pre-order: the value read is nodes()[0], an Array's or Object's members follow it.
    const std::vector<Node>& nodes() const { return m_nodes; }
    // The indices of the members of the Array or Object at `index`, in order.
    std::vector<size_t> members(size_t index) const;
    const std::string& error() const { return m_error; }
    bool tooDeep() const { return m_tooDeep; }

private:
    bool value(uint32_t depth);
    bool container(size_t index, uint32_t depth, bool object);
    bool string(std::string& out, bool& escaped);
    bool escape(std::string& out);
    bool number(Node& node);
    bool word(std::string_view word);
    void skipSpace();
    bool fail(std::string what);
    bool expected(std::string_view what);

    uint32_t m_maxDepth;
    std::string_view m_text;
    size_t m_at = 0;
    std::vector<Node> m_nodes;
    std::string m_error;
    bool m_tooDeep = false;
};

} // namespace rg::nix

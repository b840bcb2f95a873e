#include "nix/jsonreader.h"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace rg::nix {

namespace {

bool isDecimalDigit(char c)
{
    return c >= '0' && c <= '9';
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void appendUtf8(std::string& out, uint32_t code)
{
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

// The length of the well-formed UTF-8 sequence (RFC 3629) at text[at], or 0: nlohmann_json,
// and so Nix, refuses a string with any other bytes.
size_t utf8Length(std::string_view text, size_t at)
{
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF; // the range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        low = lead == 0xE0 ? 0xA0 : 0x80;
        high = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        low = lead == 0xF0 ? 0x90 : 0x80;
        high = lead == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (at + length > text.size() || byte(at + 1) < low || byte(at + 1) > high)
        return 0;
    for (size_t i = 2; i < length; ++i)
        if (byte(at + i) < 0x80 || byte(at + i) > 0xBF)
            return 0;
    return length;
}

} // namespace

bool JsonReader::read(std::string_view text)
{
    m_text = text;
    m_at = 0;
    m_nodes.clear();
    m_error.clear();
    m_tooDeep = false;
    if (text.size() >= UINT32_MAX)
        return fail("the text is too large");
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        m_at = 3;
    skipSpace();
    if (!value(0))
        return false;
    skipSpace();
    if (m_at < m_text.size())
        return expected("the end of the text");
    return true;
}

bool JsonReader::value(uint32_t depth)
{
    if (m_at >= m_text.size())
        return expected("a value");
    const size_t index = m_nodes.size();
    m_nodes.emplace_back();
    m_nodes[index].begin = static_cast<uint32_t>(m_at);
    bool ok = false;
    switch (m_text[m_at]) {
    case '{':
    case '[':
        if (depth >= m_maxDepth) {
            m_tooDeep = true;
            return fail("nested deeper than " + std::to_string(m_maxDepth) + " levels");
        }
        ok = container(index, depth + 1, m_text[m_at] == '{');
        break;
    case '"': {
        std::string text;
        bool escaped = false;
        ok = string(text, escaped);
        m_nodes[index].kind = Node::Kind::String;
        m_nodes[index].text = std::move(text);
        m_nodes[index].escaped = escaped;
        break;
    }
    case 't':
    case 'f':
        m_nodes[index].kind = Node::Kind::Bool;
        m_nodes[index].boolean = m_text[m_at] == 't';
        ok = word(m_nodes[index].boolean ? "true" : "false");
        break;
    case 'n':
        ok = word("null");
        break;
    default:
        ok = number(m_nodes[index]);
        break;
    }
    if (!ok)
        return false;
    m_nodes[index].end = static_cast<uint32_t>(m_at);
    m_nodes[index].next = static_cast<uint32_t>(m_nodes.size());
    return true;
}

// An array or object at m_at, whose node is m_nodes[index]: its members follow it.
bool JsonReader::container(size_t index, uint32_t depth, bool object)
{
    m_nodes[index].kind = object ? Node::Kind::Object : Node::Kind::Array;
    const char close = object ? '}' : ']';
    ++m_at;
    skipSpace();
    if (m_at < m_text.size() && m_text[m_at] == close) {
        ++m_at;
        return true;
    }
    uint32_t size = 0;
    while (true) {
        std::string key;
        bool keyEscaped = false;
        uint32_t keyBegin = 0, keyEnd = 0;
        if (object) {
            if (m_at >= m_text.size() || m_text[m_at] != '"')
                return expected("a member name");
            keyBegin = static_cast<uint32_t>(m_at + 1);
            if (!string(key, keyEscaped))
                return false;
            keyEnd = static_cast<uint32_t>(m_at - 1);
            skipSpace();
            if (m_at >= m_text.size() || m_text[m_at] != ':')
                return expected("':'");
            ++m_at;
            skipSpace();
        }
        const size_t member = m_nodes.size();
        if (!value(depth))
            return false;
        if (object) {
            m_nodes[member].key = std::move(key);
            m_nodes[member].keyEscaped = keyEscaped;
            m_nodes[member].keyBegin = keyBegin;
            m_nodes[member].keyEnd = keyEnd;
        }
        ++size;
        skipSpace();
        if (m_at < m_text.size() && m_text[m_at] == ',') {
            ++m_at;
            skipSpace();
            continue;
        }
        if (m_at < m_text.size() && m_text[m_at] == close) {
            ++m_at;
            m_nodes[index].size = size;
            return true;
        }
        return expected(object ? "',' or '}'" : "',' or ']'");
    }
}

// A string literal at m_at (its opening quote), decoded into `out`.
bool JsonReader::string(std::string& out, bool& escaped)
{
    const size_t start = m_at++;
    while (m_at < m_text.size()) {
        const char c = m_text[m_at];
        if (c == '"') {
            ++m_at;
            return true;
        }
        if (c == '\\') {
            escaped = true;
            if (!escape(out))
                return false;
            continue;
        }
        if (static_cast<unsigned char>(c) < 0x20)
            return fail("a control character in a string at byte " + std::to_string(m_at));
        if (static_cast<unsigned char>(c) < 0x80) {
            out += c;
            ++m_at;
            continue;
        }
        const size_t length = utf8Length(m_text, m_at);
        if (length == 0)
            return fail("invalid UTF-8 in a string at byte " + std::to_string(m_at));
        out.append(m_text.substr(m_at, length));
        m_at += length;
    }
    return fail("unterminated string starting at byte " + std::to_string(start));
}

// The escape at m_at (its backslash), decoded into `out`.
bool JsonReader::escape(std::string& out)
{
    const size_t start = m_at++;
    if (m_at >= m_text.size())
        return fail("unterminated string");
    const char c = m_text[m_at++];
    switch (c) {
    case '"':
    case '\\':
    case '/':
        out += c;
        return true;
    case 'b':
        out += '\b';
        return true;
    case 'f':
        out += '\f';
        return true;
    case 'n':
        out += '\n';
        return true;
    case 'r':
        out += '\r';
        return true;
    case 't':
        out += '\t';
        return true;
    case 'u':
        break;
    default:
        return fail("invalid escape at byte " + std::to_string(start));
    }
    const auto unit = [&](uint32_t& code) {
        if (m_at + 4 > m_text.size())
            return false;
        code = 0;
        for (size_t i = 0; i < 4; ++i) {
            const int digit = hexValue(m_text[m_at + i]);
            if (digit < 0)
                return false;
            code = code * 16 + static_cast<uint32_t>(digit);
        }
        m_at += 4;
        return true;
    };
    uint32_t code = 0;
    if (!unit(code))
        return fail("invalid \\u escape at byte " + std::to_string(start));
    if (code >= 0xDC00 && code <= 0xDFFF)
        return fail("a lone low surrogate at byte " + std::to_string(start));
    if (code >= 0xD800 && code <= 0xDBFF) {
        uint32_t low = 0;
        const bool paired = m_text.substr(m_at, 2) == "\\u";
        if (paired)
            m_at += 2;
        if (!paired || !unit(low) || low < 0xDC00 || low > 0xDFFF)
            return fail("a high surrogate without its low half at byte " + std::to_string(start));
        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    appendUtf8(out, code);
    return true;
}

// A number at m_at, with the grammar of RFC 8259: an integer that fits becomes Int, as
// nlohmann_json reads it for Nix; any other number a Float.
bool JsonReader::number(Node& node)
{
    const size_t start = m_at;
    size_t i = m_at;
    const auto digits = [&] {
        const size_t from = i;
        while (i < m_text.size() && isDecimalDigit(m_text[i]))
            ++i;
        return i > from;
    };
    if (i < m_text.size() && m_text[i] == '-')
        ++i;
    if (i < m_text.size() && m_text[i] == '0')
        ++i;
    else if (!digits())
        return expected("a value");
    bool integral = true;
    if (i < m_text.size() && m_text[i] == '.') {
        ++i;
        integral = false;
        if (!digits())
            return fail("a number without digits after '.' at byte " + std::to_string(start));
    }
    if (i < m_text.size() && (m_text[i] == 'e' || m_text[i] == 'E')) {
        ++i;
        integral = false;
        if (i < m_text.size() && (m_text[i] == '+' || m_text[i] == '-'))
            ++i;
        if (!digits())
            return fail("a number without exponent digits at byte " + std::to_string(start));
    }
    m_at = i;
    const char* first = m_text.data() + start;
    const char* last = m_text.data() + i;
    if (integral) {
        auto [end, ec] = std::from_chars(first, last, node.integer);
        if (ec == std::errc() && end == last) {
            node.kind = Node::Kind::Int;
            return true;
        }
        // Nix refuses an unsigned 64-bit number it cannot hold; a larger one nlohmann_json
        // reads as a float.
        uint64_t unsignedValue = 0;
        if (*first != '-' && std::from_chars(first, last, unsignedValue).ec == std::errc())
            return fail("the number at byte " + std::to_string(start) +
                        " is outside of Nix's integer range");
    }
    auto [end, ec] = std::from_chars(first, last, node.number);
    const std::string_view literal(first, i - start);
    const size_t exponent = literal.find_first_of("eE");
    const bool tiny = exponent != std::string_view::npos && literal[exponent + 1] == '-';
    if (ec == std::errc::result_out_of_range && tiny) {
        node.number = *first == '-' ? -0.0 : 0.0; // underflow: strtod's zero, as nlohmann's
    } else if (ec != std::errc() || end != last || !std::isfinite(node.number)) {
        return fail("number overflow at byte " + std::to_string(start));
    }
    node.kind = Node::Kind::Float;
    return true;
}

bool JsonReader::word(std::string_view word)
{
    if (m_text.substr(m_at, word.size()) != word)
        return expected("a value");
    m_at += word.size();
    return true;
}

void JsonReader::skipSpace()
{
    while (m_at < m_text.size() && (m_text[m_at] == ' ' || m_text[m_at] == '\t' ||
                                    m_text[m_at] == '\n' || m_text[m_at] == '\r'))
        ++m_at;
}

bool JsonReader::fail(std::string what)
{
    if (m_error.empty())
        m_error = std::move(what);
    return false;
}

bool JsonReader::expected(std::string_view what)
{
    if (m_at >= m_text.size())
        return fail("unexpected end of the text, expected " + std::string(what));
    const char c = m_text[m_at];
    const std::string found =
        static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F
            ? "'" + std::string(1, c) + "'"
            : "byte " + std::to_string(static_cast<unsigned char>(c));
    return fail("unexpected " + found + " at byte " + std::to_string(m_at) + ", expected " +
                std::string(what));
}

std::vector<size_t> JsonReader::members(size_t index) const
{
    std::vector<size_t> out;
    if (index >= m_nodes.size())
        return out;
    for (size_t i = index + 1; out.size() < m_nodes[index].size && i < m_nodes.size();
         i = m_nodes[i].next)
        out.push_back(i);
    return out;
}

} // namespace rg::nix

#include "nix/nixregex.h"

#include <algorithm>

namespace rg::nix {

namespace {

constexpr size_t kMaxRegexBytes = 1024;
constexpr size_t kMaxRegexStates = 4096; // regexShape()'s estimate

struct RegexShape
{
    std::vector<bool> repeated; // per capture group: inside a repetition
    size_t states = 0;          // an upper estimate of the automaton's size
};

// The end of the bracket expression starting at re[at] == '[': `]` first is a member, and
// so is everything in `[:alpha:]`, `[.x.]` and `[=x=]`.
size_t bracketEnd(std::string_view re, size_t at)
{
    size_t i = at + 1;
    if (i < re.size() && re[i] == '^')
        ++i;
    if (i < re.size() && re[i] == ']')
        ++i;
    while (i < re.size() && re[i] != ']') {
        const char kind = i + 1 < re.size() && re[i] == '[' ? re[i + 1] : 0;
        if (kind == ':' || kind == '.' || kind == '=') {
            const size_t close = re.find(std::string{kind, ']'}, i + 2);
            i = close == std::string_view::npos ? re.size() : close + 2;
        } else {
            ++i;
        }
    }
    return i;
}

struct Bound
{
    size_t most = 0;        // its largest count written
    bool unbounded = false; // `{m,}`
    size_t end = 0;         // the index of its '}'
};

// The bound `{m}`, `{m,}` or `{m,n}` starting at re[at] == '{'.
Bound boundAt(std::string_view re, size_t at)
{
    Bound bound;
    size_t number = 0;
    size_t i = at + 1;
    for (; i < re.size() && re[i] != '}'; ++i) {
        if (re[i] >= '0' && re[i] <= '9')
            number = std::min<size_t>(number * 10 + size_t(re[i] - '0'), kMaxRegexStates);
        else if (re[i] == ',')
            number = 0;
        bound.most = std::max(bound.most, number);
    }
    bound.unbounded = i > at + 1 && re[i - 1] == ',';
    bound.end = i;
    return bound;
}

// Which capture groups a repetition applies to, and the automaton's size with every bound
// counted as if nested in the others: a coarse estimate, but one that cannot be low, checked
// before libstdc++ builds (and recurses over) the automaton.
RegexShape regexShape(std::string_view re)
{
    std::vector<int> parent;
    std::vector<bool> quantified;
    std::vector<int> open;
    size_t factor = 1;
    int lastGroup = -1; // the group that the atom just read is, if it is one
    for (size_t i = 0; i < re.size(); ++i) {
        const char c = re[i];
        int closed = -1;
        if (c == '\\') {
            ++i;
        } else if (c == '[') {
            i = bracketEnd(re, i);
        } else if (c == '(') {
            parent.push_back(open.empty() ? -1 : open.back());
            quantified.push_back(false);
            open.push_back(static_cast<int>(quantified.size()) - 1);
        } else if (c == ')' && !open.empty()) {
            closed = open.back();
            open.pop_back();
        } else if (c == '*' || c == '+' || c == '{') {
            bool repeats = true;
            if (c == '{') {
                const Bound bound = boundAt(re, i);
                i = bound.end;
                factor = std::min(factor * (bound.most + 1), kMaxRegexStates + 1);
                repeats = bound.unbounded || bound.most > 1;
            }
            if (lastGroup >= 0 && repeats)
                quantified[size_t(lastGroup)] = true;
        }
        // Quantifiers stack (`(a)?*`): the atom they apply to stays the group.
        if (c != '*' && c != '+' && c != '?' && c != '{')
            lastGroup = closed;
    }
    RegexShape shape;
    shape.states = std::min(re.size(), kMaxRegexStates + 1) * factor;
    shape.repeated.resize(quantified.size());
    for (size_t group = 0; group < quantified.size(); ++group)
        for (int g = static_cast<int>(group); g >= 0 && !shape.repeated[group];
             g = parent[size_t(g)])
            shape.repeated[group] = quantified[size_t(g)];
    return shape;
}

} // namespace

NixRegex::NixRegex(const std::string& pattern)
{
    const RegexShape shape = regexShape(pattern);
    m_repeated = shape.repeated;
    m_states = shape.states;
#if defined(__GLIBCXX__)
    if (pattern.size() > kMaxRegexBytes || shape.states > kMaxRegexStates) {
        m_cause = Value::Cause::Limit;
        m_reason = "regular expression too large";
    } else {
        try {
            m_regex.emplace(pattern, std::regex::extended | std::regex_constants::__polynomial);
        } catch (const std::regex_error& e) {
            // Our limits (and the polynomial matcher's refusal of back-references) are
            // not Nix's: only other errors are the invalid regex Nix rejects.
            const auto code = e.code();
            const bool ours = code == std::regex_constants::error_complexity ||
                              code == std::regex_constants::error_space ||
                              code == std::regex_constants::error_stack;
            m_cause = ours ? Value::Cause::Limit : Value::Cause::Error;
            m_reason = std::string("invalid regular expression: ") + e.what();
        }
    }
    // Were regexShape() to misread the groups, the repeated ones would be misplaced.
    if (m_regex && m_regex->mark_count() != m_repeated.size()) {
        m_regex.reset();
        m_cause = Value::Cause::Unsupported;
        m_reason = "regular expression not understood";
    }
#else
    m_cause = Value::Cause::Unsupported;
    m_reason = "regular expressions need libstdc++'s polynomial matcher";
#endif
}

bool NixRegex::matches(const std::string& text, std::smatch& groups) const
{
    return std::regex_match(text, groups, *m_regex);
}

} // namespace rg::nix

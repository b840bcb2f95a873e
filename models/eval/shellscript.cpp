#include "eval/shellscript.h"

namespace rg {

namespace {

bool isNameChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The value of an assignment starting at `text[at]`, up to the first unquoted blank, `;` or
// end of line; quotes are removed as the shell removes them.
std::string readValue(std::string_view text, size_t at)
{
    std::string value;
    char quote = 0;
    for (size_t i = at; i < text.size(); ++i) {
        const char c = text[i];
        if (quote) {
            if (c == quote)
                quote = 0;
            else if (c == '\\' && quote == '"' && i + 1 < text.size())
                value += text[++i];
            else
                value += c;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == ';') {
            break;
        } else {
            value += c;
        }
    }
    return value;
}

} // namespace

ShellScript::ShellScript(std::string_view text, std::map<std::string, std::string> environment)
    : m_environment(std::move(environment))
{
    size_t lineStart = 0;
    while (lineStart < text.size()) {
        size_t lineEnd = text.find('\n', lineStart);
        if (lineEnd == std::string_view::npos)
            lineEnd = text.size();
        std::string_view line = text.substr(lineStart, lineEnd - lineStart);
        const size_t first = line.find_first_not_of(" \t");
        line = first == std::string_view::npos ? std::string_view{} : line.substr(first);
        if (line.starts_with("export "))
            line.remove_prefix(7);
        size_t name = 0;
        while (name < line.size() && isNameChar(line[name]))
            ++name;
        // A comment line starts with '#', which no name does.
        if (name > 0 && name < line.size() && line[name] == '=')
            m_assignments.push_back(
                {std::string(line.substr(0, name)),
                 readValue(text, size_t(line.data() - text.data()) + name + 1)});
        lineStart = lineEnd + 1;
    }
}

std::optional<std::string> ShellScript::valueOf(std::string_view name) const
{
    for (size_t i = m_assignments.size(); i-- > 0;)
        if (m_assignments[i].name == name)
            return expand(m_assignments[i].value, i);
    return std::nullopt;
}

// `$NAME` and `${NAME}` in the value of assignment `before`: what the script set earlier.
std::string ShellScript::expand(std::string_view value, size_t before) const
{
    std::string out;
    for (size_t i = 0; i < value.size(); ++i) {
        if (value[i] != '$') {
            out += value[i];
            continue;
        }
        const bool braced = i + 1 < value.size() && value[i + 1] == '{';
        size_t start = i + (braced ? 2 : 1);
        size_t end = start;
        while (end < value.size() && isNameChar(value[end]))
            ++end;
        const std::string name(value.substr(start, end - start));
        size_t k = before;
        while (k-- > 0 && m_assignments[k].name != name) {
        }
        if (k != size_t(-1))
            out += expand(m_assignments[k].value, k);
        else if (const auto it = m_environment.find(name); it != m_environment.end())
            out += it->second;
        i = braced && end < value.size() && value[end] == '}' ? end : end - 1;
    }
    return out;
}

std::vector<std::string> ShellScript::words(std::string_view value, bool semicolons)
{
    std::vector<std::string> out;
    std::string word;
    for (const char c : value) {
        if (c == ' ' || c == '\t' || c == '\n' || (semicolons && c == ';')) {
            if (!word.empty())
                out.push_back(std::move(word));
            word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty())
        out.push_back(std::move(word));
    return out;
}

} // namespace rg

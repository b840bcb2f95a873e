#include "eval/nixerror.h"

#include <algorithm>
#include <regex>
#include <vector>

namespace rg {

namespace {

struct Position
{
    size_t line; // index into the output's lines
    std::string file;
    int row = 0;
    int column = 0;
};

std::vector<std::string_view> linesOf(std::string_view text)
{
    std::vector<std::string_view> lines;
    for (size_t start = 0; start <= text.size();) {
        const size_t end = std::min(text.find('\n', start), text.size());
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

std::string_view trimmed(std::string_view line)
{
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos)
        return {};
    return line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
}

// Nix's message: the text after the last "error:" that has any, up to the blank line or the
// position that follows it.
std::string messageFrom(const std::vector<std::string_view>& lines, size_t* messageLine)
{
    *messageLine = lines.size();
    for (size_t i = lines.size(); i-- > 0;) {
        const std::string_view line = trimmed(lines[i]);
        if (line.starts_with("error:") && trimmed(line.substr(6)).size() > 0) {
            *messageLine = i;
            break;
        }
    }
    if (*messageLine == lines.size())
        return {};
    std::string message(trimmed(trimmed(lines[*messageLine]).substr(6)));
    int count = 1;
    for (size_t i = *messageLine + 1; i < lines.size(); ++i) {
        const std::string_view line = trimmed(lines[i]);
        if (line.empty() || line.starts_with("at ") || line.starts_with("\xe2\x80\xa6"))
            break;
        if (++count > NixError::maxLines || message.size() > NixError::maxBytes) {
            message += "\n(message cut)";
            break;
        }
        message += '\n';
        message += line;
    }
    if (message.size() > NixError::maxBytes)
        message = message.substr(0, NixError::maxBytes) + "\n(message cut)";
    return message;
}

std::vector<Position> positionsOf(const std::vector<std::string_view>& lines)
{
    static const std::regex at(R"(^at (.+):(\d+):(\d+):$)");
    std::vector<Position> positions;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string line(trimmed(lines[i]));
        std::smatch match;
        if (line.starts_with("at ") && std::regex_match(line, match, at))
            positions.push_back(
                {i, match[1].str(), std::stoi(match[2].str()), std::stoi(match[3].str())});
    }
    return positions;
}

// "… while evaluating the attribute 'python3Packages.pytorch.override'": the frame nearest the
// message (after it in Nix 2.8, before it in newer Nix).
std::string innermostAttribute(const std::vector<std::string_view>& lines, size_t messageLine)
{
    static const std::regex frame(R"(while evaluating the attribute '([^']+)')");
    std::string after, before;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string line(lines[i]);
        std::smatch match;
        if (!std::regex_search(line, match, frame))
            continue;
        if (i > messageLine && after.empty())
            after = match[1].str();
        else if (i < messageLine)
            before = match[1].str();
    }
    return after.empty() ? before : after;
}

bool isNameChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '\'';
}

} // namespace

bool NixError::locateAttribute(NixErrorReport& report, std::string_view recipeText,
                               const std::string& recipePath)
{
    std::string_view path = report.attribute;
    while (std::count(path.begin(), path.end(), '.') >= 1) {
        for (size_t at = recipeText.find(path); at != std::string_view::npos;
             at = recipeText.find(path, at + 1)) {
            const size_t end = at + path.size();
            if ((at > 0 && isNameChar(recipeText[at - 1])) ||
                (end < recipeText.size() && isNameChar(recipeText[end])))
                continue;
            const size_t lineStart = recipeText.rfind('\n', at);
            report.file = recipePath;
            report.line =
                int(std::count(recipeText.begin(), recipeText.begin() + long(at), '\n')) + 1;
            report.column = int(at - (lineStart == std::string_view::npos ? 0 : lineStart + 1)) + 1;
            return true;
        }
        path.remove_prefix(path.find('.') + 1);
    }
    return false;
}

NixErrorReport NixError::read(std::string_view output, const std::string& repoRoot)
{
    std::vector<std::string_view> lines;
    for (std::string_view line : linesOf(output))
        if (!line.starts_with("trace: ") && !line.starts_with("warning: "))
            lines.push_back(line);

    NixErrorReport report;
    size_t messageLine = 0;
    report.message = messageFrom(lines, &messageLine);
    if (report.message.empty())
        report.message = "Nix failed without a message";

    report.attribute = innermostAttribute(lines, messageLine);

    // Innermost first: the message's own position, then the trace frames going outward.
    const std::vector<Position> positions = positionsOf(lines);
    std::vector<const Position*> inward;
    for (const Position& position : positions)
        if (position.line > messageLine) {
            inward.push_back(&position);
            break;
        }
    const bool traceBefore = !positions.empty() && positions.front().line < messageLine;
    if (traceBefore) {
        for (auto it = positions.rbegin(); it != positions.rend(); ++it)
            if (it->line < messageLine)
                inward.push_back(&*it);
    } else {
        for (const Position& position : positions)
            if (position.line > messageLine && (inward.empty() || &position != inward.front()))
                inward.push_back(&position);
    }
    const std::string prefix = repoRoot + "/";
    for (const Position* position : inward)
        if (position->file.starts_with(prefix)) {
            report.file = position->file.substr(prefix.size());
            report.line = position->row;
            report.column = position->column;
            return report;
        }
    // Wholly inside nixpkgs (an attribute its torch lacks, a removed alias): where, there.
    for (const Position* position : inward)
        if (position->file.starts_with("/")) {
            report.message += " (at " + position->file + ":" + std::to_string(position->row) + ":" +
                              std::to_string(position->column) + ")";
            break;
        }
    return report;
}

} // namespace rg

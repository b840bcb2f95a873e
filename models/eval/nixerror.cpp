#include "eval/nixerror.h"

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

} // namespace

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

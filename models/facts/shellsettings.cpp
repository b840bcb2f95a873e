#include "facts/shellsettings.h"

#include "facts/syntaxqueries.h"

#include <algorithm>

namespace rg {

using nix::Node;
using nix::NodeKind;
using nix::SourceRange;

namespace {

bool isIdentChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether byte `at` of a shell script is in a comment: after a `#` that starts a word,
// outside quotes, on the same line (`# was: export TORCH_CUDA_ARCH_LIST="8.6;8.9"`).
bool inShellComment(std::string_view text, size_t at)
{
    const size_t line = text.rfind('\n', at);
    char quote = 0;
    for (size_t i = line == std::string_view::npos ? 0 : line + 1; i < at; ++i) {
        const char c = text[i];
        if (quote) {
            if (c == quote)
                quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '#' &&
                   (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n')) {
            return true;
        }
    }
    return false;
}

// Where byte `index` of a literal run (or its end, at the run's size) is in the source.
std::optional<uint32_t> sourceAt(const nix::Value& run, size_t index)
{
    if (auto at = run.sourceOf(index, 1))
        return at->range.begin;
    if (index > 0)
        if (auto before = run.sourceOf(index - 1, 1))
            return before->range.end;
    return std::nullopt;
}

// lib.escapeShellArg's quoting is shell syntax, which the shell removes again:
// 'a;b'\''c' is the word a;b'c.
void appendUnquoted(SourcedText& value, const SourcedText& word)
{
    const std::string& text = word.text;
    for (size_t i = 0; i < text.size();) {
        if (text[i] == '\'') {
            const size_t close = text.find('\'', i + 1);
            const size_t length = close == std::string::npos ? std::string::npos : close - i - 1;
            value.append(text, word.pieces, i + 1, length);
            i = close == std::string::npos ? text.size() : close + 1;
        } else if (text[i] == '\\' && i + 1 < text.size()) {
            value.append(text, word.pieces, i + 1, 1);
            i += 2;
        } else {
            value.append(text, word.pieces, i, 1);
            ++i;
        }
    }
}

} // namespace

ShellSettings::ShellSettings(const FactContext& context) : m_context(context) {}

const std::vector<ShellSettings::Setting>& ShellSettings::settings(std::string_view name) const
{
    static const std::vector<Setting> none;
    if (!m_read) {
        m_read = true;
        for (const Node* string : m_context.walked().strings())
            readSettingsOf(*string);
    }
    const auto it = m_settings.find(name);
    return it == m_settings.end() ? none : it->second;
}

void ShellSettings::readSettingsOf(const Node& string) const
{
    static constexpr std::string_view names[] = {"TORCH_CUDA_ARCH_LIST",
                                                 "CMAKE_CUDA_ARCHITECTURES",
                                                 "COMPUTE_CAPABILITY",
                                                 "USE_MAGMA",
                                                 "USE_CUDA",
                                                 "CXXFLAGS",
                                                 "CFLAGS",
                                                 "NIX_CFLAGS_COMPILE",
                                                 "CMAKE_CXX_FLAGS"};
    for (size_t i = 0; i < string.children.size(); ++i) {
        const Node* part = string.children[i];
        if (part->kind != NodeKind::StringText)
            continue;
        const std::string_view text = part->text;
        for (size_t at = text.find('='); at != std::string_view::npos;
             at = text.find('=', at + 1)) {
            size_t start = at;
            while (start > 0 && isIdentChar(text[start - 1]))
                --start;
            std::string_view word = text.substr(start, at - start);
            if (word.size() > 1 && word.front() == 'D' && start > 0 && text[start - 1] == '-' &&
                std::find(std::begin(names), std::end(names), word) == std::end(names))
                word.remove_prefix(1); // -DNAME=value
            const auto known = std::find(std::begin(names), std::end(names), word);
            if (known != std::end(names) && !inShellComment(text, start))
                m_settings[*known].push_back(readShellValue(string, i, at + 1));
        }
    }
}

// A literal run of a string with its pieces, evaluated once however many settings it holds.
const nix::Value& ShellSettings::runOf(const Node& part) const
{
    auto [it, added] = m_runs.try_emplace(&part);
    if (added)
        it->second = m_context.valueOf(&part);
    return it->second;
}

ShellSettings::Setting ShellSettings::readShellValue(const Node& string, size_t partIndex,
                                                     size_t offset) const
{
    Setting setting;
    const Node* part = string.children[partIndex];
    const nix::Value& run = runOf(*part);
    std::string_view text = std::string_view(part->text).substr(offset);
    char quote = 0;
    if (!text.empty() && (text.front() == '"' || text.front() == '\'')) {
        quote = text.front();
        text.remove_prefix(1);
        ++offset;
    }
    const uint32_t begin = sourceAt(run, offset).value_or(string.range.begin);
    auto stopAt = [&](std::string_view rest) {
        for (size_t k = 0; k < rest.size(); ++k) {
            const char c = rest[k];
            if (quote ? c == quote
                      : (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '"' || c == '\'' ||
                         c == ')'))
                return k;
        }
        return std::string_view::npos;
    };
    SourcedText& value = setting.text;
    size_t stop = stopAt(text);
    const size_t first = stop == std::string_view::npos ? text.size() : stop;
    value.append(part->text, run.pieces(), offset, first);
    uint32_t end = sourceAt(run, offset + first).value_or(string.range.end);
    // The value continues into interpolations: "${gpuArch}" or sm_${num}
    for (size_t next = partIndex + 1;
         stop == std::string_view::npos && next < string.children.size(); ++next) {
        const Node* following = string.children[next];
        if (following->kind == NodeKind::Interpolation) {
            appendInterpolated(value, *following);
            end = following->range.end;
            continue;
        }
        const nix::Value& more = runOf(*following);
        stop = stopAt(following->text);
        const size_t length = stop == std::string_view::npos ? following->text.size() : stop;
        value.append(following->text, more.pieces(), 0, length);
        end = sourceAt(more, length).value_or(following->range.end);
    }
    setting.value = value.text;
    setting.range = SourceRange{begin, std::max(begin, end)};
    value.range = setting.range;
    return setting;
}

// `${…}` in a shell value: its text, or a mark that makes the item it is part of unknown
// rather than split out of Nix source text.
void ShellSettings::appendInterpolated(SourcedText& value, const Node& interpolation) const
{
    const Node* expression = interpolation.interpolated();
    auto inner = m_context.textAt(expression);
    if (!inner) {
        value.text += unknownMark;
        return;
    }
    if (expression->kind == NodeKind::Apply && calleeName(*expression) == "escapeShellArg")
        appendUnquoted(value, *inner);
    else
        value.append(inner->text, inner->pieces);
    if (value.writtenIn.empty())
        value.writtenIn = inner->writtenIn; // "-DX=${cap}" with cap from another file
}

} // namespace rg

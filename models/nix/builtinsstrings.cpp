#include "nix/evaluatorimpl.h"

#include <charconv>

namespace rg::nix {

namespace {

constexpr size_t kMaxRegexes = 256; // compiled regexes kept per evaluator

// Nix's splitVersion: runs of digits, or of other characters, split at '.' and '-'.
std::vector<std::string_view> splitVersion(std::string_view version)
{
    std::vector<std::string_view> components;
    size_t i = 0;
    while (i < version.size()) {
        if (version[i] == '.' || version[i] == '-') {
            ++i;
            continue;
        }
        const bool digits = version[i] >= '0' && version[i] <= '9';
        const size_t start = i;
        while (i < version.size() && version[i] != '.' && version[i] != '-' &&
               (version[i] >= '0' && version[i] <= '9') == digits)
            ++i;
        components.push_back(version.substr(start, i - start));
    }
    return components;
}

} // namespace

std::optional<std::vector<Value>> Evaluator::Impl::itemsOfParts(const Value& items)
{
    const ValueData& d = data(items);
    if (items.isKnown() || d.partsKind != PartsKind::List || d.parts.empty() ||
        items.cause() != Cause::Dependent)
        return std::nullopt;
    std::vector<Value> out;
    for (const Value& part : d.parts) {
        if (part.isKnown() && part.kind() != ValueKind::List)
            return std::nullopt;
        if (part.isUnknown()) {
            out.push_back(part);
            continue;
        }
        for (Value element : forceElements(part))
            out.push_back(std::move(element));
    }
    return out;
}

Value Evaluator::Impl::joinStrings(const Value& separator, const std::vector<Value>& items,
                                   Origin origin)
{
    Concat out(*this, PartsKind::String, origin);
    for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0)
            out.add(separator);
        const Value item = interpolated(items[i]);
        if (item.cause() == Cause::Error || item.cause() == Cause::Limit)
            return item;
        out.add(item);
        if (out.tooLarge())
            return tooLarge("string");
    }
    return out.finish();
}

Value Evaluator::Impl::toStringOf(const Value& value, Origin origin, int level)
{
    const ValueData& d = data(value);
    const auto literal = [&](std::string text) {
        Text out;
        out.text = std::move(text);
        // `toString 12` reads its text from the literal 12.
        auto file = fileIndex.find(std::string(d.origin.file));
        if (file != fileIndex.end() && file->second != UINT32_MAX &&
            files[file->second].tree->text(d.origin.range) == out.text)
            out.addPiece({0, out.text.size(), d.origin.file, d.origin.range.begin});
        return rechain(string(std::move(out), d.origin), value.m_chain);
    };
    switch (d.kind) {
    case ValueKind::String:
        return value;
    case ValueKind::Int:
        return literal(std::to_string(d.integer));
    case ValueKind::Float: {
        char buffer[64];
        auto [end, ec] =
            std::to_chars(buffer, buffer + sizeof buffer, d.number, std::chars_format::fixed, 6);
        return ec == std::errc() ? literal(std::string(buffer, end)) : error("float out of range");
    }
    case ValueKind::Bool:
        return literal(d.boolean ? "1" : "");
    case ValueKind::Null:
        return literal("");
    case ValueKind::List: {
        if (level > kMaxCompareDepth)
            return unknown(Cause::Limit, "toString nested too deeply");
        std::vector<Value> items;
        for (const Value& item : forceElements(value))
            items.push_back(toStringOf(item, origin, level + 1));
        Text space;
        space.text = " ";
        return joinStrings(string(std::move(space), origin), items, origin);
    }
    case ValueKind::Path:
        return unknown(Cause::Unsupported, "toString of a path is its absolute location");
    case ValueKind::AttrSet:
        return unknown(Cause::Unsupported, "toString of a set is its outPath or __toString");
    case ValueKind::Function:
        return error("toString of a function");
    case ValueKind::Unknown: {
        Concat out(*this, PartsKind::String, origin);
        out.add(value);
        return out.finish();
    }
    }
    return error("toString");
}

Value Evaluator::Impl::replaceStrings(const Value& from, const Value& to, const Value& text,
                                      Origin origin, std::string_view path)
{
    for (const Value* argument : {&from, &to, &text})
        if (argument->isUnknown())
            return unknownCall(path, *argument);
    if (from.kind() != ValueKind::List || to.kind() != ValueKind::List ||
        text.kind() != ValueKind::String || data(from).elements.size() != data(to).elements.size())
        return error(std::string(path) + ": wrong argument types");
    std::vector<Value> patterns = forceElements(from);
    std::vector<Value> replacements = forceElements(to);
    for (const auto* strings : {&patterns, &replacements})
        for (const Value& item : *strings)
            if (item.kind() != ValueKind::String)
                return item.isUnknown() ? unknownCall(path, item)
                                        : error(std::string(path) + ": not a string");
    // As Nix: at each position the first pattern that matches is replaced; an empty one
    // matches before every character and at the end. The runs of `text` in between are
    // copied whole, pieces and all, and a replacement brings the pieces of its string.
    const ValueData& s = data(text);
    const auto pattern = [&](size_t i) -> const std::string& { return data(patterns[i]).text; };
    Text out;
    size_t kept = 0; // where the run of `text` not yet copied begins
    for (size_t p = 0; p <= s.text.size();) {
        if (!spend(patterns.size()))
            return exhaustion();
        size_t i = 0;
        while (i < patterns.size() && s.text.compare(p, pattern(i).size(), pattern(i)) != 0)
            ++i;
        if (i == patterns.size()) {
            ++p;
            continue;
        }
        out.append(s.text, s.pieces, kept, p - kept);
        const ValueData& replacement = data(replacements[i]);
        out.append(replacement.text, replacement.pieces);
        const size_t matched = pattern(i).size();
        kept = p + matched;
        p += std::max<size_t>(matched, 1); // after an empty match, the character is kept
        if (out.text.size() > limits.stringBytes)
            return tooLarge("string");
    }
    out.append(s.text, s.pieces, kept);
    return string(std::move(out), origin);
}

Value Evaluator::Impl::escapeShellArg(const Value& text, Origin origin)
{
    const ValueData& s = data(text);
    const auto safe = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view(",._+:@%/-").find(c) != std::string_view::npos;
    };
    if (!s.text.empty() && std::all_of(s.text.begin(), s.text.end(), safe))
        return text;
    Text out;
    out.text = "'";
    size_t run = 0;
    for (size_t i = 0; i <= s.text.size(); ++i) {
        if (i < s.text.size() && s.text[i] != '\'')
            continue;
        out.append(s.text, s.pieces, run, i - run);
        if (i < s.text.size())
            out.text += "'\\''";
        run = i + 1;
    }
    out.text += "'";
    return string(std::move(out), origin);
}

const NixRegex& Evaluator::Impl::compiledRegex(const std::string& pattern)
{
    if (auto it = regexes.find(pattern); it != regexes.end())
        return it->second;
    if (regexes.size() >= kMaxRegexes)
        regexes.clear();
    return regexes.emplace(pattern, NixRegex(pattern)).first->second;
}

Value Evaluator::Impl::match(const Value& regex, const Value& text, Origin origin,
                             std::string_view path)
{
    for (const Value* argument : {&regex, &text})
        if (argument->isUnknown())
            return unknownCall(path, *argument);
    if (regex.kind() != ValueKind::String || text.kind() != ValueKind::String)
        return error(std::string(path) + ": wrong argument types");
    if (!spend(1 + data(regex).text.size() / 16))
        return exhaustion();
    const NixRegex& compiled = compiledRegex(data(regex).text);
    if (!compiled.compiled())
        return unknown(compiled.cause(), std::string(path) + ": " + compiled.reason());
    const std::string& s = data(text).text;
    const size_t work = std::max<size_t>(s.size(), 1) * compiled.states();
    if (work > NixRegex::kMaxWork)
        return unknown(Cause::Limit, std::string(path) + ": string too long to match");
    if (!spend(1 + work / 1024))
        return exhaustion();
    std::smatch groups;
    try {
        if (!compiled.matches(s, groups))
            return nullValue(origin);
    } catch (const std::exception& e) {
        return unknown(Cause::Limit, std::string(path) + ": " + e.what());
    }
    std::vector<Thunk*> elements;
    elements.reserve(groups.size());
    for (size_t i = 1; i < groups.size(); ++i) {
        if (compiled.repeated(i - 1))
            elements.push_back(ready(unknown(
                Cause::Unsupported, "what a repeated group captures last is not modelled")));
        else if (!groups[i].matched)
            elements.push_back(ready(nullValue(origin)));
        else
            elements.push_back(
                ready(substring(text, size_t(groups.position(i)), size_t(groups.length(i)))));
    }
    return list(std::move(elements), origin);
}

Value Evaluator::Impl::splitString(const Value& separator, const Value& text, Origin origin,
                                   std::string_view path)
{
    for (const Value* argument : {&separator, &text})
        if (argument->isUnknown())
            return unknownCall(path, *argument);
    const Value sep = toStringOf(separator, origin, 0);
    const Value s = toStringOf(text, origin, 0);
    for (const Value* argument : {&sep, &s})
        if (argument->isUnknown())
            return *argument;
    const std::string& needle = data(sep).text;
    const std::string& haystack = data(s).text;
    if (needle.empty()) // a regex matching everywhere: Nix's split has its own rules there
        return unknown(Cause::Unsupported, std::string(path) + " with an empty separator");
    std::vector<Thunk*> elements;
    for (size_t from = 0;;) {
        if (!spend() || elements.size() >= limits.elements)
            return elements.size() >= limits.elements ? tooLarge("list") : exhaustion();
        const size_t at = haystack.find(needle, from);
        const size_t end = at == std::string::npos ? haystack.size() : at;
        elements.push_back(ready(substring(s, from, end - from)));
        if (at == std::string::npos)
            break;
        from = at + needle.size();
    }
    return list(std::move(elements), origin);
}

Value Evaluator::Impl::nativeConcatStringsSep(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value separator = force(args[0]);
    const Value items = force(args.back());
    // `[ (old.flags or "") ] ++ flags` filtered: the known parts are still joined,
    // the unknown ones stay unknown parts of the string.
    if (native == Native::ConcatStringsSep && separator.kind() == ValueKind::String)
        if (auto pieces = itemsOfParts(items))
            return joinStrings(separator, *pieces, origin);
    if (separator.isUnknown() || items.isUnknown())
        return unknownCall(path, separator.isUnknown() ? separator : items);
    if (separator.kind() != ValueKind::String || items.kind() != ValueKind::List)
        return error(std::string(path) + ": wrong argument types");
    std::vector<Value> strings;
    if (native == Native::ConcatStringsSep) {
        strings = forceElements(items);
    } else {
        const Value function = force(args[1]);
        for (Thunk* element : data(items).elements)
            strings.push_back(apply(function, element, fileOf(origin), origin.range));
    }
    return joinStrings(separator, strings, origin);
}

Value Evaluator::Impl::nativeRemoveAffix(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value affix = force(args[0]);
    const Value text = force(args[1]);
    if (affix.isUnknown() || text.isUnknown())
        return unknownCall(path, affix.isUnknown() ? affix : text);
    if (affix.kind() != ValueKind::String || text.kind() != ValueKind::String)
        return error(std::string(path) + ": wrong argument types");
    const std::string& a = data(affix).text;
    const std::string& t = data(text).text;
    if (native == Native::RemovePrefix)
        return t.compare(0, a.size(), a) == 0 ? substring(text, a.size(), t.size()) : text;
    return endsWith(t, a) ? substring(text, 0, t.size() - a.size()) : text;
}

Value Evaluator::Impl::nativeToString(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    return toStringOf(force(args[0]), origin, 0);
}

Value Evaluator::Impl::nativeMajorMinor(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value version = force(args[0]);
    if (version.isUnknown())
        return unknownCall(path, version);
    if (version.kind() != ValueKind::String)
        return error(std::string(path) + ": not a string");
    const std::string& text = data(version).text;
    const auto components = splitVersion(text);
    std::string result;
    for (size_t i = 0; i < components.size() && i < 2; ++i)
        result += (i ? "." : "") + std::string(components[i]);
    if (text.compare(0, result.size(), result) == 0)
        return substring(version, 0, result.size());
    Text out;
    out.text = result;
    return string(std::move(out), data(version).origin);
}

Value Evaluator::Impl::nativeReplaceStrings(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    return replaceStrings(force(args[0]), force(args[1]), force(args[2]), origin, path);
}

Value Evaluator::Impl::nativeSubstring(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    // builtins.substring start length s: clipped to the string; a negative length
    // reads to its end.
    const Value start = force(args[0]);
    const Value length = force(args[1]);
    const Value text = force(args[2]);
    for (const Value* arg : {&start, &length, &text})
        if (arg->isUnknown())
            return unknownCall(path, *arg);
    if (!start.asInt() || !length.asInt() || text.kind() != ValueKind::String)
        return error(std::string(path) + ": wrong argument types");
    if (*start.asInt() < 0)
        return error(std::string(path) + ": negative start position");
    const size_t size = data(text).text.size();
    const size_t from = std::min(size, static_cast<size_t>(*start.asInt()));
    const size_t count = *length.asInt() < 0
                             ? size - from
                             : std::min(size - from, static_cast<size_t>(*length.asInt()));
    return substring(text, from, count);
}

Value Evaluator::Impl::nativeEscapeShellArg(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value text = toStringOf(force(args[0]), origin, 0);
    if (text.isUnknown())
        return text.cause() == Cause::Error ? text : unknownCall(path, text);
    return escapeShellArg(text, origin);
}

Value Evaluator::Impl::nativeMatch(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    return match(force(args[0]), force(args[1]), origin, path);
}

Value Evaluator::Impl::nativeSplitString(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    return splitString(force(args[0]), force(args[1]), origin, path);
}

Value Evaluator::Impl::stringLength(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value text = force(args[0]);
    if (text.isUnknown())
        return unknownCall(path, text);
    if (text.kind() == ValueKind::Path)
        return unknown(Cause::Unsupported, "a path as a string is its store path");
    if (text.kind() != ValueKind::String)
        return error(std::string(path) + ": " + kindName(text.kind()) + " is not a string");
    return integer(int64_t(data(text).text.size()), origin);
}

} // namespace rg::nix

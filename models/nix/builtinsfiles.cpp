#include "nix/evaluatorimpl.h"
#include "nix/moduleloader.h"

namespace rg::nix {

namespace detail {

std::string normalisePath(std::string_view text)
{
    std::string prefix;
    if (text.substr(0, 1) == "/") {
        prefix = "/";
        text.remove_prefix(1);
    } else if (text.substr(0, 2) == "~/") {
        prefix = "~/";
        text.remove_prefix(2);
    }
    std::vector<std::string_view> stack;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i < text.size() && text[i] != '/')
            continue;
        const std::string_view segment = text.substr(start, i - start);
        start = i + 1;
        if (segment.empty() || segment == ".")
            continue;
        if (segment == "..") {
            if (!stack.empty() && stack.back() != "..")
                stack.pop_back();
            else if (prefix.empty())
                stack.push_back(segment); // a relative path may leave its directory
            continue;
        }
        stack.push_back(segment);
    }
    std::string out = prefix;
    if (prefix.empty() && (stack.empty() || stack.front() != ".."))
        out = stack.empty() ? "." : "./";
    for (size_t i = 0; i < stack.size(); ++i) {
        if (i > 0)
            out += '/';
        out += stack[i];
    }
    return out;
}

} // namespace detail

namespace {

// Nix's baseNameOf of a string: what follows the last '/', one trailing '/' ignored.
std::pair<size_t, size_t> baseNameRange(std::string_view path)
{
    if (path.empty())
        return {0, 0};
    size_t last = path.size() - 1;
    if (path[last] == '/' && last > 0)
        --last;
    const size_t slash = path.rfind('/', last);
    const size_t begin = slash == std::string_view::npos ? 0 : slash + 1;
    return {begin, last + 1 - begin};
}

} // namespace

Value Evaluator::Impl::readFile(const Value& target, std::string_view path)
{
    if (target.isUnknown())
        return unknownCall(path, target);
    const ValueData& d = data(target);
    const bool absolute = d.kind == ValueKind::String && d.text.substr(0, 1) == "/";
    if (d.kind == ValueKind::String && !absolute)
        return error(std::string(path) + ": \"" + d.text + "\" is not an absolute path");
    if (d.kind != ValueKind::Path && !absolute)
        return error(std::string(path) + ": reads " + kindName(d.kind));
    if (!loader)
        return unknown(Cause::Unavailable, "no loader for " + d.text);
    const std::string id =
        loader->resolveFile(fileId(d.kind == ValueKind::Path ? d.file : 0), d.text);
    if (id.empty())
        return unknown(Cause::Unavailable, "cannot read " + d.text);
    auto [it, inserted] = readFiles.try_emplace(id);
    Value& value = it->second; // stable: nothing below reads another file
    if (!inserted)
        return value;
    const std::optional<std::string_view> bytes = loader->text(id);
    if (!bytes) {
        value = unknown(Cause::Unavailable, "cannot read " + id);
    } else if (bytes->size() > limits.stringBytes) {
        value = tooLarge("file");
    } else {
        const std::string_view file = intern(id);
        const auto size = static_cast<uint32_t>(bytes->size());
        Text text;
        text.text = std::string(*bytes);
        text.addPiece({0, size, file, 0});
        value = string(std::move(text), Origin{file, {0, size}});
    }
    return value;
}

Value Evaluator::Impl::fromJson(const Value& text, Origin origin, std::string_view path)
{
    if (text.isUnknown())
        return unknownCall(path, text);
    if (text.kind() != ValueKind::String)
        return error(std::string(path) + ": reads " + kindName(text.kind()));
    JsonReader reader(limits.depth);
    if (!reader.read(data(text).text))
        return unknown(reader.tooDeep() ? Cause::Limit : Cause::Error,
                       std::string(path) + ": " + reader.error());
    if (!spend(reader.nodes().size()))
        return exhaustion();
    return jsonValue(reader.nodes(), 0, text, origin);
}

Value Evaluator::Impl::jsonValue(const std::vector<JsonReader::Node>& nodes, size_t index,
                                 const Value& text, Origin site)
{
    using Json = JsonReader::Node::Kind;
    const JsonReader::Node& node = nodes[index];
    const Origin origin = text.sourceOf(node.begin, node.end - node.begin).value_or(site);
    switch (node.kind) {
    case Json::Null: {
        ValueData& d = fresh(ValueKind::Null);
        d.origin = origin;
        return wrap(d);
    }
    case Json::Bool: {
        ValueData& d = fresh(ValueKind::Bool);
        d.boolean = node.boolean;
        d.origin = origin;
        return wrap(d);
    }
    case Json::Int:
        return integer(node.integer, origin);
    case Json::Float:
        return floating(node.number, origin);
    case Json::String: {
        Text out;
        out.text = node.text;
        // An escape makes the text differ from its bytes: then nothing maps.
        if (!node.escaped)
            if (auto inner = text.sourceOf(node.begin + 1, node.text.size()))
                out.addPiece({0, node.text.size(), inner->file, inner->range.begin});
        return string(std::move(out), origin);
    }
    case Json::Array: {
        std::vector<Thunk*> elements;
        elements.reserve(node.size);
        for (size_t i = 0, child = index + 1; i < node.size; ++i, child = nodes[child].next)
            elements.push_back(ready(jsonValue(nodes, child, text, site)));
        return list(std::move(elements), origin);
    }
    case Json::Object:
        return jsonObject(nodes, index, text, site, origin);
    }
    return error("fromJSON");
}

Value Evaluator::Impl::jsonObject(const std::vector<JsonReader::Node>& nodes, size_t index,
                                  const Value& text, Origin site, Origin origin)
{
    std::vector<Slot> slots;
    slots.reserve(nodes[index].size);
    for (size_t i = 0, child = index + 1; i < nodes[index].size; ++i, child = nodes[child].next) {
        const JsonReader::Node& member = nodes[child];
        const std::string_view name = intern(member.key);
        BindingStep step;
        if (!member.keyEscaped)
            if (auto key = text.sourceOf(member.keyBegin, member.keyEnd - member.keyBegin))
                step = {name, key->file, key->range};
        slots.push_back({name, ready(jsonValue(nodes, child, text, site)), step});
    }
    // A name written twice takes its last value, as in Nix.
    std::stable_sort(slots.begin(), slots.end(),
                     [](const Slot& a, const Slot& b) { return a.name < b.name; });
    std::vector<Slot> unique;
    unique.reserve(slots.size());
    for (size_t i = 0; i < slots.size(); ++i)
        if (i + 1 == slots.size() || slots[i + 1].name != slots[i].name)
            unique.push_back(slots[i]);
    return set(std::move(unique), std::nullopt, origin);
}

bool Evaluator::Impl::importsLib(const Value& target)
{
    const ValueData& d = data(target);
    if (d.hasPath && d.text.starts_with("<") && d.text.ends_with("/lib>"))
        return true;
    if (d.partsKind != PartsKind::String || d.parts.size() < 2 ||
        d.parts[d.parts.size() - 2].isKnown() || d.parts.back().kind() != ValueKind::String)
        return false;
    const std::string& text = data(d.parts.back()).text;
    return text == "/lib" || text == "/lib/" || text == "/lib/default.nix";
}

Value Evaluator::Impl::import(const Value& target, std::string_view path)
{
    if (target.isUnknown()) {
        // What `import (fetchTarball …)` gives comes from outside, whatever it depends on.
        // `import (nixpkgs + "/lib")` is nixpkgs' lib, named so that its functions are
        // recognised (see nativeFor).
        ValueData& d = newDependent(target, "imports", importsLib(target) ? "lib" : callPath(path));
        if (d.cause == Cause::Dependent)
            d.cause = Cause::External;
        return wrap(d);
    }
    const ValueData& d = data(target);
    if (d.kind != ValueKind::Path)
        return error("import of " + std::string(kindName(d.kind)));
    if (!loader)
        return unknown(Cause::Unavailable, "no loader for " + d.text);
    const std::string id = loader->resolve(fileId(d.file), d.text);
    if (id.empty())
        return unknown(Cause::Unavailable, "cannot load " + d.text);
    auto known = fileIndex.find(id);
    uint32_t index = known == fileIndex.end() ? UINT32_MAX : known->second;
    if (known == fileIndex.end()) {
        const SyntaxTree* tree = loader->load(id);
        if (tree && tree->root()) {
            index = addFile(id, tree);
        } else {
            fileIndex.emplace(id, UINT32_MAX);
        }
    }
    if (index == UINT32_MAX)
        return unknown(Cause::Unavailable, "cannot read " + id);
    Thunk* root = files[index].root;
    if (root->state == Thunk::State::Forcing)
        return unknown(Cause::Cycle, "import cycle through " + id);
    return force(root);
}

Value Evaluator::Impl::nativeImport(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    return import(force(args[0]), path);
}

Value Evaluator::Impl::nativeCallPackage(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    Value function = force(args[0]);
    if (function.kind() == ValueKind::Path) {
        function = import(function, "import");
        if (function.isUnknown())
            return function; // why the module is not there says more than the call
    }
    if (function.isUnknown())
        return unknownCall(path, function);
    if (function.kind() != ValueKind::Function)
        return function; // callPackage of a file that is no function: Nix fails
    const uint32_t file = fileOf(origin);
    return apply(function, args[1], file, origin.range);
}

Value Evaluator::Impl::nativeReadFile(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    return readFile(force(args[0]), path);
}

Value Evaluator::Impl::nativeFromJson(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    return fromJson(force(args[0]), origin, path);
}

Value Evaluator::Impl::nativeImportJson(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    // nixpkgs' lib.importJSON: builtins.fromJSON (builtins.readFile path).
    const Value text = readFile(force(args[0]), path);
    return text.isUnknown() ? text : fromJson(text, origin, path);
}

Value Evaluator::Impl::baseNameOf(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value target = force(args[0]);
    if (target.isUnknown())
        return unknownCall(path, target);
    const ValueData& d = data(target);
    if (d.kind != ValueKind::String && d.kind != ValueKind::Path)
        return error(std::string(path) + ": " + kindName(d.kind) + " is not a path");
    const auto [begin, length] = baseNameRange(d.text);
    const std::string_view name = std::string_view(d.text).substr(begin, length);
    if (d.kind == ValueKind::Path && (name == "." || name == ".."))
        return unknown(Cause::Unsupported, "the name of a directory a path leads out to");
    return substring(target, begin, length);
}

Value Evaluator::Impl::dirOf(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value target = force(args[0]);
    if (target.isUnknown())
        return unknownCall(path, target);
    const ValueData& d = data(target);
    if (d.kind == ValueKind::String) {
        const size_t slash = d.text.rfind('/');
        if (slash != std::string::npos)
            return substring(target, 0, std::max<size_t>(slash, 1));
        Text dot;
        dot.text = ".";
        return string(std::move(dot), origin);
    }
    if (d.kind != ValueKind::Path)
        return error(std::string(path) + ": " + kindName(d.kind) + " is not a path");
    ValueData& parent = fresh(ValueKind::Path);
    parent.text = d.text == "/" ? d.text : normalisePath(d.text + "/..");
    parent.file = d.file;
    parent.origin = origin;
    if (d.text.starts_with(parent.text)) {
        Text prefix;
        prefix.append(d.text, d.pieces, 0, parent.text.size());
        parent.pieces = std::move(prefix.pieces);
    }
    return wrap(parent);
}

} // namespace rg::nix

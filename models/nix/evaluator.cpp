#include "nix/evaluatorimpl.h"

#include <charconv>

namespace rg::nix {

namespace {

// Where the decoded characters of a literal run are its source bytes. A "…" run differs from
// its source only at escapes (and \r\n); an indented run only by indentation removed at line
// starts and a dropped last blank line, so it is aligned from the end.
void literalPieces(std::string_view raw, std::string_view decoded, bool indented, uint32_t source,
                   std::string_view file, size_t offset, Text& out)
{
    if (raw == decoded) {
        out.addPiece({offset, decoded.size(), file, source});
        return;
    }
    std::vector<StringPiece> runs;
    if (!indented) {
        size_t i = 0, j = 0;
        bool open = false;
        while (i < raw.size() && j < decoded.size()) {
            if (raw[i] == '\\' || raw[i] == '\r') {
                open = false;
                i += raw[i] == '\\' ? 2 : (i + 1 < raw.size() && raw[i + 1] == '\n' ? 2 : 1);
                ++j;
                continue;
            }
            if (raw[i] != decoded[j])
                break;
            if (!open)
                runs.push_back({offset + j, 0, file, static_cast<uint32_t>(source + i)});
            open = true;
            ++runs.back().length;
            ++i;
            ++j;
        }
    } else {
        if (raw.substr(0, 2) == "''")
            return; // an escape: ''$, ''' or ''\x
        size_t i = raw.size(), j = decoded.size();
        while (i > 0 && j > 0) {
            if (raw[i - 1] != decoded[j - 1]) {
                --i;
                continue;
            }
            size_t length = 0;
            while (length < i && length < j && raw[i - 1 - length] == decoded[j - 1 - length])
                ++length;
            i -= length;
            j -= length;
            runs.push_back({offset + j, length, file, static_cast<uint32_t>(source + i)});
        }
        if (j > 0)
            return;
        std::reverse(runs.begin(), runs.end());
    }
    for (const StringPiece& run : runs)
        out.addPiece(run);
}

} // namespace

Evaluator::Evaluator(const SyntaxTree& tree, std::string fileId, ModuleLoader* loader)
    : Evaluator(tree, std::move(fileId), loader, Limits{})
{}

Evaluator::Evaluator(const SyntaxTree& tree, std::string fileId, ModuleLoader* loader,
                     Limits limits)
    : d(std::make_unique<Impl>(*this, tree, std::move(fileId), loader, limits))
{}

Evaluator::~Evaluator() = default;

Value Evaluator::root()
{
    Impl::Entry entry(*d);
    return d->force(d->files.front().root);
}

Value Evaluator::evaluate(const Node& node)
{
    Impl::Entry entry(*d);
    return d->evaluateIn(0, node);
}

Value Evaluator::evaluateApplied(std::string_view moduleId, const Value& argument, const Node& node)
{
    return evaluateApplied(moduleId, std::span<const Value>(&argument, 1), node);
}

Value Evaluator::evaluateApplied(std::string_view moduleId, std::span<const Value> arguments,
                                 const Node& node)
{
    Impl::Entry entry(*d);
    return d->evaluateApplied(std::string(moduleId), arguments, node);
}

Value Evaluator::overridden(const Value& arguments, const Value& overrides)
{
    Impl::Entry entry(*d);
    const Origin origin = overrides.origin();
    Value right = overrides;
    if (overrides.kind() == Value::Kind::Function)
        right = d->apply(overrides, d->ready(arguments), d->fileOf(origin), origin.range);
    return d->update(arguments, right, origin);
}

const std::string& Evaluator::fileId() const
{
    return d->files.front().id;
}

const Evaluator::Limits& Evaluator::limits() const
{
    return d->limits;
}

Value Evaluator::attributeOf(const Value& set, std::string_view name, bool& present)
{
    Impl::Entry entry(*d);
    Impl::Selected selected = d->selectAttr(set, name);
    present = selected.status != Impl::Selected::Missing;
    return selected.value;
}

Value Evaluator::elementOf(const Value& list, size_t index)
{
    Impl::Entry entry(*d);
    return d->elementValue(list, index);
}

std::optional<Origin> Evaluator::elementExpressionOf(const Value& list, size_t index) const
{
    const detail::Thunk* thunk = Impl::data(list).elements[index];
    if (thunk->mode != detail::Thunk::Mode::Expr || !thunk->node || !thunk->env)
        return std::nullopt;
    return d->originAt(thunk->env->file, thunk->node->range);
}

std::string_view Evaluator::fileIdOf(uint32_t file) const
{
    return d->fileId(file);
}

Evaluator::Impl::Impl(Evaluator& self, const SyntaxTree& tree, std::string fileId,
                      ModuleLoader* loader, Limits limits)
    : self(self), loader(loader), limits(limits)
{
    addFile(std::move(fileId), &tree);
}

Value Evaluator::Impl::eval(const Node* node, const Env* env)
{
    if (!node || !env)
        return error("missing expression");
    if (!spend())
        return exhaustion();
    DepthGuard guard(*this);
    if (guard.tooDeep)
        return unknown(Cause::Limit, "evaluation nested too deeply");
    const uint32_t file = env->file;
    const Origin origin = originAt(file, node->range);
    switch (node->kind) {
    case NodeKind::Int:
    case NodeKind::Float:
        return evalNumber(*node, origin);
    case NodeKind::String:
    case NodeKind::IndentedString:
        return evalString(*node, env);
    case NodeKind::StringText:
        return literalRun(*node, false, file);
    case NodeKind::Interpolation:
        return eval(node->interpolated(), env);
    case NodeKind::Path:
        return evalPath(*node, env);
    case NodeKind::SearchPath:
        return external("<" + std::string(node->text) + ">");
    case NodeKind::Uri: {
        Text text;
        text.text = std::string(node->text);
        text.addPiece({0, text.text.size(), fileId(file), node->range.begin});
        return string(std::move(text), origin);
    }
    case NodeKind::Identifier:
        // Nix's parser makes every `__curPos` a position: no binding can shadow it.
        if (node->text == "__curPos")
            return curPos(file, node->range);
        return lookup(node->text, env, node);
    case NodeKind::Select:
        return evalSelect(*node, env);
    case NodeKind::HasAttr:
        return evalHasAttr(*node, env);
    case NodeKind::AttrSet:
        return node->isRec() ? recSet(*node, env) : plainSet(*node, env);
    case NodeKind::Let:
        return eval(node->letBody(), letEnv(*node, env));
    case NodeKind::LegacyLet: {
        const Selected body = selectAttr(recSet(*node, env), "body");
        return body.status == Selected::Missing ? error("let { … } without body") : body.value;
    }
    case NodeKind::With:
        return eval(node->withBody(), withEnv(*node, env));
    case NodeKind::Assert: {
        const Value condition = eval(node->condition(), env);
        if (condition.asBool() == false)
            return error("assertion failed");
        return eval(node->assertBody(), env);
    }
    case NodeKind::If:
        return evalIf(*node, env);
    case NodeKind::Lambda: {
        ValueData& d = fresh(ValueKind::Function);
        d.lambda = node;
        d.env = env;
        d.origin = origin;
        return wrap(d);
    }
    case NodeKind::Apply:
        return apply(eval(node->function(), env), thunkFor(node->argument(), env), file,
                     node->range);
    case NodeKind::List:
        return evalList(*node, env, origin);
    case NodeKind::Not:
        return evalNot(*node, env);
    case NodeKind::Negate:
        return evalNegate(*node, env, origin);
    case NodeKind::Binary:
        return evalBinary(*node, env);
    default:
        return unknown(Cause::Unsupported, "not an expression");
    }
}

Value Evaluator::Impl::evalNumber(const Node& node, Origin origin)
{
    const std::string_view text = node.text;
    if (node.kind == NodeKind::Int) {
        int64_t value = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size())
            return error("integer literal out of range");
        return integer(value, origin);
    }
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc())
        return error("float literal out of range");
    return floating(value, origin);
}

Value Evaluator::Impl::evalIf(const Node& node, const Env* env)
{
    const Value condition = eval(node.condition(), env);
    if (auto value = condition.asBool())
        return eval(*value ? node.thenBranch() : node.elseBranch(), env);
    if (condition.isUnknown())
        return dependent(condition, "the condition is not known");
    return error("the condition is " + std::string(kindName(condition.kind())));
}

Value Evaluator::Impl::evalList(const Node& node, const Env* env, Origin origin)
{
    if (node.elements().size() > limits.elements)
        return tooLarge("list");
    std::vector<Thunk*> elements;
    elements.reserve(node.elements().size());
    for (const Node* element : node.elements())
        elements.push_back(thunkFor(element, env));
    return list(std::move(elements), origin);
}

Value Evaluator::Impl::evalNot(const Node& node, const Env* env)
{
    const Value operand = eval(node.operand(), env);
    if (auto value = operand.asBool())
        return boolean(!*value, env->file, node.range);
    return operand.isUnknown() ? dependent(operand, "negates an unknown")
                               : error("! of " + std::string(kindName(operand.kind())));
}

Value Evaluator::Impl::evalNegate(const Node& node, const Env* env, Origin origin)
{
    const Value operand = eval(node.operand(), env);
    if (auto value = operand.asInt()) {
        if (*value == INT64_MIN)
            return error("integer overflow");
        return integer(-*value, origin);
    }
    if (auto value = operand.asFloat())
        return floating(-*value, origin);
    return operand.isUnknown() ? dependent(operand, "negates an unknown")
                               : error("- of " + std::string(kindName(operand.kind())));
}

Value Evaluator::Impl::interpolated(const Value& value)
{
    switch (value.kind()) {
    case ValueKind::String:
    case ValueKind::Unknown:
        return value;
    case ValueKind::Path:
        return unknown(Cause::Unsupported, "a path in a string is copied to the Nix store");
    case ValueKind::AttrSet:
        return unknown(Cause::Unsupported, "a set in a string is its outPath (a store path)");
    default:
        return error(std::string("cannot coerce ") + kindName(value.kind()) + " to a string");
    }
}

Value Evaluator::Impl::literalRun(const Node& node, bool indented, uint32_t file)
{
    Text text;
    text.text = std::string(node.text);
    literalPieces(files[file].tree->text(node.range), node.text, indented, node.range.begin,
                  fileId(file), 0, text);
    return string(std::move(text), originAt(file, node.range));
}

Value Evaluator::Impl::evalString(const Node& node, const Env* env)
{
    const uint32_t file = env->file;
    const std::string_view source = files[file].tree->source();
    Concat out(*this, PartsKind::String, originAt(file, node.range));
    for (const Node* part : node.parts()) {
        if (part->kind == NodeKind::StringText) {
            const size_t offset = out.known.text.size();
            out.known.text += part->text;
            literalPieces(source.substr(part->range.begin, part->range.length()), part->text,
                          node.kind == NodeKind::IndentedString, part->range.begin, fileId(file),
                          offset, out.known);
        } else {
            const Value value = interpolated(eval(part->interpolated(), env));
            if (value.cause() == Cause::Error || value.cause() == Cause::Limit)
                return value;
            out.add(value);
        }
        if (out.tooLarge())
            return tooLarge("string");
    }
    return out.finish();
}

Value Evaluator::Impl::evalPath(const Node& node, const Env* env)
{
    const uint32_t file = env->file;
    std::string text;
    for (const Node* part : node.parts()) {
        if (part->kind == NodeKind::StringText) {
            text += part->text;
            continue;
        }
        const Value value = eval(part->interpolated(), env);
        if (value.isUnknown())
            return dependent(value, "a path with an unknown part");
        if (value.kind() != ValueKind::String)
            return error(std::string("a path interpolates ") + kindName(value.kind()));
        text += data(value).text;
        if (text.size() > limits.stringBytes)
            return tooLarge("path");
    }
    ValueData& d = fresh(ValueKind::Path);
    d.text = normalisePath(text);
    d.file = file;
    d.origin = originAt(file, node.range);
    if (d.text == node.text)
        d.pieces.push_back({0, d.text.size(), fileId(file), node.range.begin});
    return wrap(d);
}

Value Evaluator::Impl::curPos(uint32_t file, SourceRange range)
{
    const std::string_view source = files[file].tree->source();
    const std::string_view before = source.substr(0, std::min<size_t>(range.begin, source.size()));
    const size_t newline = before.rfind('\n');
    const size_t lineStart = newline == std::string_view::npos ? 0 : newline + 1;
    const Origin origin = originAt(file, range);
    Text name;
    name.text = fileId(file); // in no source: no pieces
    std::vector<Slot> slots{
        {intern("column"), ready(integer(int64_t(before.size() - lineStart + 1), origin)), {}},
        {intern("file"), ready(string(std::move(name), origin)), {}},
        {intern("line"),
         ready(integer(int64_t(1 + std::count(before.begin(), before.end(), '\n')), origin)),
         {}},
    };
    return set(std::move(slots), std::nullopt, origin);
}

} // namespace rg::nix

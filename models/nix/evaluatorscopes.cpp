#include "nix/evaluatorimpl.h"
#include "nix/symboltable.h"

namespace rg::nix {

namespace {

const SymbolTable& baseNames()
{
    static const SymbolTable symbols;
    return symbols;
}

} // namespace

uint32_t Evaluator::Impl::addFile(std::string id, const SyntaxTree* tree)
{
    const auto index = static_cast<uint32_t>(files.size());
    File& file = files.emplace_back();
    file.id = std::move(id);
    file.tree = tree;
    file.base.file = index;
    file.root =
        tree->root() ? thunkFor(tree->root(), &file.base) : ready(error("the file does not parse"));
    fileIndex.emplace(file.id, index);
    return index;
}

Thunk* Evaluator::Impl::thunkFor(const Node* node, const Env* env)
{
    if (!node)
        return ready(error("missing expression"));
    auto [it, inserted] = thunkMemo.try_emplace(Key{node, env}, nullptr);
    if (inserted) {
        Thunk& thunk = newThunk(Thunk::Mode::Expr);
        thunk.node = node;
        thunk.env = env;
        it->second = &thunk;
    }
    return it->second;
}

Thunk* Evaluator::Impl::attrThunk(Thunk* base, std::string_view name, Thunk* otherwise,
                                  bool missingIsFree)
{
    Thunk& thunk = newThunk(Thunk::Mode::Attr);
    thunk.base = base;
    thunk.name = name;
    thunk.otherwise = otherwise;
    thunk.missingIsFree = missingIsFree;
    return &thunk;
}

Thunk* Evaluator::Impl::inheritThunk(const Node* nameNode, std::string_view name, const Env* env)
{
    Thunk& thunk = newThunk(Thunk::Mode::Inherit);
    thunk.node = nameNode;
    thunk.name = name;
    thunk.env = env;
    return &thunk;
}

Thunk* Evaluator::Impl::applyThunk(const Value& function, Thunk* argument, uint32_t file,
                                   SourceRange site)
{
    Thunk& thunk = newThunk(Thunk::Mode::Apply);
    thunk.function = function;
    thunk.base = argument;
    thunk.siteFile = file;
    thunk.site = site;
    return &thunk;
}

Thunk* Evaluator::Impl::callThunk(const Value& function, Thunk* first, Thunk* second, uint32_t file,
                                  SourceRange site)
{
    Thunk& thunk = newThunk(Thunk::Mode::Call);
    thunk.function = function;
    thunk.base = first;
    thunk.otherwise = second;
    thunk.siteFile = file;
    thunk.site = site;
    return &thunk;
}

Value Evaluator::Impl::force(Thunk* thunk)
{
    if (thunk->state == Thunk::State::Done)
        return thunk->value;
    if (thunk->state == Thunk::State::Forcing)
        return unknown(Cause::Cycle, "infinite recursion");
    if (exhausted)
        return exhaustion(); // not memoised: this thunk itself was never tried
    thunk->state = Thunk::State::Forcing;
    Value value;
    switch (thunk->mode) {
    case Thunk::Mode::Expr:
        value = eval(thunk->node, thunk->env);
        break;
    case Thunk::Mode::Inherit:
        value = lookup(thunk->name, thunk->env, thunk->node);
        break;
    case Thunk::Mode::Attr:
        value = forceAttr(*thunk);
        break;
    case Thunk::Mode::Apply:
        value = apply(thunk->function, thunk->base, thunk->siteFile, thunk->site);
        break;
    case Thunk::Mode::Call:
        value = callTwo(*thunk);
        break;
    case Thunk::Mode::Ready:
        value = thunk->value;
        break;
    }
    thunk->value = value;
    thunk->state = Thunk::State::Done;
    return value;
}

Value Evaluator::Impl::forceAttr(const Thunk& thunk)
{
    const Selected selected = selectAttr(force(thunk.base), thunk.name);
    switch (selected.status) {
    case Selected::Found:
        return selected.value;
    case Selected::Missing:
        if (thunk.otherwise)
            return force(thunk.otherwise);
        if (thunk.missingIsFree)
            return external(thunk.name);
        return error("attribute '" + std::string(thunk.name) + "' missing");
    case Selected::Uncertain:
        break;
    }
    if (thunk.otherwise && selected.value.isUnknown())
        return withFallback(selected.value, force(thunk.otherwise));
    return selected.value;
}

Value Evaluator::Impl::callTwo(const Thunk& thunk)
{
    const Value partial = apply(thunk.function, thunk.base, thunk.siteFile, thunk.site);
    return apply(partial, thunk.otherwise, thunk.siteFile, thunk.site);
}

Env& Evaluator::Impl::newEnv(const Env* parent, uint32_t file)
{
    Env& env = envs.emplace_back();
    env.parent = parent;
    env.file = file;
    return env;
}

SourceRange Evaluator::Impl::rangeOf(uint32_t file, std::string_view text) const
{
    const std::string_view source = files[file].tree->source();
    if (text.data() < source.data() || text.data() + text.size() > source.data() + source.size())
        return {};
    const auto begin = static_cast<uint32_t>(text.data() - source.data());
    return {begin, static_cast<uint32_t>(begin + text.size())};
}

const Env* Evaluator::Impl::letEnv(const Node& owner, const Env* outer)
{
    auto [it, inserted] = envMemo.try_emplace(Key{&owner, outer}, nullptr);
    if (!inserted)
        return it->second;
    Env& env = newEnv(outer, outer->file);
    env.renames = true;
    it->second = &env;
    Builder builder;
    // `inherit x;` takes x from outside, not from the scope itself.
    collect(owner.bindings(), &env, outer, builder);
    env.unknownNames = builder.unknownNames;
    env.slots = finish(builder, env.file);
    return &env;
}

const Env* Evaluator::Impl::recEnv(const Node& node, const Env* outer)
{
    return letEnv(node, outer);
}

const Env* Evaluator::Impl::withEnv(const Node& with, const Env* outer)
{
    auto [it, inserted] = envMemo.try_emplace(Key{&with, outer}, nullptr);
    if (!inserted)
        return it->second;
    Env& env = newEnv(outer, outer->file);
    env.with = thunkFor(with.withScope(), outer);
    it->second = &env;
    return &env;
}

void Evaluator::Impl::bindLambda(const Node& lambda, Env& env, Thunk* arg)
{
    const uint32_t file = env.file;
    std::vector<Slot> slots;
    if (!lambda.text.empty())
        slots.push_back({lambda.text,
                         arg ? arg : ready(external(lambda.text)),
                         {lambda.text, fileId(file), rangeOf(file, lambda.text)}});
    if (const Node* formals = lambda.lambdaFormals())
        for (const Node* formal : formals->formals()) {
            const Node* fallback = formal->formalDefault();
            Thunk* otherwise = fallback ? thunkFor(fallback, &env) : nullptr;
            Thunk* thunk = arg         ? attrThunk(arg, formal->text, otherwise, true)
                           : otherwise ? otherwise
                                       : ready(external(formal->text));
            const SourceRange key{formal->range.begin,
                                  static_cast<uint32_t>(formal->range.begin + formal->text.size())};
            slots.push_back({formal->text, thunk, {formal->text, fileId(file), key}});
        }
    std::sort(slots.begin(), slots.end(),
              [](const Slot& a, const Slot& b) { return a.name < b.name; });
    env.slots = std::move(slots);
}

const Env* Evaluator::Impl::staticLambdaEnv(const Node& lambda, const Env* outer, Thunk* argument)
{
    const void* by = argument ? static_cast<const void*>(argument) : outer;
    auto [it, inserted] = envMemo.try_emplace(Key{&lambda, by}, nullptr);
    if (!inserted)
        return it->second;
    Env& env = newEnv(outer, outer->file);
    it->second = &env;
    bindLambda(lambda, env, argument);
    return &env;
}

Value Evaluator::Impl::refer(const Slot& slot, const Env& env)
{
    Value value = force(slot.thunk);
    const ValueData& d = data(value);
    // `nixpkgs_pinned = import (…) {…};` is better known by its name than as import(...).
    if (env.renames && d.kind == ValueKind::Unknown && d.hasPath && endsWith(d.text, ")")) {
        auto [it, inserted] = renamed.try_emplace(Key{value.m_data, slot.name.data()}, nullptr);
        if (inserted) {
            ValueData& copy = copyOf(d);
            copy.text = std::string(slot.name);
            it->second = &copy;
        }
        value = wrap(it->second, value.m_chain);
    }
    return rechain(value, extend(value.m_chain, slot.step));
}

Value Evaluator::Impl::forceSlot(const Slot& slot, const Value& container)
{
    const Value value = force(slot.thunk);
    return rechain(value, join(extend(value.m_chain, slot.step), container.m_chain));
}

std::optional<Value> Evaluator::Impl::baseValue(std::string_view name, const Node* at,
                                                uint32_t file)
{
    const SourceRange range = at ? at->range : SourceRange{};
    if (name == "true" || name == "false")
        return boolean(name == "true", file, range);
    if (name == "null") {
        ValueData& d = fresh(ValueKind::Null);
        d.origin = originAt(file, range);
        return wrap(d);
    }
    if (name == "map")
        return nativeFunction(static_cast<int>(Native::Map), "map");
    if (name == "toString")
        return nativeFunction(static_cast<int>(Native::ToString), "toString");
    if (name == "import")
        return nativeFunction(static_cast<int>(Native::Import), "import");
    if (baseNames().isBaseName(name)) {
        // baseNameOf and dirOf are builtins.baseNameOf and builtins.dirOf, `__elemAt` is
        // builtins.elemAt, and so on.
        const std::string_view builtin = name.starts_with("__")                    ? name.substr(2)
                                         : name == "baseNameOf" || name == "dirOf" ? name
                                                                                   : "";
        const int native = builtin.empty() ? -1 : nativeFor("builtins." + std::string(builtin));
        if (native >= 0 && natives[native].inBuiltins)
            return nativeFunction(native, name);
        return external(name);
    }
    return std::nullopt;
}

Value Evaluator::Impl::lookup(std::string_view name, const Env* env, const Node* at)
{
    for (const Env* e = env; e; e = e->parent)
        if (!e->with)
            if (const Slot* slot = findSlot(e->slots, name))
                return refer(*slot, *e);
    if (auto value = baseValue(name, at, env->file))
        return *value;
    // Lexical bindings (and Nix's own names) win over `with`; the innermost `with` that
    // has the name, or that cannot tell, decides.
    for (const Env* e = env; e; e = e->parent) {
        if (!e->with)
            continue;
        const Value scope = force(e->with);
        if (scope.isUnknown()) {
            const Value found = selectUnknown(scope, name);
            return data(scope).hasPath ? found : dependent(scope, "found through `with`");
        }
        if (scope.kind() != ValueKind::AttrSet)
            continue; // Nix would fail; look further out
        const ValueData& d = data(scope);
        if (const Slot* slot = findSlot(d.attributes, name))
            return forceSlot(*slot, scope);
        if (d.rest)
            return selectUnknown(*d.rest, name);
    }
    return external(name);
}

} // namespace rg::nix

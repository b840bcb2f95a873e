#include "nix/evaluatorimpl.h"

namespace rg::nix {

namespace detail {

std::string callPath(std::string_view path)
{
    return endsWith(path, "(...)") ? std::string(path) : std::string(path) + "(...)";
}

} // namespace detail

namespace {

// lib.strings.concatStringsSep is lib.concatStringsSep, and so on.
constexpr std::string_view kLibSections[] = {"strings", "lists", "versions", "attrsets", "trivial"};

// "a.b(...).c" → a, b(...), c: dots inside a call's parentheses do not separate.
std::vector<std::string_view> pathSegments(std::string_view path)
{
    std::vector<std::string_view> segments;
    int parens = 0;
    size_t start = 0;
    for (size_t i = 0; i < path.size(); ++i) {
        if (path[i] == '(')
            ++parens;
        else if (path[i] == ')')
            parens = std::max(0, parens - 1);
        else if (path[i] == '.' && parens == 0) {
            segments.push_back(path.substr(start, i - start));
            start = i + 1;
        }
    }
    segments.push_back(path.substr(start));
    return segments;
}

} // namespace

// Names, arities and where each is found (nixpkgs' lib, builtins), in Native's order.
const Evaluator::Impl::NativeInfo Evaluator::Impl::natives[] = {
    {"optionals", 2, true, false, &Impl::nativeOptional},
    {"optional", 2, true, false, &Impl::nativeOptional},
    {"optionalString", 2, true, false, &Impl::nativeOptional},
    {"optionalAttrs", 2, true, false, &Impl::nativeOptional},
    {"concatStringsSep", 2, true, true, &Impl::nativeConcatStringsSep},
    {"concatMapStringsSep", 3, true, false, &Impl::nativeConcatStringsSep},
    {"removePrefix", 2, true, false, &Impl::nativeRemoveAffix},
    {"removeSuffix", 2, true, false, &Impl::nativeRemoveAffix},
    {"toString", 1, true, true, &Impl::nativeToString},
    {"majorMinor", 1, true, false, &Impl::nativeMajorMinor},
    {"replaceStrings", 3, true, true, &Impl::nativeReplaceStrings},
    {"substring", 3, true, true, &Impl::nativeSubstring},
    {"escapeShellArg", 1, true, false, &Impl::nativeEscapeShellArg},
    {"map", 2, true, true, &Impl::nativeMap},
    {"import", 1, false, true, &Impl::nativeImport},
    {"callPackage", 2, false, false, &Impl::nativeCallPackage},
    {"readFile", 1, false, true, &Impl::nativeReadFile},
    {"fromJSON", 1, false, true, &Impl::nativeFromJson},
    {"importJSON", 1, true, false, &Impl::nativeImportJson},
    {"match", 2, false, true, &Impl::nativeMatch},
    {"splitString", 2, true, false, &Impl::nativeSplitString},
    {"elemAt", 2, true, true, &Impl::listAccess},
    {"head", 1, true, true, &Impl::listAccess},
    {"tail", 1, true, true, &Impl::listAccess},
    {"last", 1, true, false, &Impl::listAccess},
    {"length", 1, true, true, &Impl::listAccess},
    {"stringLength", 1, true, true, &Impl::stringLength},
    {"baseNameOf", 1, false, true, &Impl::baseNameOf},
    {"dirOf", 1, false, true, &Impl::dirOf},
    {"foldl'", 3, true, true, &Impl::fold},
    {"foldl", 3, true, false, &Impl::fold},
    {"foldr", 3, true, false, &Impl::fold},
    {"recursiveUpdate", 2, true, false, &Impl::recursiveUpdate},
    {"mapAttrs", 2, true, true, &Impl::mapAttrs},
    {"attrNames", 1, true, true, &Impl::attrNamesOrValues},
    {"attrValues", 1, true, true, &Impl::attrNamesOrValues},
    {"genAttrs", 2, true, false, &Impl::genAttrs},
    {"concatMap", 2, true, true, &Impl::concatMap},
    {"filter", 2, true, true, &Impl::filter},
    {"elem", 2, true, true, &Impl::elem},
    {"flatten", 1, true, false, &Impl::nativeFlatten},
    {"getAttr", 2, true, true, &Impl::getOrHasAttr},
    {"hasAttr", 2, true, true, &Impl::getOrHasAttr},
    {"listToAttrs", 1, true, true, &Impl::nativeListToAttrs},
    {"nameValuePair", 2, true, false, &Impl::nativeNameValuePair},
    {"isString", 1, true, true, &Impl::typeTest},
    {"isAttrs", 1, true, true, &Impl::typeTest},
    {"isList", 1, true, true, &Impl::typeTest},
    {"isFunction", 1, true, true, &Impl::typeTest},
    {"isBool", 1, true, true, &Impl::typeTest},
    {"isInt", 1, true, true, &Impl::typeTest},
    {"isFloat", 1, false, true, &Impl::typeTest},
    {"isPath", 1, true, true, &Impl::typeTest},
    {"mapAttrs'", 2, true, false, &Impl::mapAttrsPrime},
    {"cartesianProduct", 1, true, false, &Impl::cartesianProduct},
    {"(recursiveUpdate of an attribute)", 2, false, false, &Impl::recursiveMerge},
};

int Evaluator::Impl::nativeFor(std::string_view path)
{
    const auto segments = pathSegments(path);
    if (segments.back() == "callPackage")
        return static_cast<int>(Native::CallPackage);
    size_t root = segments.size();
    for (size_t i = segments.size(); i-- > 0;)
        if (segments[i] == "lib" || segments[i] == "builtins") {
            root = i;
            break;
        }
    if (root == segments.size())
        return -1;
    const bool lib = segments[root] == "lib";
    const size_t rest = segments.size() - root - 1;
    if (rest == 2 && (!lib || std::find(std::begin(kLibSections), std::end(kLibSections),
                                        segments[root + 1]) == std::end(kLibSections)))
        return -1;
    if (rest != 1 && rest != 2)
        return -1;
    for (size_t i = 0; i < std::size(natives); ++i)
        if (natives[i].name == segments.back() && (lib ? natives[i].inLib : natives[i].inBuiltins))
            return static_cast<int>(i);
    return -1;
}

bool Evaluator::Impl::fromLib(std::string_view path)
{
    const auto segments = pathSegments(path);
    for (size_t i = segments.size(); i-- > 0;)
        if (segments[i] == "lib" || segments[i] == "builtins")
            return segments[i] == "lib";
    return false;
}

Value Evaluator::Impl::apply(const Value& function, Thunk* argument, uint32_t file,
                             SourceRange site)
{
    const ValueData& f = data(function);
    if (function.isUnknown()) {
        if (f.text == "throw" || f.text == "abort" || f.text == "builtins.throw" ||
            f.text == "builtins.abort") {
            // `else throw "unsupported GPU"`: the message says why Nix would stop.
            const Value message = force(argument);
            return error(f.text + (message.asString() ? " " + *message.asString() : ""));
        }
        if (f.hasPath)
            return unknown(f.cause == Cause::External ? Cause::External : Cause::Dependent,
                           "the result of calling " + f.text, callPath(f.text));
        return dependent(function, "calls an unknown function");
    }
    if (f.kind == ValueKind::AttrSet && findSlot(f.attributes, "__functor"))
        return unknown(Cause::Unsupported, "calls a set with __functor");
    if (f.kind != ValueKind::Function)
        return error(std::string("calls ") + kindName(f.kind) + ", which is not a function");
    if (f.lambda) {
        Env& env = newEnv(f.env, f.env->file);
        bindLambda(*f.lambda, env, argument);
        return eval(f.lambda->lambdaBody(), &env);
    }
    std::vector<Thunk*> arguments = f.arguments;
    arguments.push_back(argument);
    if (arguments.size() < natives[size_t(f.native)].arity) {
        ValueData& partial = copyOf(f);
        partial.arguments = std::move(arguments);
        partial.origin = originAt(file, site);
        return wrap(partial);
    }
    return runNative(static_cast<Native>(f.native), arguments, originAt(file, site), f.text);
}

Value Evaluator::Impl::runNative(Native native, const std::vector<Thunk*>& args, Origin origin,
                                 std::string_view path)
{
    static_assert(std::size(natives) == kNativeCount);
    // The member pointer is read first: GCC 12's bounds sanitizer checks the index of
    // `(this->*natives[i].run)(…)` against a wrong operand and reports a valid call.
    const NativeRun run = natives[size_t(native)].run;
    return (this->*run)(NativeCall{native, args, origin, path});
}

} // namespace rg::nix

#include "facts/pinreader.h"

#include "facts/pinfetcherreader.h"
#include "facts/syntaxqueries.h"
#include "nix/jsonreader.h"
#include "nix/nixhash.h"

#include <algorithm>

namespace rg {

using nix::Node;
using nix::NodeKind;
using nix::SourceRange;

namespace {

std::optional<PinFetcher> fetcherOf(std::string_view callee)
{
    if (callee == "fetchTarball")
        return PinFetcher::FetchTarball;
    if (callee == "fetchFromGitHub")
        return PinFetcher::FetchFromGitHub;
    if (callee == "fetchGit")
        return PinFetcher::FetchGit;
    if (callee == "fetchurl" || callee == "fetchzip")
        return PinFetcher::FetchUrl;
    if (callee == "fetchTree")
        return PinFetcher::FetchTree;
    if (callee == "getFlake")
        return PinFetcher::GetFlake;
    return std::nullopt;
}

// The revision part of a nixpkgs archive URL: …/nixpkgs/archive/<rev>.tar.gz
std::optional<SourcedText> revisionFromUrl(const SourcedText& url)
{
    const std::string& text = url.text;
    if (text.find("nixpkgs") == std::string::npos)
        return std::nullopt;
    // GitHub serves the same archive as …/archive/<rev>.tar.gz, …/tarball/<rev> (also
    // through api.github.com/repos/…) and codeload's …/tar.gz/<rev>.
    size_t begin = std::string::npos;
    for (std::string_view marker : {"/archive/", "/tarball/", "/tar.gz/"})
        if (const size_t at = text.find(marker); at != std::string::npos) {
            begin = at + marker.size();
            break;
        }
    size_t end = std::min(text.size(), text.find('?'));
    if (begin != std::string::npos) {
        for (std::string_view extension : {".tar.gz", ".tar.xz", ".tar.bz2", ".zip"})
            if (std::string_view(text).substr(0, end).ends_with(extension)) {
                end -= extension.size();
                break;
            }
    } else {
        begin = 0; // a channel URL or similar: the whole URL is the "revision"
    }
    SourcedText result;
    result.append(text, url.pieces, begin, end - begin);
    result.range = url.range;
    return result;
}

// The revision a nixpkgs flake reference names: `github:NixOS/nixpkgs/<rev>`,
// `github:NixOS/nixpkgs?rev=<rev>`, `git+https://github.com/NixOS/nixpkgs?ref=…&rev=<rev>`;
// a URL-like reference (`https://…/archive/<rev>.tar.gz`) reads as a URL.
std::optional<SourcedText> revisionFromFlakeReference(const SourcedText& reference)
{
    const std::string& text = reference.text;
    const size_t colon = text.find(':');
    if (colon == std::string::npos || text.find("nixpkgs") == std::string::npos)
        return std::nullopt;
    const std::string_view scheme = std::string_view(text).substr(0, colon);
    const size_t query = std::min(text.size(), text.find('?'));
    auto slice = [&](size_t begin, size_t end) {
        SourcedText result;
        result.append(text, reference.pieces, begin, end - begin);
        result.range = reference.range;
        return result;
    };
    for (std::string_view key : {"rev=", "ref="})
        for (size_t at = text.find(key, query); at != std::string::npos;
             at = text.find(key, at + 1))
            if (text[at - 1] == '?' || text[at - 1] == '&')
                return slice(at + key.size(), std::min(text.size(), text.find('&', at)));
    if (scheme == "github" || scheme == "gitlab" || scheme == "sourcehut") {
        // owner/repo[/rev-or-ref]
        const std::string_view path = std::string_view(text).substr(colon + 1, query - colon - 1);
        const size_t first = path.find('/');
        const size_t second = first == std::string_view::npos ? first : path.find('/', first + 1);
        if (second == std::string_view::npos)
            return std::nullopt; // unlocked: follows the default branch
        return slice(colon + 1 + second + 1, query);
    }
    if (scheme == "https" || scheme == "http" || scheme == "tarball+https")
        return revisionFromUrl(reference);
    return std::nullopt;
}

} // namespace

PinReader::PinReader(FactContext& context)
    : m_context(context), m_facts(context.facts()), m_walk(context.walked())
{}

void PinReader::readHashes()
{
    for (const BindingRecord& binding : m_walk.bindings()) {
        if (!binding.value || binding.value->kind != NodeKind::String ||
            !nix::NixHash::isHashAttribute(binding.last))
            continue;
        if (auto literal = nix::literalString(*binding.value))
            m_facts.hashes.push_back({binding.last, std::move(*literal), binding.value->range});
    }
}

void PinReader::readPins()
{
    for (const Node* apply : m_walk.applies()) {
        const auto fetcher = fetcherOf(calleeName(*apply));
        if (!fetcher)
            continue;
        // The curried call `f x` is one Apply; only look at the outermost of a chain.
        auto arguments = callArguments(*apply);
        if (arguments.size() != 1 || !arguments[0])
            continue;
        if (auto pin = pinOf(*fetcher, *arguments[0]))
            m_facts.pins.push_back(std::move(*pin));
    }
    std::sort(m_facts.pins.begin(), m_facts.pins.end(),
              [](const PinFact& a, const PinFact& b) { return a.range.begin < b.range.begin; });
    if (m_facts.pins.empty())
        m_facts.pins = pinsOfModules();
    if (m_facts.pins.empty())
        pinsOfNiv();
}

// niv: `sources = import ./nix/sources.nix { };` then `import sources.nixpkgs { … }`.
// niv's sources.nix fetches each entry of the sources.json beside it as a tarball, so the
// entry's "rev" there is the pin (and what `niv update` or a bump rewrites).
void PinReader::pinsOfNiv()
{
    nix::ModuleLoader* modules = m_context.modules();
    if (!modules)
        return;
    for (const Node* apply : m_walk.applies()) {
        const auto arguments = callArguments(*apply);
        if (calleeName(*apply) != "import" || arguments.empty() || !arguments[0] ||
            !isLiteralPath(arguments[0]) || !arguments[0]->text.ends_with("sources.nix"))
            continue;
        const std::string_view path = arguments[0]->text;
        const std::string json = modules->resolveFile(
            m_facts.path, std::string(path.substr(0, path.size() - 3)) + "json");
        const auto text = json.empty() ? std::nullopt : modules->text(json);
        const BindingRecord* holder = nullptr;
        for (const BindingRecord& binding : m_walk.bindings())
            if (binding.value && within(binding.value, apply->range))
                holder = &binding; // the innermost binding around the import
        if (!text || !holder)
            continue;
        const std::string entries(*text); // the reader keeps views into it
        nix::JsonReader reader(16);
        if (!reader.read(entries))
            continue;
        for (const Node* select : m_walk.selects()) {
            const auto names = selectNames(*select);
            if (names.size() < 2 || names[0].first != holder->last || m_context.inOverlay(select))
                continue;
            const Node* entry = names[1].second;
            std::string name(names[1].first);
            if (name.empty())
                name = nix::literalString(*entry).value_or(std::string());
            if (auto pin = nivPin(reader, name, json, entries)) {
                m_facts.pins.push_back(std::move(*pin));
                return;
            }
        }
    }
}

// The pin of entry `name` of a niv sources.json: its "rev", when it is a nixpkgs.
std::optional<PinFact> PinReader::nivPin(const nix::JsonReader& reader, const std::string& name,
                                         const std::string& file, std::string_view text) const
{
    using Kind = nix::JsonReader::Node::Kind;
    const auto& nodes = reader.nodes();
    if (nodes.empty() || nodes[0].kind != Kind::Object)
        return std::nullopt;
    for (size_t i : reader.members(0)) {
        if (nodes[i].key != name || nodes[i].kind != Kind::Object)
            continue;
        PinFact pin;
        pin.fetcher = PinFetcher::FetchTarball;
        bool nixpkgs = name.find("nixpkgs") != std::string::npos;
        for (size_t j : reader.members(i)) {
            const auto& member = nodes[j];
            if (member.kind != Kind::String)
                continue;
            if (member.key == "rev" && !member.escaped) {
                pin.revision = member.text;
                pin.range = {member.begin + 1, member.end - 1};
            }
            // niv's sources.nix hands the entry's sha256 alone to its fetcher.
            pin.hasHash = pin.hasHash || member.key == "sha256";
            nixpkgs = nixpkgs || (member.key == "repo" && member.text == "nixpkgs");
        }
        if (pin.revision.empty() || !nixpkgs)
            return std::nullopt;
        pin.file = file;
        pin.line = static_cast<int>(nix::LineIndex(text).position(pin.range.begin).line);
        return pin;
    }
    return std::nullopt;
}

// Each imported module once, with the arguments it is called with (if any; a curried module
// function takes several): the path, then the arguments.
std::vector<std::vector<const Node*>> PinReader::moduleImports() const
{
    std::vector<std::vector<const Node*>> imports;
    for (const Node* apply : m_walk.applies()) {
        const std::string_view callee = calleeName(*apply);
        auto arguments = callArguments(*apply);
        if ((callee != "import" && callee != "callPackage") || arguments.empty() || !arguments[0] ||
            !isLiteralPath(arguments[0]) || isSibling(arguments[0]->text))
            continue;
        auto known =
            std::ranges::find(imports, arguments[0], [](const auto& call) { return call.front(); });
        if (known == imports.end())
            imports.push_back(std::move(arguments));
        else if (arguments.size() > known->size())
            *known = std::move(arguments);
    }
    return imports;
}

// A recipe without a fetcher of its own takes its nixpkgs from a module it imports
// (`pin = import ./lib/pin.nix;`): that module's pins are the recipe's, written there.
// Files beside the recipe are recipes of their own (a companion's torch, a wrapper's base,
// whose pins reach the wrapper as inherited findings); modules in other directories are
// followed two levels deep, which also ends import cycles.
std::vector<PinFact> PinReader::pinsOfModules() const
{
    constexpr int maxDepth = 2;
    std::vector<PinFact> found;
    nix::ModuleLoader* modules = m_context.modules();
    if (!modules || m_context.depth() >= maxDepth)
        return found;
    for (const std::vector<const Node*>& call : moduleImports()) {
        const Node* path = call.front();
        const Node* argument = call.size() >= 2 ? call[1] : nullptr;
        const std::string id = modules->resolve(m_facts.path, path->text);
        const nix::SyntaxTree* module = id.empty() ? nullptr : modules->load(id);
        if (!module || !module->root())
            continue;
        // Read where the module is applied to the recipe's argument first: a generator
        // that picks the pin by the variant (`tables.pins.${cuda}`) or lets the caller
        // override it (`derived // overrides`) pins what this call makes.
        std::vector<PinFact> pins =
            argument ? appliedPins(m_context, *module, id, m_context.valuesOf(call))
                     : std::vector<PinFact>();
        const bool applied = !pins.empty();
        if (!applied) {
            RecipeFacts moduleFacts;
            moduleFacts.path = id;
            FactContext nested(*module, moduleFacts, modules, m_context.depth() + 1);
            nested.walk(*module->root());
            PinReader(nested).readPins();
            pins = std::move(moduleFacts.pins);
        }
        const nix::LineIndex lines(module->source());
        for (PinFact& pin : pins) {
            bool inRecipe = applied && pin.file == m_facts.path;
            if (!applied)
                if (auto overridden = overriddenPin(*module, pin, argument)) {
                    if (overridden->revision.empty())
                        continue; // the caller's argument decides, and it cannot be read
                    pin = std::move(*overridden);
                    inRecipe = true;
                }
            if (inRecipe) { // written in the recipe's argument: edited in place
                pin.file.clear();
                pin.line = 0;
            } else if (pin.file.empty()) {
                pin.file = id;
                pin.line = static_cast<int>(lines.position(pin.range.begin).line);
            }
            if (std::none_of(found.begin(), found.end(), [&](const PinFact& known) {
                    return known.file == pin.file && known.range == pin.range;
                }))
                found.push_back(std::move(pin));
        }
    }
    return found;
}

std::vector<PinFact> PinReader::appliedPins(const FactContext& context,
                                            const nix::SyntaxTree& module, const std::string& id,
                                            std::vector<nix::Value> arguments)
{
    if (module.root()->kind != NodeKind::Lambda)
        return {};
    RecipeFacts moduleFacts;
    moduleFacts.path = id;
    FactContext nested(module, moduleFacts, context.modules(), context.depth() + 1,
                       context.evaluator(), id, std::move(arguments));
    nested.walk(*module.root());
    PinReader(nested).readPins();
    return std::move(moduleFacts.pins);
}

// A module's pin written as the default of its function's formal (`{ rev ? "…" }:`) is the
// caller's when the recipe passes that argument: the pin in this file, or a pin with an
// empty revision when the argument cannot be read. nullopt when the default stands.
std::optional<PinFact> PinReader::overriddenPin(const nix::SyntaxTree& module, const PinFact& pin,
                                                const Node* argument) const
{
    const Node* root = module.root();
    const Node* formals = root->kind == NodeKind::Lambda ? root->lambdaFormals() : nullptr;
    if (!formals || !argument || !pin.file.empty())
        return std::nullopt;
    for (const Node* formal : formals->formals()) {
        const Node* fallback = formal->formalDefault();
        if (!fallback || !within(fallback, pin.range))
            continue;
        const nix::Value given = m_context.valueOf(argument);
        if (given.kind() != nix::Value::Kind::AttrSet)
            return PinFact{};
        const auto value = given.attribute(formal->text);
        if (!value)
            return std::nullopt; // not passed: the default is the pin
        const auto text = m_context.textOf(*value, *argument);
        if (!text)
            return PinFact{};
        PinFact own = pin;
        own.revision = text->text;
        own.range = text->sourceOf(0, text->text.size()).value_or(text->range);
        own.hasHash = false; // the module's hash is for its default revision
        own.call.reset();
        return own;
    }
    return std::nullopt;
}

// The revision a fetcher's argument set names; `nixpkgs` is cleared when the set fetches
// another repository.
std::optional<SourcedText> PinReader::revisionOfSet(PinFact& pin, const nix::Value& argument,
                                                    const Node& argumentNode, bool& nixpkgs) const
{
    auto text = [&](std::string_view name) -> std::optional<SourcedText> {
        auto value = argument.attribute(name);
        return value ? m_context.textOf(*value, argumentNode) : std::nullopt;
    };
    pin.hasHash = std::ranges::any_of(PinFetcherReader::hashAttributes, [&](std::string_view name) {
        return argument.attribute(name).has_value();
    });
    // fetchTree's `type` says which fetcher it stands for.
    std::string type;
    if (pin.fetcher == PinFetcher::FetchTree)
        if (auto written = text("type"))
            type = written->text;
    std::optional<SourcedText> revision;
    if (pin.fetcher == PinFetcher::FetchFromGitHub || type == "github") {
        auto repo = text("repo");
        if (!repo || repo->text != "nixpkgs") {
            nixpkgs = false;
            return std::nullopt;
        }
        // With `rev` written, Nix fetches it whatever `ref` says; a rev that cannot be
        // known leaves the pin unknown.
        revision = text("rev");
        if (!revision && !argument.attribute("rev"))
            revision = text(type.empty() ? "tag" : "ref");
    } else if (pin.fetcher == PinFetcher::FetchGit || type == "git") {
        auto url = text("url");
        if (!url || url->text.find("nixpkgs") == std::string::npos) {
            nixpkgs = false;
            return std::nullopt;
        }
        revision = text("rev");
        if (!revision && !argument.attribute("rev"))
            revision = text("ref");
    } else if (auto url = text("url")) {
        revision = revisionFromUrl(*url);
    }
    return revision;
}

// The nixpkgs revision a fetcher's argument (a set, a URL or a flake reference) pins.
std::optional<PinFact> PinReader::pinOf(PinFetcher fetcher, const Node& argumentNode) const
{
    const nix::Value argument = m_context.valueOf(&argumentNode);
    PinFact pin;
    pin.fetcher = fetcher;
    std::optional<SourcedText> revision;
    if (argument.kind() == nix::Value::Kind::AttrSet) {
        bool nixpkgs = true;
        revision = revisionOfSet(pin, argument, argumentNode, nixpkgs);
        if (!nixpkgs)
            return std::nullopt;
    } else if (auto url = m_context.textOf(argument, argumentNode)) {
        if (fetcher == PinFetcher::FetchFromGitHub)
            return std::nullopt;
        if (fetcher == PinFetcher::FetchTree || fetcher == PinFetcher::GetFlake) {
            pin.hasHash = url->text.find("narHash=") != std::string::npos;
            revision = revisionFromFlakeReference(*url);
        } else {
            revision = revisionFromUrl(*url);
        }
    }
    if (!revision)
        return std::nullopt;
    pin.revision = revision->text;
    pin.range = revision->sourceOf(0, revision->text.size()).value_or(revision->range);
    if (!revision->sourceOf(0, revision->text.size()))
        placeInAnotherFile(pin, argument);
    // Read while the tree is at hand, so that a bump need not parse the file again.
    if (pin.file.empty())
        pin.call = PinFetcherReader::around(m_context.tree(), pin.range);
    return pin;
}

// A revision read from another file (`pin = builtins.fromJSON (builtins.readFile
// ./pins/nixpkgs.json)`, a module's string): the pin is written there, which is what a
// bump rewrites. Found through the value the revision was taken from.
void PinReader::placeInAnotherFile(PinFact& pin, const nix::Value& argument) const
{
    std::vector<nix::Value> candidates{argument};
    for (std::string_view name : {"rev", "url", "ref"})
        if (auto value = argument.attribute(name))
            candidates.push_back(*value);
    for (const nix::Value& value : candidates) {
        const auto text = value.asString();
        const size_t at = text ? text->find(pin.revision) : std::string::npos;
        if (at == std::string::npos)
            continue;
        const auto origin = value.sourceOf(at, pin.revision.size());
        if (!origin || origin->file.empty() || m_context.inThisFile(*origin))
            continue;
        pin.file = std::string(origin->file);
        pin.range = origin->range;
        pin.line = m_context.lineIn(pin.file, origin->range.begin);
        return;
    }
}

} // namespace rg

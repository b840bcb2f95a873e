#include "changes/recipecloner.h"

#include "facts/archnotation.h"
#include "matrix/cpufeatureset.h"
#include "matrix/flagrepair.h"
#include "matrix/versionspelling.h"
#include "nix/syntaxtree.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace rg {

namespace {

using nix::Node;
using nix::NodeKind;
using nix::SourceRange;

struct Replacement
{
    std::string from;
    std::string to;
};

bool isWordChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// Bindings whose strings name sources, not the variant: never rewritten.
bool isSourceBinding(std::string_view name)
{
    static const std::string_view names[] = {"url", "urls",  "hash", "sha256",
                                             "rev", "owner", "repo", "outputHash"};
    return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

// `name` in lower case, for matching binding names however they are cased.
std::string lowered(std::string_view name)
{
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
}

bool mentionsVersion(std::string_view name)
{
    const std::string lower = lowered(name);
    return lower.find("version") != std::string::npos || lower.find("cuda") != std::string::npos;
}

// Bindings people name after the GPU arch: gpuArchSM, gpuArchNum, smCapability, cudaArch,
// computeCapability.
bool namesArch(std::string_view name)
{
    const std::string lower = lowered(name);
    return lower.find("arch") != std::string::npos || lower.starts_with("sm") ||
           lower.find("capabilit") != std::string::npos;
}

// What a parse of the source offers the edits: every node by kind, with the name of the
// binding each string sits in.
struct Inventory
{
    struct StringNode
    {
        const Node* node;
        std::string binding; // innermost binding's last attribute name, "" outside any
    };
    std::vector<StringNode> strings; // String and IndentedString
    std::vector<const Node*> names;  // Identifier, AttrName in select paths, Formal
    std::vector<const Node*> selects;
    std::vector<const Node*> paths;  // a companion's `./pytorch-…-sm120-avx512.nix`
    std::vector<SourceRange> opaque; // strings, paths, URIs: where comments cannot start
    std::map<const Node*, const Node*> parent;
};

void collect(const Node& node, const std::string& binding, Inventory& out)
{
    std::string inner = binding;
    switch (node.kind) {
    case NodeKind::Binding:
        if (const Node* path = node.bindingPath(); path && !path->children.empty())
            inner = std::string(path->children.back()->text);
        break;
    case NodeKind::String:
    case NodeKind::IndentedString:
        out.strings.push_back({&node, binding});
        out.opaque.push_back(node.range);
        break;
    case NodeKind::Path:
        out.paths.push_back(&node);
        out.opaque.push_back(node.range);
        break;
    case NodeKind::SearchPath:
    case NodeKind::Uri:
        out.opaque.push_back(node.range);
        break;
    case NodeKind::Identifier:
    case NodeKind::Formal:
        out.names.push_back(&node);
        break;
    case NodeKind::Select:
        out.selects.push_back(&node);
        if (const Node* path = node.attrPath())
            for (const Node* segment : path->segments())
                if (segment && segment->kind == NodeKind::AttrName)
                    out.names.push_back(segment);
        break;
    default:
        break;
    }
    for (const Node* child : node.children)
        if (child) {
            out.parent[child] = &node;
            collect(*child, inner, out);
        }
}

const Node* nodeAt(const Node& root, SourceRange range)
{
    const Node* found = nullptr;
    nix::forEachNode(root, [&](const Node& node) {
        if (found)
            return false;
        if (node.range == range) {
            found = &node;
            return false;
        }
        return node.range.begin <= range.begin && node.range.end >= range.end;
    });
    return found;
}

// Comments: `#` to the end of the line and `/* … */`, outside strings and paths.
std::vector<SourceRange> commentRanges(std::string_view source, std::vector<SourceRange> opaque)
{
    std::sort(opaque.begin(), opaque.end(),
              [](SourceRange a, SourceRange b) { return a.begin < b.begin; });
    std::vector<SourceRange> comments;
    size_t next = 0;
    for (uint32_t i = 0; i < source.size(); ++i) {
        while (next < opaque.size() && opaque[next].end <= i)
            ++next;
        if (next < opaque.size() && opaque[next].contains(i)) {
            i = opaque[next].end - 1;
            continue;
        }
        if (source[i] == '#') {
            size_t end = source.find('\n', i);
            end = end == std::string_view::npos ? source.size() : end;
            comments.push_back({i, static_cast<uint32_t>(end)});
            i = static_cast<uint32_t>(end);
        } else if (source.compare(i, 2, "/*") == 0) {
            size_t end = source.find("*/", i + 2);
            end = end == std::string_view::npos ? source.size() : end + 2;
            comments.push_back({i, static_cast<uint32_t>(end)});
            i = static_cast<uint32_t>(end) - 1;
        }
    }
    return comments;
}

// Replaces whole words of `pairs` (longest first) inside `span`.
void replaceWords(std::string_view source, SourceRange span, const std::vector<Replacement>& pairs,
                  TextEdits& edits)
{
    for (uint32_t at = span.begin; at < span.end;) {
        bool matched = false;
        for (const Replacement& pair : pairs) {
            const auto length = static_cast<uint32_t>(pair.from.size());
            if (at + length > span.end || source.compare(at, length, pair.from) != 0)
                continue;
            if (isWordChar(pair.from.front()) && at > 0 && isWordChar(source[at - 1]))
                continue;
            if (isWordChar(pair.from.back()) && at + length < source.size() &&
                isWordChar(source[at + length]))
                continue;
            edits.replace({at, at + length}, pair.to);
            at += length;
            matched = true;
            break;
        }
        if (!matched)
            ++at;
    }
}

// A literal that denotes the arch `number` in any notation ("120", "12.0", "sm_120",
// "compute_120", "12.0+PTX", "120-real", "9.0a"), rewritten for `target` in the same one.
std::optional<std::string> rewriteArch(std::string_view text, const std::string& number,
                                       const std::string& target)
{
    const std::string dotted = ArchNotation::dotted(number);
    const std::string targetDotted = ArchNotation::dotted(target);
    for (std::string_view prefix : {"compute_", "sm_", "sm", ""}) {
        for (int form = 0; form < 2; ++form) {
            const std::string& core = form == 0 ? number : dotted;
            if (core.empty() || text.substr(0, prefix.size()) != prefix ||
                text.substr(prefix.size(), core.size()) != core)
                continue;
            const std::string_view suffix = text.substr(prefix.size() + core.size());
            static const std::string_view suffixes[] = {"",      "+PTX",     "a",     "f",
                                                        "-real", "-virtual", "a-real"};
            if (std::find(std::begin(suffixes), std::end(suffixes), suffix) == std::end(suffixes))
                continue;
            return std::string(prefix) + (form == 0 ? target : targetDotted) + std::string(suffix);
        }
    }
    return std::nullopt;
}

std::string lineIndentBefore(std::string_view source, uint32_t offset)
{
    size_t lineStart = source.rfind('\n', offset == 0 ? 0 : offset - 1);
    lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
    size_t end = lineStart;
    while (end < offset && (source[end] == ' ' || source[end] == '\t'))
        ++end;
    return std::string(source.substr(lineStart, end - lineStart));
}

std::string quoted(const std::string& text)
{
    return "\"" + text + "\"";
}

// A list of strings in the layout of `list`: one per line when it spans lines.
std::string listLike(std::string_view source, const Node& list,
                     const std::vector<std::string>& items)
{
    const std::string_view text = source.substr(list.range.begin, list.range.length());
    if (text.find('\n') == std::string_view::npos || list.children.empty()) {
        std::string out = "[";
        for (const std::string& item : items)
            out += " " + quoted(item);
        return out + " ]";
    }
    const std::string indent = lineIndentBefore(source, list.children.front()->range.begin);
    const std::string closing = lineIndentBefore(source, list.range.end - 1);
    std::string out = "[\n";
    for (const std::string& item : items)
        out += indent + quoted(item) + "\n";
    return out + closing + "]";
}

bool isPlainStringList(const Node& node)
{
    return node.kind == NodeKind::List &&
           std::all_of(node.children.begin(), node.children.end(), [](const Node* element) {
               return element && element->kind == NodeKind::String && nix::literalString(*element);
           });
}

// Where an element of a list sits: alone on its line (possibly with a trailing comment), or
// among others on one line.
struct ElementLine
{
    bool alone = false;
    uint32_t lineBegin = 0; // first byte of the element's line
    uint32_t lineEnd = 0;   // one past its newline (or the end of the text)
};

ElementLine elementLine(std::string_view source, SourceRange element)
{
    ElementLine out;
    size_t begin = source.rfind('\n', element.begin == 0 ? 0 : element.begin - 1);
    out.lineBegin = begin == std::string_view::npos || element.begin == 0
                        ? 0
                        : static_cast<uint32_t>(begin + 1);
    size_t end = source.find('\n', element.end);
    out.lineEnd = end == std::string_view::npos ? static_cast<uint32_t>(source.size())
                                                : static_cast<uint32_t>(end + 1);
    const std::string_view before = source.substr(out.lineBegin, element.begin - out.lineBegin);
    std::string_view after = source.substr(element.end, out.lineEnd - element.end);
    after = after.substr(0, after.find('#'));
    auto blank = [](std::string_view text) {
        return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
    };
    out.alone = blank(before) && blank(after);
    return out;
}

// A version written with another separator: "12.8" → "12_8".
std::string spelledWith(std::string version, char from, char to)
{
    std::replace(version.begin(), version.end(), from, to);
    return version;
}

std::string spaceJoined(const std::vector<std::string>& words)
{
    std::string out;
    for (const std::string& word : words)
        out += (out.empty() ? "" : " ") + word;
    return out;
}

} // namespace

class CloneJob
{
public:
    CloneJob(const Catalog& catalog, std::string_view source, const nix::SyntaxTree& tree,
             const RecipeFacts& facts, const VariantName& from, const VariantExpectation& to)
        : m_catalog(catalog), m_source(source), m_tree(tree), m_facts(facts), m_from(from), m_to(to)
    {
        collect(*tree.root(), "", m_inventory);
    }

    std::string run(std::string* error)
    {
        if (m_from.accelerator != m_to.name.accelerator) {
            *error = "a " + std::string(acceleratorId(m_from.accelerator)) +
                     " recipe cannot be cloned into a " +
                     std::string(acceleratorId(m_to.name.accelerator)) + " one";
            return {};
        }
        editPname();
        editArchs();
        if (!editFlags(error))
            return {};
        editPlatforms();
        editNixpkgsSystem();
        editPythonSet();
        // A fix of the recipe's own cell writes no names or prose: they are the author's.
        if (m_from.cellKey() != m_to.name.cellKey())
            editText();
        else
            fixBuilderArguments();
        return m_edits.applyTo(m_source);
    }

private:
    std::string_view textOf(SourceRange range) const
    {
        return m_source.substr(range.begin, range.length());
    }

    // The content bytes of a string literal without interpolation (inside the quotes).
    static std::optional<SourceRange> contentOf(const Node& node)
    {
        if (node.kind != NodeKind::String || node.children.size() > 1)
            return std::nullopt;
        if (node.children.empty())
            return SourceRange{node.range.begin + 1, node.range.begin + 1};
        const Node* part = node.children.front();
        if (part->kind != NodeKind::StringText)
            return std::nullopt;
        return part->range;
    }

    void editPname()
    {
        if (!m_facts.pname || m_to.pname.empty())
            return;
        // A fix of the recipe's own cell leaves a pname that names its file: a legacy
        // spelling there (`…-armv8.2`) is the naming rule's to judge, not this fix's.
        const std::string stem = m_facts.fileName.substr(0, m_facts.fileName.rfind(".nix"));
        if (m_from.cellKey() == m_to.name.cellKey() && !stem.empty() &&
            m_facts.pname->value.ends_with(stem))
            return;
        if (const Node* node = nodeAt(*m_tree.root(), m_facts.pname->range))
            if (auto content = contentOf(*node))
                m_edits.replace(*content, m_to.pname);
    }

    void editArchs()
    {
        if (m_from.accelerator != Accelerator::Cuda)
            return;
        const std::string from = ArchNotation::numberOf(m_from.gpuArch);
        const std::string to = m_to.archNumber;
        if (from.empty() || to.empty())
            return;
        // Values at sinks, wherever written in this file (a literal or a shell setting).
        for (const ArchSinkFact& sink : m_facts.archSinks)
            if (sink.writtenIn.empty())
                editSink(sink, from, to);
        if (from == to) {
            renameOtherArch(to);
            return;
        }
        // Literals that denote the arch without reaching a sink the facts know (passthru).
        const CudaVersion cuda = m_catalog.describeCuda(m_from.cuda);
        for (const auto& [node, binding] : m_inventory.strings) {
            if (isSourceBinding(binding) || mentionsVersion(binding))
                continue;
            auto content = contentOf(*node);
            if (!content)
                continue;
            const std::string_view text = textOf(*content);
            if (text == cuda.dotted)
                continue;
            if (auto rewritten = rewriteArch(text, from, to))
                m_edits.replace(*content, *rewritten);
        }
        renameSelected(m_from.gpuArch, m_to.name.gpuArch);
    }

    // A fix of a recipe that names another arch at its sinks: the bindings that name the arch
    // for a reader (`gpuArchNum = "89";` beside `gpuArchSM = "8.9";`) follow, sink or not.
    void renameOtherArch(const std::string& to)
    {
        std::set<std::string> wrong;
        for (const ArchSinkFact& sink : m_facts.archSinks) {
            const ArchReading reading = ArchNotation::read(sink.sink, sink.value);
            if (writtenHere(sink.writtenIn) && reading.numbers.size() == 1 &&
                reading.numbers.front() != to)
                wrong.insert(reading.numbers.front());
        }
        for (const std::string& other : wrong) {
            for (const auto& [node, binding] : m_inventory.strings) {
                if (!namesArch(binding) || mentionsVersion(binding))
                    continue;
                if (auto content = contentOf(*node))
                    if (auto rewritten = rewriteArch(textOf(*content), other, to))
                        m_edits.replace(*content, *rewritten);
            }
            renameArchInProse(other, to);
        }
    }

    // In the recipe itself: in place, or as an argument it passes a builder ("…/this.nix:3").
    bool writtenHere(const std::string& writtenIn) const
    {
        return writtenIn.empty() || writtenIn.starts_with(m_facts.path + ":");
    }

    // A fix of a recipe that calls a builder with arguments: an argument naming another
    // cell's ISA, Python or CUDA version (`isa = "avx2";` in an avx512 recipe) is the one
    // token to change, written in its own notation. The arch is renameOtherArch's.
    void fixBuilderArguments()
    {
        if (m_facts.builderModule.empty())
            return;
        const std::string python = m_to.name.python;
        const std::string cuda = spelledWith(m_to.name.cuda, '.', '_');
        for (const auto& [node, binding] : m_inventory.strings) {
            const auto content = contentOf(*node);
            if (!content)
                continue;
            const std::string text(textOf(*content));
            const std::string lower = lowered(binding);
            std::string wanted;
            if (lower.find("isa") != std::string::npos && m_to.isa && m_catalog.isa(text))
                wanted = m_to.name.isa;
            else if (lower.find("python") != std::string::npos && !python.empty() &&
                     m_catalog.describePython(text).known)
                wanted = text.find('.') != std::string::npos
                             ? m_catalog.describePython(python).dotted
                             : python;
            else if (lower.find("cuda") != std::string::npos && !cuda.empty() &&
                     m_catalog.describeCuda(text).known)
                wanted = text.find('.') != std::string::npos ? spelledWith(cuda, '_', '.') : cuda;
            if (!wanted.empty() && spelledWith(text, '.', '_') != spelledWith(wanted, '.', '_'))
                m_edits.replace(*content, wanted);
        }
    }

    // Prose that names the wrong arch (`# GPU target: SM89`, an echo line, a description)
    // follows the fix in those words only; the rest of it is the author's.
    void renameArchInProse(const std::string& from, const std::string& to)
    {
        std::vector<Replacement> pairs =
            archWords(m_catalog.describeGpuArch("sm" + from), m_catalog.describeGpuArch("sm" + to));
        std::erase_if(pairs, [](const Replacement& pair) { return pair.from == pair.to; });
        replaceInProse(pairs);
    }

    // The words people write an arch with: its catalog description, "SM90", "sm90", "sm_90",
    // "SM 9.0".
    static std::vector<Replacement> archWords(const GpuArch& from, const GpuArch& to)
    {
        std::vector<Replacement> pairs;
        if (from.known && to.known)
            pairs.push_back({from.description, to.description});
        for (const char* prefix : {"SM", "sm", "sm_"})
            pairs.push_back({prefix + from.number, prefix + to.number});
        pairs.push_back({"SM " + from.dotted, "SM " + to.dotted});
        return pairs;
    }

    // Whole words of `pairs` in comments and in strings that name no source (URLs, hashes).
    void replaceInProse(const std::vector<Replacement>& pairs)
    {
        for (const SourceRange& comment : commentRanges(m_source, m_inventory.opaque))
            replaceWords(m_source, comment, pairs, m_edits);
        for (const auto& [node, binding] : m_inventory.strings)
            if (!isSourceBinding(binding))
                replaceInString(*node, pairs);
    }

    void replaceInString(const Node& string, const std::vector<Replacement>& pairs)
    {
        for (const Node* part : string.children)
            if (part && part->kind == NodeKind::StringText &&
                textOf(part->range).find("://") == std::string_view::npos)
                replaceWords(m_source, part->range, pairs, m_edits);
    }

    // A clone keeps the notation written at the sink; a value the sink rejects or that
    // denotes another arch is written the way the sink accepts, in the group's form.
    void editSink(const ArchSinkFact& sink, const std::string& from, const std::string& to)
    {
        SourceRange range = sink.range;
        std::string_view text = textOf(range);
        if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
            range = {range.begin + 1, range.end - 1};
            text = textOf(range);
        }
        if (from != to)
            if (auto rewritten = rewriteArch(text, from, to)) {
                m_edits.replace(range, *rewritten);
                return;
            }
        const ArchReading reading = ArchNotation::read(sink.sink, sink.value);
        if (reading.denotesAny ||
            (reading.accepted && reading.numbers == std::vector<std::string>{to}))
            return;
        // Another arch in an accepted notation, maybe inside a larger entry ("${dotted}+PTX"):
        // the literal keeps its notation.
        if (reading.accepted && reading.numbers.size() == 1)
            if (auto rewritten = rewriteArch(text, reading.numbers.front(), to)) {
                m_edits.replace(range, *rewritten);
                return;
            }
        if (text != sink.value)
            return;
        std::string suffix = reading.accepted ? ArchNotation::suffixOf(sink.sink, sink.value) : "";
        if (auto form = m_to.archSuffixes.find(std::string(archSinkName(sink.sink)));
            form != m_to.archSuffixes.end())
            suffix = form->second;
        m_edits.replace(range, ArchNotation::write(sink.sink, to) + suffix);
    }

    // `(import ./lib/archs.nix).sm120`, `isas.avx512.flags`: the attribute that selects the
    // variant's value from a module.
    bool renameSelected(const std::string& from, const std::string& to)
    {
        if (from.empty() || to.empty() || from == to)
            return false;
        bool renamed = false;
        for (const Node* select : m_inventory.selects)
            if (const Node* path = select->attrPath())
                for (const Node* segment : path->segments())
                    if (segment && segment->kind == NodeKind::AttrName && segment->text == from)
                        renamed = m_edits.replace(segment->range, to) || renamed;
        return renamed;
    }

    // `(import ./lib/cpu-isa.nix).avx512` in an avx2 recipe: the attribute naming another
    // ISA the catalog knows is renamed to this one.
    bool selectOwnIsa(const std::string& isa)
    {
        bool renamed = false;
        for (const Node* select : m_inventory.selects)
            if (const Node* path = select->attrPath())
                for (const Node* segment : path->segments())
                    if (segment && segment->kind == NodeKind::AttrName && segment->text != isa &&
                        m_catalog.isa(segment->text) &&
                        m_catalog.isa(segment->text)->family == m_to.isa->family)
                        renamed = m_edits.replace(segment->range, isa) || renamed;
        return renamed;
    }

    bool editFlags(std::string* error)
    {
        if (m_to.name.isa.empty() && !m_from.isa.empty()) {
            *error = "a generic variant (no ISA) cannot be written from a recipe with " +
                     m_from.isa + " flags";
            return false;
        }
        if (!m_to.isa)
            return true;
        // The same ISA: only flags that do not build it (judged by effect) are rewritten.
        const bool sameIsa = m_from.isa == m_to.name.isa;
        std::vector<const CpuFlagsFact*> sinks;
        auto wrong = [&](const CpuFlagsFact& fact) {
            return !sameIsa || !CpuFeatureSet(fact.flags).judge(*m_to.isa).acceptable();
        };
        if (m_facts.compilerFlags && wrong(*m_facts.compilerFlags))
            sinks.push_back(&*m_facts.compilerFlags);
        for (const CpuFlagsFact& more : m_facts.moreCompilerFlags)
            if (wrong(more))
                sinks.push_back(&more);
        if (sameIsa && sinks.empty())
            return true;
        bool fromModule = false;
        for (const CpuFlagsFact* sink : sinks) {
            if (!sink->writtenIn.empty()) {
                fromModule = true;
                continue;
            }
            if (!writeFlags(sink->range)) {
                *error = "cannot rewrite the compiler flags at line " +
                         std::to_string(m_facts.position(sink->range.begin).line) +
                         " (not a list of strings or a flag string)";
                return false;
            }
        }
        if (sinks.empty() && !m_facts.compilerFlags && m_facts.cpuFlags &&
            !writeFlags(m_facts.cpuFlags->range)) {
            *error = "cannot rewrite the cpuFlags list";
            return false;
        }
        // A builder module called with the ISA as an argument (`isa = "avx2";`) gets it from
        // the recipe's strings, which editText rewrites; re-analysis through the builder then
        // judges the flags it makes.
        // A fix of the recipe's own cell: the module's entry it selects is another ISA's.
        const bool selected =
            sameIsa ? selectOwnIsa(m_to.name.isa) : renameSelected(m_from.isa, m_to.name.isa);
        if (fromModule && !selected && m_facts.builderModule.empty()) {
            *error = "the flags come from a module (" + m_facts.compilerFlags->writtenIn +
                     ") and no attribute selecting ISA '" + m_from.isa + "' was found";
            return false;
        }
        return true;
    }

    // The lists of flag strings a flags value is made of: a list, the lists of a `++`
    // concatenation, a let-bound name's list, `toString` / `concatStringsSep " "` of a list.
    void gatherFlagLists(const Node* node, std::vector<const Node*>& lists, int depth) const
    {
        if (!node || depth > 4)
            return;
        if (node->kind == NodeKind::List) {
            if (isPlainStringList(*node))
                lists.push_back(node);
        } else if (node->kind == NodeKind::Binary && node->op == nix::BinaryOp::Concat) {
            gatherFlagLists(node->left(), lists, depth + 1);
            gatherFlagLists(node->right(), lists, depth + 1);
        } else if (node->kind == NodeKind::Apply) {
            gatherFlagLists(node->argument(), lists, depth + 1);
        } else if (node->kind == NodeKind::Identifier) {
            nix::forEachNode(*m_tree.root(), [&](const Node& binding) {
                const Node* path =
                    binding.kind == NodeKind::Binding ? binding.bindingPath() : nullptr;
                if (path && path->children.size() == 1 &&
                    path->children.front()->kind == NodeKind::AttrName &&
                    path->children.front()->text == node->text)
                    gatherFlagLists(binding.bindingValue(), lists, depth + 1);
                return true;
            });
        }
    }

    // The author's own lists, their layout and comments kept: only the flags that make them
    // another ISA go, and only the missing ones come in, each in a line (or a place) like its
    // neighbours'. False when no such edit makes them build the ISA.
    bool editListsInPlace(const Node& value)
    {
        std::vector<const Node*> lists;
        gatherFlagLists(&value, lists, 0);
        std::vector<const Node*> elements;
        std::vector<const Node*> listOf;
        std::vector<std::string> have;
        for (const Node* list : lists)
            for (const Node* element : list->children) {
                elements.push_back(element);
                listOf.push_back(list);
                have.push_back(*nix::literalString(*element));
            }
        if (have.empty())
            return false;
        const auto edit = FlagRepair::of(have, *m_to.isa, m_catalog);
        if (!edit || edit->removed.size() == have.size())
            return false;
        std::map<const Node*, TextEdits> edits; // per list
        for (size_t index : edit->removed)
            edits[listOf[index]].replace(removal(*listOf[index], *elements[index]), "");
        // Flags that lead the others go into the first list left empty (`[ ] ++
        // noNewerThanAvx`), where the ISA's own flags stood.
        const Node* empty = nullptr;
        for (size_t i = 0, at = 0; i < lists.size() && !empty; ++i) {
            const size_t size = lists[i]->children.size();
            const auto gone = std::ranges::count_if(
                edit->removed, [&](size_t index) { return index >= at && index < at + size; });
            if (static_cast<size_t>(gone) == size)
                empty = lists[i];
            at += size;
        }
        std::vector<std::string> leading;
        // Insertions at one place, in the order they come: (anchor, after) → text.
        std::map<std::pair<size_t, bool>, std::string> insertions;
        for (const FlagRepair::Insertion& insertion : edit->inserted) {
            if (insertion.first && empty) {
                leading.push_back(insertion.flag);
                continue;
            }
            const SourceRange anchor = elements[insertion.anchor]->range;
            std::string& text = insertions[{insertion.anchor, insertion.after}];
            if (elementLine(m_source, anchor).alone)
                text += lineIndentBefore(m_source, anchor.begin) + quoted(insertion.flag) + "\n";
            else
                text +=
                    insertion.after ? " " + quoted(insertion.flag) : quoted(insertion.flag) + " ";
        }
        for (const auto& [place, text] : insertions) {
            const auto [anchor, after] = place;
            const SourceRange range = elements[anchor]->range;
            const ElementLine line = elementLine(m_source, range);
            const uint32_t offset = line.alone ? (after ? line.lineEnd : line.lineBegin)
                                               : (after ? range.end : range.begin);
            if (!edits[listOf[anchor]].replace({offset, offset}, text))
                return false;
        }
        if (!leading.empty()) {
            // The list is written anew; its own removals are part of that.
            edits[empty] = TextEdits();
            edits[empty].replace(empty->range, listLike(m_source, *empty, leading));
        }
        // Every edit lies inside its list (a line alone in it is between its brackets), so an
        // edited list is the same span of the edited text, longer or shorter by its edits.
        for (const auto& [list, listEdits] : edits)
            if (m_edits.touches(list->range))
                return false;
        for (const auto& [list, listEdits] : edits) {
            const std::string edited = listEdits.applyTo(m_source);
            const size_t length = list->range.length() + edited.size() - m_source.size();
            if (!m_edits.replace(list->range, edited.substr(list->range.begin, length)))
                return false;
        }
        return true;
    }

    // The bytes that go with an element taken out of a list: its line when it stands alone
    // on it (a trailing comment included), else itself and the blanks before it.
    SourceRange removal(const Node& list, const Node& element) const
    {
        const ElementLine line = elementLine(m_source, element.range);
        if (line.alone)
            return {line.lineBegin, line.lineEnd};
        uint32_t begin = element.range.begin;
        while (begin > list.range.begin + 1 && m_source[begin - 1] == ' ')
            --begin;
        return {begin, element.range.end};
    }

    bool writeFlags(SourceRange range)
    {
        const std::vector<std::string>& flags = m_to.isa->flags;
        if (const Node* node = nodeAt(*m_tree.root(), range)) {
            if (m_from.isa == m_to.name.isa && editListsInPlace(*node))
                return true;
            // `[ "-mavx" ] ++ noNewerThanAvx`: the whole concatenation is the ISA's flags.
            const Node* whole = node;
            for (auto up = m_inventory.parent.find(whole);
                 up != m_inventory.parent.end() && up->second->kind == NodeKind::Binary &&
                 up->second->op == nix::BinaryOp::Concat;
                 up = m_inventory.parent.find(whole))
                whole = up->second;
            if (whole != node && node->kind == NodeKind::List)
                return m_edits.replace(whole->range, listLike(m_source, *node, flags));
            if (node->kind == NodeKind::Binary && node->op == nix::BinaryOp::Concat) {
                const Node* first = node;
                while (first->kind == NodeKind::Binary && first->left())
                    first = first->left();
                return m_edits.replace(node->range, first->kind == NodeKind::List
                                                        ? listLike(m_source, *first, flags)
                                                        : listLike(m_source, *node, flags));
            }
            if (isPlainStringList(*node))
                return m_edits.replace(node->range, listLike(m_source, *node, flags)) ||
                       m_edits.touches(node->range);
            if (auto content = contentOf(*node))
                return m_edits.replace(*content, spaceJoined(flags));
        }
        // Flags written straight into a shell setting: the run of -m… words is the ISA's.
        const std::string_view text = textOf(range);
        size_t first = std::string_view::npos, last = 0;
        for (size_t at = 0; at < text.size();) {
            size_t end = text.find_first_of(" \t\n\"'", at);
            end = end == std::string_view::npos ? text.size() : end;
            if (text.substr(at, 2) == "-m") {
                first = std::min(first, at);
                last = end;
            }
            at = end + 1;
        }
        if (first == std::string_view::npos)
            return false;
        return m_edits.replace(
            {range.begin + static_cast<uint32_t>(first), range.begin + static_cast<uint32_t>(last)},
            spaceJoined(flags));
    }

    void editPlatforms()
    {
        const auto& fact = m_facts.platformsValue;
        if (!fact || fact->origin != ValueOrigin::Known || m_to.platform.empty() ||
            !fact->in.empty())
            return;
        const auto& have = fact->platforms;
        const bool holdsTarget = std::find(have.begin(), have.end(), m_to.platform) != have.end();
        const bool exact = have.size() == 1 && holdsTarget;
        if (exact || (m_to.name.accelerator != Accelerator::Cuda && holdsTarget))
            return;
        const Node* node = nodeAt(*m_tree.root(), fact->range);
        if (!node)
            return;
        if (isPlainStringList(*node)) {
            m_edits.replace(node->range, listLike(m_source, *node, {m_to.platform}));
            return;
        }
        // `lib.platforms.x86_64` → `lib.platforms.aarch64`
        if (node->kind == NodeKind::Select && node->attrPath() &&
            !node->attrPath()->children.empty()) {
            const Node* last = node->attrPath()->children.back();
            const std::string family = m_to.platform.substr(0, m_to.platform.find('-'));
            if (last->text == "x86_64" || last->text == "aarch64")
                m_edits.replace(last->range, family);
        }
    }

    // `import nixpkgs { system = "x86_64-linux"; }`: the system everything is built for.
    void editNixpkgsSystem()
    {
        const auto& fact = m_facts.nixpkgsSystem;
        if (!fact || !fact->in.empty() || m_to.platform.empty() || fact->value == m_to.platform ||
            textOf(fact->range) != fact->value)
            return;
        m_edits.replace(fact->range, m_to.platform);
    }

    void editPythonSet()
    {
        // A versioned set is rewritten whenever it is not the target's, also in a fix of the
        // recipe's own cell; `python3Packages` only when the Python changes.
        if (!m_facts.pythonPackageSet || (m_from.python == m_to.name.python &&
                                          m_facts.pythonPackageSet->value == "python3Packages"))
            return;
        const std::string& from = m_facts.pythonPackageSet->value;
        const std::string to = m_catalog.describePython(m_to.name.python).packageSet;
        if (to.empty() || from == to)
            return;
        for (const Node* name : m_inventory.names)
            if (name->text == from) {
                // A Formal's range may cover its default; the name is its first bytes.
                const SourceRange range{name->range.begin,
                                        name->range.begin + static_cast<uint32_t>(from.size())};
                if (textOf(range) == from)
                    m_edits.replace(range, to);
            }
    }

    // Versions a builder takes as arguments, as whole strings: `python = "312";`,
    // `cudaVersion = "12_8";`. Only spellings that cannot be an arch (a dotted CUDA version
    // can: "12.0" is sm120's capability) and only when the whole string is the value.
    std::vector<Replacement> wholeValuePairs() const
    {
        std::vector<Replacement> pairs;
        auto add = [&](const std::string& from, const std::string& to) {
            if (!from.empty() && !to.empty() && from != to)
                pairs.push_back({from, to});
        };
        add(m_from.python, m_to.name.python);
        if (m_from.python.size() > 1 && m_to.name.python.size() > 1)
            add(dottedPython(m_from.python), dottedPython(m_to.name.python));
        if (!m_from.cuda.empty() && !m_to.name.cuda.empty())
            add(spelledWith(m_from.cuda, '.', '_'), spelledWith(m_to.name.cuda, '.', '_'));
        return pairs;
    }

    std::vector<Replacement> identityPairs() const
    {
        std::vector<Replacement> pairs;
        auto add = [&](std::string from, std::string to) {
            if (!from.empty() && !to.empty() && from != to)
                pairs.push_back({std::move(from), std::move(to)});
        };
        VariantName plainFrom = m_from;
        plainFrom.suffixes.clear();
        if (m_facts.pname)
            add(m_facts.pname->value, m_to.pname);
        add(plainFrom.toString(), m_to.name.toString());
        add(plainFrom.cellKey(), m_to.name.cellKey());
        if (m_from.accelerator == Accelerator::Cuda)
            for (Replacement& pair : archWords(m_catalog.describeGpuArch(m_from.gpuArch),
                                               m_catalog.describeGpuArch(m_to.name.gpuArch)))
                add(std::move(pair.from), std::move(pair.to));
        const CpuIsa* fromIsa = m_catalog.isa(m_from.isa);
        if (fromIsa && m_to.isa) {
            add(fromIsa->description, m_to.isa->description);
            std::string upper = fromIsa->id, upperTo = m_to.isa->id;
            std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
            std::transform(upperTo.begin(), upperTo.end(), upperTo.begin(), ::toupper);
            add(upper, upperTo);
        }
        add(m_from.isa, m_to.name.isa);
        const PythonVersion fromPython = m_catalog.describePython(m_from.python);
        const PythonVersion toPython = m_catalog.describePython(m_to.name.python);
        add("python" + m_from.python, "python" + m_to.name.python);
        add("Python " + fromPython.dotted, "Python " + toPython.dotted);
        add("Python: " + fromPython.dotted, "Python: " + toPython.dotted);
        std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
            return a.from.size() > b.from.size();
        });
        return pairs;
    }

    // The variant's identity where people write it in prose: comments, descriptions, echo
    // lines, bindings holding the name. Sources (URLs, hashes) are left alone.
    void editText()
    {
        const std::vector<Replacement> pairs = identityPairs();
        if (pairs.empty())
            return;
        // A sibling a recipe is derived from (`(import ./<base>.nix { }).override { … }`) is
        // its base whatever cell it is written for; an imported sibling (a companion's torch)
        // is the cell's own and follows it.
        for (const Node* path : m_inventory.paths)
            if (textOf(path->range).starts_with("./") &&
                std::ranges::count(m_facts.derivedFrom, textOf(path->range)) == 0 &&
                std::none_of(path->children.begin(), path->children.end(), [](const Node* part) {
                    return part->kind == NodeKind::Interpolation;
                }))
                replaceWords(m_source, path->range, pairs, m_edits);
        // A string that is a whole version value is rewritten as one; the others word by word
        // with the comments.
        const std::vector<Replacement> whole = wholeValuePairs();
        for (const auto& [node, binding] : m_inventory.strings) {
            if (isSourceBinding(binding) || node->children.size() != 1 ||
                node->children[0]->kind != NodeKind::StringText)
                continue;
            const SourceRange content = node->children[0]->range;
            const auto same = std::find_if(whole.begin(), whole.end(), [&](const auto& pair) {
                return textOf(content) == pair.from;
            });
            if (same != whole.end())
                m_edits.replace(content, same->to);
        }
        replaceInProse(pairs);
    }

    const Catalog& m_catalog;
    std::string_view m_source;
    const nix::SyntaxTree& m_tree;
    const RecipeFacts& m_facts;
    const VariantName& m_from;
    const VariantExpectation& m_to;
    Inventory m_inventory;
    TextEdits m_edits;
};

std::string RecipeCloner::clone(std::string_view source, const RecipeFacts& facts,
                                const VariantName& from, const VariantExpectation& to,
                                std::string* error) const
{
    const nix::SyntaxTree tree = nix::SyntaxTree::parse(std::string(source));
    if (!tree.root()) {
        *error = "does not parse: " + (tree.error() ? tree.error()->message : std::string());
        return {};
    }
    CloneJob job(m_catalog, tree.source(), tree, facts, from, to);
    return job.run(error);
}

} // namespace rg

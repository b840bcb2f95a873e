#include "changes/pinbumpplanner.h"

#include "analysis/analyzer.h"
#include "analysis/cellselector.h"
#include "changes/textedits.h"
#include "facts/pinfetcherreader.h"
#include "matrix/versionspelling.h"
#include "nix/nixhash.h"
#include "nix/syntaxtree.h"
#include "pins/pininventory.h"

#include <QThreadPool>
#include <QtConcurrent/QtConcurrentMap>
#include <algorithm>
#include <array>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

namespace rg {

namespace {

constexpr uint64_t maxRecipeSize = AnalyzerOptions::defaultMaxFileSize;
constexpr uint64_t maxDocumentSize = 1024 * 1024;
constexpr const char* readmePath = "README.md";
constexpr const char* arrow = " \xe2\x86\x92 "; // " → "
constexpr std::string_view nixBase32Alphabet = nix::NixHash::base32Alphabet;

bool isHex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool isAlnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool allHex(std::string_view text)
{
    return std::all_of(text.begin(), text.end(), isHex);
}

std::string lower(std::string text)
{
    for (char& c : text)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    return text;
}

// ---- hashes: the notations Nix accepts for a SHA-256 --------------------------------------

enum class HashNotation { NixBase32, Hex, Sri };

std::optional<HashNotation> notationOf(std::string_view hash)
{
    if (hash.starts_with("sha256-"))
        return HashNotation::Sri;
    if (hash.size() == 52 && std::all_of(hash.begin(), hash.end(), [](char c) {
            return nixBase32Alphabet.find(c) != std::string_view::npos;
        }))
        return HashNotation::NixBase32;
    if (hash.size() == 64 && allHex(hash))
        return HashNotation::Hex;
    return std::nullopt;
}

using Digest = std::array<unsigned char, 32>;

std::optional<Digest> fromNixBase32(std::string_view text)
{
    const auto bytes = nix::NixHash::fromBase32(text, Digest().size());
    if (!bytes)
        return std::nullopt;
    Digest digest{};
    std::copy(bytes->begin(), bytes->end(), digest.begin());
    return digest;
}

std::string toNixBase32(const Digest& digest)
{
    std::string out;
    for (int n = 51; n >= 0; --n) {
        const size_t bit = static_cast<size_t>(n) * 5, i = bit / 8, j = bit % 8;
        unsigned c = digest[i] >> j;
        if (i + 1 < digest.size())
            c |= static_cast<unsigned>(digest[i + 1]) << (8 - j);
        out += nixBase32Alphabet[c & 0x1f];
    }
    return out;
}

std::optional<Digest> decode(std::string_view hash)
{
    const auto notation = notationOf(hash);
    if (!notation)
        return std::nullopt;
    Digest digest{};
    if (*notation == HashNotation::NixBase32)
        return fromNixBase32(hash);
    if (*notation == HashNotation::Hex) {
        for (size_t i = 0; i < digest.size(); ++i)
            digest[i] = static_cast<unsigned char>(
                std::stoi(std::string(hash.substr(2 * i, 2)), nullptr, 16));
        return digest;
    }
    const QByteArray bytes =
        QByteArray::fromBase64(QByteArray::fromStdString(std::string(hash.substr(7))));
    if (bytes.size() != static_cast<qsizetype>(digest.size()))
        return std::nullopt;
    std::copy(bytes.begin(), bytes.end(), digest.begin());
    return digest;
}

std::string encode(const Digest& digest, HashNotation notation)
{
    if (notation == HashNotation::NixBase32)
        return toNixBase32(digest);
    if (notation == HashNotation::Hex) {
        static const char digits[] = "0123456789abcdef";
        std::string out;
        for (unsigned char b : digest)
            out += {digits[b >> 4], digits[b & 0xf]};
        return out;
    }
    const QByteArray raw(reinterpret_cast<const char*>(digest.data()),
                         static_cast<qsizetype>(digest.size()));
    return "sha256-" + raw.toBase64().toStdString();
}

// ---- where the fetcher's hash and URL are --------------------------------------------------

// The fetcher around `pin` in `bytes`, a file other than JSON: the one the analysis read
// while these bytes still write it where it was read (parsing every recipe again would
// dominate a large bump), else read from `*tree`, parsed on first need. nullopt when the
// fetcher writes no literal hash beside the revision, or with `*error` when the file does not
// parse.
std::optional<FetcherFact> fetcherOf(const PinFact& pin, std::string_view bytes,
                                     std::optional<nix::SyntaxTree>* tree, std::string* error)
{
    const bool stillRead =
        pin.call && pin.call->hashRange.length() > 0 && PinFetcherReader::stillIn(*pin.call, bytes);
    if (stillRead)
        return pin.call;
    if (!*tree)
        *tree = nix::SyntaxTree::parse(std::string(bytes));
    if (!(*tree)->root()) {
        *error = "does not parse: " + (*tree)->error()->message;
        return std::nullopt;
    }
    auto fetcher = PinFetcherReader::around(**tree, pin.range);
    if (!fetcher || fetcher->hashRange.length() == 0)
        return std::nullopt;
    return fetcher;
}

// The URL the fetcher downloads once the revision is `to`; "" when it cannot be known.
std::string urlAfter(const FetcherFact& fetcher, nix::SourceRange pin, const std::string& to)
{
    if (!fetcher.url.empty()) {
        if (pin.begin < fetcher.urlRange.begin || pin.end > fetcher.urlRange.end)
            return {};
        std::string url = fetcher.url;
        url.replace(pin.begin - fetcher.urlRange.begin, pin.length(), to);
        return url;
    }
    // fetchFromGitHub, or fetchTree { type = "github"; … }: GitHub's archive of the revision.
    if (!fetcher.owner.empty() && !fetcher.repo.empty())
        return "https://github.com/" + fetcher.owner + "/" + fetcher.repo + "/archive/" + to +
               ".tar.gz";
    return {};
}

bool unpacks(const std::string& callee)
{
    return callee != "fetchurl";
}

// ---- Markdown quotes -----------------------------------------------------------------------

// Replaces every hex token that abbreviates `from` (7+ characters, standing alone) by the
// same-length prefix of `to`; `tablesOnly` limits it to Markdown table rows.
std::string replaceQuotes(const std::string& text, const std::string& from, const std::string& to,
                          bool tablesOnly, int* count)
{
    std::string out;
    out.reserve(text.size());
    size_t lineStart = 0;
    bool inTable = false;
    for (size_t i = 0; i < text.size();) {
        if (i == lineStart) {
            const size_t first = text.find_first_not_of(" \t", i);
            inTable = first != std::string::npos && text[first] == '|';
        }
        const bool starts = isHex(text[i]) && (i == 0 || !isAlnum(text[i - 1]));
        if (!starts || (tablesOnly && !inTable)) {
            if (text[i] == '\n')
                lineStart = i + 1;
            out += text[i++];
            continue;
        }
        size_t end = i;
        while (end < text.size() && isAlnum(text[end]))
            ++end;
        const std::string_view token(text.data() + i, end - i);
        if (token.size() >= 7 && token.size() <= from.size() && allHex(token) &&
            std::string_view(from).starts_with(token)) {
            out += token.size() == from.size() ? to : to.substr(0, token.size());
            ++*count;
        } else {
            out.append(token);
        }
        i = end;
    }
    return out;
}

// Markdown files of a work tree other than its top README, by relative path. Hidden
// directories (.git, .flox) and symbolic links are not followed; the walk is bounded so a
// stray build tree cannot stall planning.
std::vector<std::string> markdownFiles(const std::string& root)
{
    namespace fs = std::filesystem;
    std::vector<std::string> out;
    std::error_code error;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error);
    int visited = 0;
    for (; !error && it != fs::recursive_directory_iterator() && ++visited < 20000;
         it.increment(error)) {
        const fs::directory_entry& entry = *it;
        const std::string name = entry.path().filename().string();
        if (entry.is_symlink(error)) {
            continue;
        } else if (entry.is_directory(error)) {
            if (name.starts_with(".") || name == "node_modules" || it.depth() >= 6)
                it.disable_recursion_pending();
        } else if (entry.is_regular_file(error) && name.ends_with(".md")) {
            const std::string relative = fs::relative(entry.path(), root, error).generic_string();
            if (relative != readmePath)
                out.push_back(relative);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

// ---- planning ------------------------------------------------------------------------------

namespace {

struct Candidate
{
    const RecipeFacts* recipe = nullptr;
    const Cell* entry = nullptr;
};

struct RecipeOutcome
{
    std::optional<FileOperation> operation;
    std::optional<SkippedCell> skipped;
    bool needsHash = false;
    std::vector<std::pair<std::string, bool>> downloads; // URL after the bump, unpacked
};

bool inScope(const PinBumpScope& scope, const Candidate& c)
{
    if (scope.isAll())
        return true;
    if (!scope.cells.empty()) {
        const auto named = [&](const std::string& cell) {
            const CellSelector selector(cell);
            return c.entry ? selector.matches(*c.entry)
                           : selector.namesRecipe(c.recipe->path, c.recipe->fileName);
        };
        if (std::none_of(scope.cells.begin(), scope.cells.end(), named))
            return false;
    }
    if (!c.entry)
        return scope.package.empty() && scope.accelerator.empty() && scope.python.empty();
    return (scope.package.empty() || scope.package == c.entry->package) &&
           (scope.accelerator.empty() ||
            scope.accelerator == PinInventory::acceleratorIdOf(c.entry->variant)) &&
           (scope.python.empty() || scope.python == dottedPython(c.entry->variant.python));
}

// Renames the python3Packages the torch comes from; says what it did, or why it did not.
std::string renamePythonSet(const RecipeFacts& facts, const Candidate& c, const std::string& bytes,
                            TextEdits* edits)
{
    const auto& set = facts.pythonPackageSet;
    if (!set || set->value != "python3Packages")
        return {};
    if (!c.entry || c.entry->variant.python.empty())
        return "python3Packages kept: the file name names no Python version";
    const std::string_view written(bytes.data() + set->range.begin, set->range.length());
    int mentions = 0;
    for (size_t at = bytes.find("python3Packages"); at != std::string::npos;
         at = bytes.find("python3Packages", at + 1))
        if ((at == 0 || !isAlnum(bytes[at - 1])) &&
            (at + 15 >= bytes.size() || !isAlnum(bytes[at + 15])))
            ++mentions;
    if (written != "python3Packages" || mentions != 1)
        return "python3Packages kept: it is named " + std::to_string(mentions) +
               " times, and renaming only the torch's set would bypass overlays of the others";
    const std::string explicitSet = "python" + c.entry->variant.python + "Packages";
    edits->replace(set->range, explicitSet);
    return "python3Packages \xe2\x86\x92 " + explicitSet;
}

class PinBumpBuilder
{
public:
    PinBumpBuilder(const RepositorySource& source, const PinBumpRequest& request)
        : m_source(source), m_request(request)
    {}

    // The recipe's own pins; pins written in a module are bumped once, by bumpModule.
    RecipeOutcome bump(const Candidate& c) const
    {
        const RecipeFacts& facts = *c.recipe;
        std::vector<PinFact> own;
        for (const PinFact& pin : facts.pins)
            if (pin.file.empty())
                own.push_back(pin);
        const std::string subject = c.entry ? c.entry->variant.toString() : facts.path;
        return bumpFile(facts.path, own, subject, [&](const std::string& bytes, TextEdits* edits) {
            return m_request.renamePythonSet ? renamePythonSet(facts, c, bytes, edits)
                                             : std::string();
        });
    }

    // A module's pin, shared by `users` recipes (all of them in the scope).
    RecipeOutcome bumpModule(const std::string& path, const std::vector<PinFact>& pins,
                             int users) const
    {
        RecipeOutcome outcome = bumpFile(path, pins, path, nullptr);
        if (outcome.operation)
            outcome.operation->reason +=
                "; shared by " + std::to_string(users) + (users == 1 ? " recipe" : " recipes");
        return outcome;
    }

private:
    // The full from-revision elsewhere in the file (`rev = "…";` beside the fetcher, a
    // comment, passthru) names the same snapshot and changes with it.
    int otherMentions(const std::string& bytes, const std::vector<PinFact>& pins,
                      TextEdits* edits) const
    {
        const std::string& from = m_request.from;
        if (!isFullRevision(from))
            return 0;
        int count = 0;
        for (size_t at = bytes.find(from); at != std::string::npos;
             at = bytes.find(from, at + from.size())) {
            const nix::SourceRange range{static_cast<uint32_t>(at),
                                         static_cast<uint32_t>(at + from.size())};
            const bool standsAlone = (at == 0 || !isHex(bytes[at - 1])) &&
                                     (range.end >= bytes.size() || !isHex(bytes[range.end]));
            if (!standsAlone || std::any_of(pins.begin(), pins.end(),
                                            [&](const PinFact& pin) { return pin.range == range; }))
                continue;
            edits->replace(range, m_request.to);
            ++count;
        }
        return count;
    }

    using ExtraEdit = std::function<std::string(const std::string& bytes, TextEdits* edits)>;

    // Rewrites `pins` (those on the from-pin) of one file with their hashes; `extra` may add
    // edits once the pins changed and returns a note for the reason.
    RecipeOutcome bumpFile(const std::string& path, const std::vector<PinFact>& pins,
                           const std::string& subject, const ExtraEdit& extra) const
    {
        RecipeOutcome outcome;
        auto skip = [&](const std::string& why) {
            outcome.skipped = SkippedCell{subject, path + ": " + why};
            return outcome;
        };
        if (std::none_of(pins.begin(), pins.end(),
                         [&](const PinFact& pin) { return pin.revision == m_request.from; }))
            return outcome;
        SourceFile file = m_source.read(path, maxRecipeSize);
        if (!file.error.empty())
            return skip(file.error);
        std::optional<nix::SyntaxTree> tree; // parsed only when the fast path cannot tell
        TextEdits edits;
        std::vector<std::string> notes;
        for (const PinFact& pin : pins) {
            if (pin.revision != m_request.from)
                continue;
            if (pin.range.end > file.bytes.size() ||
                file.bytes.compare(pin.range.begin, pin.range.length(), m_request.from) != 0)
                return skip("changed since it was analysed (the pin is not where it was)");
            edits.replace(pin.range, m_request.to);
            if (!pin.hasHash)
                continue;
            std::string error;
            auto fetcher = path.ends_with(".json") ? PinFetcherReader::inJson(file.bytes, pin.range)
                                                   : fetcherOf(pin, file.bytes, &tree, &error);
            if (!error.empty())
                return skip(error);
            if (!fetcher || fetcher->hashRange.length() == 0)
                return skip("its fetcher's hash is not written next to the pin; bump it by "
                            "hand so the hash changes with it");
            if (const std::string note = newHash(*fetcher, pin, &edits, &outcome); !note.empty())
                notes.push_back(note);
        }
        if (const int mentions = otherMentions(file.bytes, pins, &edits))
            notes.push_back(std::to_string(mentions) +
                            (mentions == 1 ? " other mention" : " other mentions") +
                            " of the revision too");
        if (extra)
            if (const std::string note = extra(file.bytes, &edits); !note.empty())
                notes.push_back(note);
        FileOperation op;
        op.kind = FileOperationKind::Modify;
        op.path = path;
        op.before = std::move(file.bytes);
        op.after = edits.applyTo(op.before);
        op.plannedHash = contentHash(op.before);
        op.subject = subject == path ? std::string() : subject;
        op.reason = "pin " + shortRevision(m_request.from) + arrow + shortRevision(m_request.to);
        for (const std::string& note : notes)
            op.reason += "; " + note;
        outcome.operation = std::move(op);
        return outcome;
    }

    // Writes the new hash (given, or the fake one); returns what the reason must say.
    std::string newHash(const FetcherFact& fetcher, const PinFact& pin, TextEdits* edits,
                        RecipeOutcome* outcome) const
    {
        const std::string url = urlAfter(fetcher, pin.range, m_request.to);
        const HashNotation notation =
            notationOf(fetcher.hash)
                .value_or(fetcher.hashAttribute == "sha256" ? HashNotation::NixBase32
                                                            : HashNotation::Sri);
        auto given = m_request.newHashes.find(url);
        if (url.empty() || given == m_request.newHashes.end())
            given = m_request.newHashes.find(m_request.to);
        if (given != m_request.newHashes.end())
            if (const auto digest = decode(given->second)) {
                edits->replace(fetcher.hashRange, encode(*digest, notation));
                return {};
            }
        edits->replace(fetcher.hashRange, encode(Digest{}, notation));
        outcome->needsHash = true;
        if (!url.empty())
            outcome->downloads.emplace_back(url, unpacks(fetcher.callee));
        return "needs a new hash: " + fetcher.hashAttribute + " set to the all-zero fake hash " +
               "(prefetch " + (url.empty() ? "the new source" : url) +
               ", or build once: Nix reports the right one)";
    }

    const RepositorySource& m_source;
    const PinBumpRequest& m_request;
};

std::string checkPins(const PinBumpRequest& request)
{
    if (request.from.empty() || request.to.empty())
        return "a pin bump needs both a from-pin and a to-pin";
    if (!isFullRevision(request.to))
        return "malformed pin '" + request.to +
               "': the new pin must be a full nixpkgs revision, 40 lower-case hex digits" +
               (request.to.size() >= 7 && allHex(request.to) ? " (resolve the abbreviation first)"
                                                             : "");
    // A recipe may pin a branch or tag ("nixos-24.05"): any revision a URL or `rev` can hold.
    const auto revisionCharacter = [](char c) {
        return isAlnum(c) || c == '.' || c == '-' || c == '_' || c == '/' || c == '+';
    };
    if (!std::all_of(request.from.begin(), request.from.end(), revisionCharacter))
        return "malformed pin '" + request.from + "': not a revision a recipe can write";
    if (request.from == request.to)
        return "the recipes are already on " + request.to + ": from and to are the same pin";
    return {};
}

// README table rows, or a whole Markdown document, quoting `from`.
std::optional<FileOperation> quoteUpdate(const RepositorySource& source, const std::string& path,
                                         const PinBumpRequest& request, bool tablesOnly)
{
    SourceFile file = source.read(path, maxDocumentSize);
    if (!file.error.empty())
        return std::nullopt;
    int count = 0;
    std::string after = replaceQuotes(file.bytes, request.from, request.to, tablesOnly, &count);
    if (count == 0)
        return std::nullopt;
    FileOperation op;
    op.kind = FileOperationKind::Modify;
    op.path = path;
    op.before = std::move(file.bytes);
    op.after = std::move(after);
    op.plannedHash = contentHash(op.before);
    op.reason = std::string(tablesOnly ? "version matrix" : "document") + " quotes pin " +
                shortRevision(request.from) + " (" + std::to_string(count) +
                (count == 1 ? " mention" : " mentions") + ")" + arrow + shortRevision(request.to);
    return op;
}

void addQuotes(const RepositorySource& source, const PinBumpRequest& request, ChangeSet* changes);
// One operation's outcome with the file whose download it needs and the recipes it bumps.
struct Bumped
{
    RecipeOutcome outcome;
    std::string path;
    int recipes = 1;
};

void collect(const PinBumpRequest& request, std::vector<Bumped> bumped, PinBumpPlan* result,
             std::vector<PrefetchTarget>* targets, const RepositorySource& source);

// Pins written in a module are the pins of every recipe that imports it: the module is
// bumped once, and only when every such recipe is in the scope.
void bumpModules(const std::vector<Candidate>& all, const PinBumpRequest& request,
                 const PinBumpBuilder& builder, std::vector<Bumped>* bumped, ChangeSet* changes)
{
    struct Module
    {
        std::vector<PinFact> pins;
        std::set<std::string> inside, outside;
    };
    std::map<std::string, Module> modules;
    for (const Candidate& c : all)
        for (const PinFact& pin : c.recipe->pins) {
            if (pin.file.empty() || pin.revision != request.from)
                continue;
            Module& module = modules[pin.file];
            (inScope(request.scope, c) ? module.inside : module.outside).insert(c.recipe->path);
            if (std::none_of(module.pins.begin(), module.pins.end(),
                             [&](const PinFact& known) { return known.range == pin.range; }))
                module.pins.push_back(pin);
        }
    for (const auto& [path, module] : modules) {
        if (module.inside.empty())
            continue;
        if (!module.outside.empty()) {
            changes->skipped.push_back(
                {path, path + ": its pin is shared with " + std::to_string(module.outside.size()) +
                           " recipes outside the scope (" + *module.outside.begin() +
                           (module.outside.size() > 1 ? ", …" : "") +
                           "); widen the scope to bump it"});
            continue;
        }
        const int users = static_cast<int>(module.inside.size());
        bumped->push_back({builder.bumpModule(path, module.pins, users), path, users});
    }
}

PinBumpPlan planWith(const RepositorySource& source, const Analysis& analysis,
                     const PinBumpRequest& request, std::vector<PrefetchTarget>* targets)
{
    PinBumpPlan result;
    if (result.error = checkPins(request); !result.error.empty())
        return result;
    std::vector<Candidate> all;
    for (const Cell& entry : analysis.cells)
        if (entry.recipe)
            all.push_back({entry.recipe.get(), &entry});
    for (const RecipeFacts& facts : analysis.unnamed)
        all.push_back({&facts, nullptr});
    const auto usesFrom = [&](const Candidate& c) {
        return std::any_of(c.recipe->pins.begin(), c.recipe->pins.end(),
                           [&](const PinFact& pin) { return pin.revision == request.from; });
    };
    std::vector<Candidate> chosen;
    int outside = 0;
    for (const Candidate& c : all)
        if (usesFrom(c))
            (inScope(request.scope, c) ? chosen.push_back(c) : void(++outside));
    if (chosen.empty()) {
        result.error = "no recipe " + std::string(outside ? "in the scope " : "") + "uses pin " +
                       request.from +
                       (outside ? " (" + std::to_string(outside) + " outside it do)" : "") +
                       "; nothing to change";
        return result;
    }
    std::vector<Bumped> bumped(chosen.size());
    std::vector<size_t> indices(chosen.size());
    for (size_t i = 0; i < indices.size(); ++i)
        indices[i] = i;
    const PinBumpBuilder builder(source, request);
    // Reading and parsing dominate; recipes are independent, so they are bumped in parallel,
    // on a pool of their own: Qt 6.4's raster engine splits the GUI thread's large fills across
    // the global pool and waits for them, so a map filling that pool stalls every paint.
    QThreadPool pool;
    QtConcurrent::blockingMap(&pool, indices, [&](size_t i) {
        bumped[i] = {builder.bump(chosen[i]), chosen[i].recipe->path, 1};
    });
    bumpModules(all, request, builder, &bumped, &result.changes);
    collect(request, std::move(bumped), &result, targets, source);
    return result;
}

void collect(const PinBumpRequest& request, std::vector<Bumped> bumped, PinBumpPlan* result,
             std::vector<PrefetchTarget>* targets, const RepositorySource& source)
{
    ChangeSet& changes = result->changes;
    result->recipes = 0;
    for (Bumped& one : bumped) {
        RecipeOutcome& outcome = one.outcome;
        if (outcome.skipped)
            changes.skipped.push_back(std::move(*outcome.skipped));
        if (!outcome.operation)
            continue;
        if (outcome.needsHash)
            result->needsHash.push_back(outcome.operation->path);
        for (const auto& [url, unpack] : outcome.downloads) {
            if (!targets)
                break;
            auto found =
                std::find_if(targets->begin(), targets->end(),
                             [&wanted = url](const PrefetchTarget& t) { return t.url == wanted; });
            if (found == targets->end())
                found = targets->insert(targets->end(), PrefetchTarget{url, unpack, url, {}});
            found->recipes.push_back(one.path);
        }
        changes.operations.push_back(std::move(*outcome.operation));
        result->recipes += one.recipes;
    }
    changes.title = "Bump nixpkgs " + shortRevision(request.from) + arrow +
                    shortRevision(request.to) + " (" + std::to_string(result->recipes) +
                    (result->recipes == 1 ? " recipe)" : " recipes)");
    if (result->recipes > 0)
        addQuotes(source, request, &changes);
    std::sort(changes.operations.begin(), changes.operations.end(),
              [](const FileOperation& a, const FileOperation& b) { return a.path < b.path; });
}

void addQuotes(const RepositorySource& source, const PinBumpRequest& request, ChangeSet* changes)
{
    if (request.readme) {
        if (auto op = quoteUpdate(source, readmePath, request, true))
            changes->operations.push_back(std::move(*op));
        else
            changes->skipped.push_back({readmePath, "no table row of README.md quotes pin " +
                                                        shortRevision(request.from)});
    }
    if (!request.docs || !source.isWritable())
        return;
    for (const std::string& path : markdownFiles(source.rootPath()))
        if (auto op = quoteUpdate(source, path, request, false))
            changes->operations.push_back(std::move(*op));
}

} // namespace

PinBumpPlanner::PinBumpPlanner(std::shared_ptr<const RepositorySource> source,
                               std::shared_ptr<const Analysis> analysis)
    : m_source(std::move(source)), m_analysis(std::move(analysis))
{}

PinBumpPlan PinBumpPlanner::plan(const PinBumpRequest& request) const
{
    return planWith(*m_source, *m_analysis, request, nullptr);
}

std::vector<PrefetchTarget> PinBumpPlanner::prefetchTargets(const PinBumpRequest& request) const
{
    PinBumpRequest withoutHashes = request;
    withoutHashes.newHashes.clear();
    std::vector<PrefetchTarget> targets;
    planWith(*m_source, *m_analysis, withoutHashes, &targets);
    return targets;
}

std::string PinBumpPlanner::commitMessage(const ChangeSet& changes, const PinBumpRequest& request)
{
    std::vector<std::string> recipes, hashes, others;
    for (const FileOperation& op : changes.operations) {
        if (!op.selected)
            continue;
        const bool recipe = op.path.ends_with(".nix");
        (recipe ? recipes : others).push_back(op.subject.empty() ? op.path : op.subject);
        if (recipe && op.reason.find("needs a new hash") != std::string::npos)
            hashes.push_back(op.subject.empty() ? op.path : op.subject);
    }
    std::string message = "Bump nixpkgs " + shortRevision(request.from) + arrow +
                          shortRevision(request.to) + "\n\nnixpkgs " + request.from + arrow +
                          request.to + "\n";
    const auto list = [&](const std::string& heading, const std::vector<std::string>& names) {
        if (names.empty())
            return;
        message += "\n" + heading + " (" + std::to_string(names.size()) + "):\n";
        for (const std::string& name : names)
            message += "- " + name + "\n";
    };
    list("Recipes", recipes);
    list("Still need the new hash (fake all-zero hash written)", hashes);
    list("Also updated", others);
    return message;
}

std::optional<nix::SourceRange> PinBumpPlanner::hashOf(std::string_view bytes, const PinFact& pin)
{
    std::optional<nix::SyntaxTree> tree;
    std::string error;
    const auto fetcher = fetcherOf(pin, bytes, &tree, &error);
    return fetcher ? std::optional(fetcher->hashRange) : std::nullopt;
}

bool PinBumpPlanner::isSha256(const std::string& hash)
{
    return decode(hash).has_value();
}

std::optional<std::string> PinBumpPlanner::resolvePin(const std::string& typed,
                                                      const std::vector<std::string>& known,
                                                      std::string* error)
{
    const std::string pin = lower(typed);
    const auto fail = [&](const std::string& why) -> std::optional<std::string> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (pin.empty())
        return fail("no pin given");
    // A revision written as it is (a branch name, an abbreviation) names itself.
    if (std::find(known.begin(), known.end(), typed) != known.end())
        return typed;
    if (!allHex(pin) || pin.size() > 40)
        return fail("malformed pin '" + typed +
                    "': a nixpkgs revision is 40 hex digits (7 or more abbreviate a known one)");
    if (pin.size() == 40 || std::find(known.begin(), known.end(), pin) != known.end())
        return pin;
    if (pin.size() < 7)
        return fail("malformed pin '" + typed +
                    "': too short to name a revision (7 hex digits at least)");
    std::set<std::string> matches;
    for (const std::string& candidate : known)
        if (isFullRevision(candidate) && candidate.starts_with(pin))
            matches.insert(candidate);
    if (matches.empty())
        return fail("unknown pin '" + typed +
                    "': no pin of this repository, its branches or the compared repositories "
                    "starts with it; give all 40 hex digits");
    if (matches.size() > 1) {
        std::string list;
        for (const std::string& m : matches)
            list += (list.empty() ? "" : ", ") + m;
        return fail("ambiguous pin '" + typed + "': " + list);
    }
    return *matches.begin();
}

} // namespace rg

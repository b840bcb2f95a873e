#pragma once

// What a build was built from, as the key its state is stored under: a recipe's content, that
// is the recipe file and every file of the repository it imports, hashed. The same content
// gives the same key in every clone and work tree (paths are relative to the repository
// root), and a one-byte change anywhere in it gives another.
//
//   const RecipeContentKey key = RecipeContentKey::compute(source, facts);
//   key.toString() → "content:3f0c…" (SHA-256, 64 hex digits)
//
// Which files: the recipe, the modules and plain files its evaluation read (RecipeFacts::
// modules, recorded by the analyzer's ModuleTrail) and the files it imports or callPackages
// (RecipeFacts::importedFiles, relative to the recipe's directory, as the missing-import rule
// resolves them). A file that is not there (or cannot be read) counts as "absent", so creating
// it changes the key too. Paths leaving the repository are not content of the repository and
// are left out.
//
// How: each file's bytes are hashed (SHA-256); the key is the SHA-256 of a versioned header
// and one line per file, "<path>\t<file digest or ->\n", in byte order of the paths. A scan
// already has those digests (RecipeFacts::digest, the modules' stamps), so keying every recipe
// of a scan reads nothing again (computeFromScan, keyAll); a build reads the files as they are
// when it is queued (compute), sharing each module's digest through a FileDigests.
//
// The kind leaves room for other keys of the same role: the derivation path of an evaluation
// against the pin ("drv:/nix/store/…drv") would say more than the content, and reads the same.

#include <QString>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace rg {

struct Analysis;
struct RecipeFacts;
class RepositorySource;

class RecipeContentKey
{
public:
    enum class Kind {
        None,       // no key: a history record from before keys, or a cell without a recipe
        Content,    // SHA-256 of the recipe's content (this class computes it)
        Derivation, // a derivation path (not computed yet; parsed and compared like the rest)
    };

    RecipeContentKey() = default;

    Kind kind() const { return m_kind; }
    bool isNull() const { return m_kind == Kind::None; }
    // The digest (64 hex digits) for Content, the store path for Derivation, "" for None.
    const std::string& value() const { return m_value; }
    // "content:<hex>", "drv:<path>"; "" for None. What the history stores.
    std::string toString() const;
    QString toQString() const;
    // Inverse of toString(); None for "" and for anything it does not know.
    static RecipeContentKey fromString(std::string_view text);
    static RecipeContentKey fromString(const QString& text);

    friend bool operator==(const RecipeContentKey&, const RecipeContentKey&) = default;

    // Digests of single files of one source, each computed once; thread-safe. Valid while the
    // files do not change: one per scan (or per build), not kept across edits.
    class FileDigests
    {
    public:
        // digestOf() the file's bytes; "-" when absent, unreadable or over maxFileSize.
        std::string digest(const RepositorySource& source, const std::string& path);

    private:
        std::mutex m_mutex;
        std::map<std::string, std::string> m_digests;
    };

    // The files the key covers (repository-relative, sorted, unique): the recipe first among
    // equals, then what it reads and imports.
    static std::vector<std::string> files(const RecipeFacts& facts);

    // SHA-256 of `bytes` as 64 lowercase hex digits: a file's digest in a key.
    static std::string digestOf(std::string_view bytes);

    // The key of the recipe `facts` were read from, reading its files from `source` now: what
    // a build records.
    static RecipeContentKey compute(const RepositorySource& source, const RecipeFacts& facts,
                                    FileDigests* digests = nullptr);
    // The same from what the scan that made `facts` read: RecipeFacts::digest and the modules'
    // stamps; only imports its evaluation did not reach are read from `source`. Equal to
    // compute() as long as the files are what the scan read.
    static RecipeContentKey computeFromScan(const RepositorySource& source,
                                            const RecipeFacts& facts,
                                            FileDigests* digests = nullptr);
    // The same for a recipe whose facts are not at hand (a build from the command line): the
    // analyzer's extraction reads that one file and follows its modules, as a scan does.
    static RecipeContentKey computeForFile(const RepositorySource& source,
                                           const std::string& recipePath);
    // Sets Cell::contentKey of every entry with a recipe (computeFromScan); `threads`
    // 0 → ideal count. For a scan's worker thread, right after the analysis.
    static void keyAll(Analysis& analysis, const RepositorySource& source, int threads = 0);

    // Files larger than this count as unreadable ("-"): the analyzer's default cap, so that a
    // scan and a build agree on every file.
    static constexpr uint64_t maxFileSize = 4 * 1024 * 1024;

private:
    RecipeContentKey(Kind kind, std::string value) : m_kind(kind), m_value(std::move(value)) {}
    template <typename DigestOf>
    static RecipeContentKey hashed(const RecipeFacts& facts, DigestOf&& digestOf);

    Kind m_kind = Kind::None;
    std::string m_value;
};

} // namespace rg

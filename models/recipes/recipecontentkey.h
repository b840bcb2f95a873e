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
// and one line per file, "<path>\t<file digest or ->\n", in byte order of the paths. Per-file
// digests are kept in a FileDigests so that recipes sharing a module hash it once.
//
// The kind leaves room for other keys of the same role: the derivation path of an evaluation
// against the pin ("drv:/nix/store/…drv") would say more than the content, and reads the same.

#include <QString>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
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
        // SHA-256 of the file's bytes as 64 hex digits; "-" when absent or unreadable.
        std::string digest(const RepositorySource& source, const std::string& path);

    private:
        std::mutex m_mutex;
        std::map<std::string, std::string> m_digests;
    };

    // The files the key covers (repository-relative, sorted, unique): the recipe first among
    // equals, then what it reads and imports.
    static std::vector<std::string> files(const RecipeFacts& facts);

    // The key of the recipe `facts` were read from, reading the files from `source` now.
    static RecipeContentKey compute(const RepositorySource& source, const RecipeFacts& facts,
                                    FileDigests* digests = nullptr);
    // The same for a recipe whose facts are not at hand (a build from the command line): the
    // analyzer's extraction reads that one file and follows its modules, then compute().
    static RecipeContentKey computeForFile(const RepositorySource& source,
                                           const std::string& recipePath);
    // Sets MatrixEntry::contentKey of every entry with a recipe; `threads` 0 → ideal count.
    // For a scan's worker thread: it reads every recipe and module once.
    static void keyAll(Analysis& analysis, const RepositorySource& source, int threads = 0);

    // Files larger than this count as unreadable ("-"); recipes and modules are kilobytes.
    static constexpr uint64_t maxFileSize = 64ull * 1024 * 1024;

private:
    RecipeContentKey(Kind kind, std::string value) : m_kind(kind), m_value(std::move(value)) {}

    Kind m_kind = Kind::None;
    std::string m_value;
};

} // namespace rg

#include "analysis/recipecontentkey.h"

#include "analysis/analysis.h"
#include "analysis/analyzer.h"
#include "analysis/recipemodules.h"
#include "vcs/repositorysource.h"

#include <QCryptographicHash>
#include <QThread>
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

namespace rg {

namespace {

constexpr std::string_view contentPrefix = "content:";
constexpr std::string_view derivationPrefix = "drv:";
// Changing what is hashed or how changes this line, so keys of the old definition never
// match the new one (their builds then read as "built from an older version").
constexpr std::string_view header = "recipegrid recipe content 1\n";

static_assert(RecipeContentKey::maxFileSize == AnalyzerOptions::defaultMaxFileSize);

std::string sha256Hex(std::string_view bytes)
{
    const QByteArray digest =
        QCryptographicHash::hash(QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size())),
                                 QCryptographicHash::Sha256);
    return digest.toHex().toStdString();
}

bool isHex64(std::string_view text)
{
    return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

// `imported` as written in the recipe ("./lib/x.nix", "../common.nix"), relative to the
// recipe's directory, as the missing-import rule reads it; "" outside the repository.
std::string resolveImport(const std::string& recipePath, const std::string& imported)
{
    if (!imported.starts_with("./") && !imported.starts_with("../"))
        return {};
    const std::string directory = recipePath.substr(0, recipePath.rfind('/') + 1);
    std::string path =
        std::filesystem::path(directory + imported).lexically_normal().generic_string();
    if (path.empty() || path == "." || path == ".." || path.starts_with("../") ||
        path.front() == '/' || path.back() == '/')
        return {};
    return path;
}

int idealThreads(int threads)
{
    return threads > 0 ? threads : std::max(1, QThread::idealThreadCount());
}

} // namespace

std::string RecipeContentKey::toString() const
{
    switch (m_kind) {
    case Kind::None:
        return {};
    case Kind::Content:
        return std::string(contentPrefix) + m_value;
    case Kind::Derivation:
        return std::string(derivationPrefix) + m_value;
    }
    return {};
}

QString RecipeContentKey::toQString() const
{
    return QString::fromStdString(toString());
}

RecipeContentKey RecipeContentKey::fromString(std::string_view text)
{
    if (text.starts_with(contentPrefix) && isHex64(text.substr(contentPrefix.size())))
        return {Kind::Content, std::string(text.substr(contentPrefix.size()))};
    if (text.starts_with(derivationPrefix) && text.size() > derivationPrefix.size())
        return {Kind::Derivation, std::string(text.substr(derivationPrefix.size()))};
    return {};
}

RecipeContentKey RecipeContentKey::fromString(const QString& text)
{
    return fromString(std::string_view(text.toStdString()));
}

std::string RecipeContentKey::FileDigests::digest(const RepositorySource& source,
                                                  const std::string& path)
{
    {
        std::lock_guard lock(m_mutex);
        if (const auto it = m_digests.find(path); it != m_digests.end())
            return it->second;
    }
    // Read and hash outside the lock: two threads may hash the same file once each, which
    // costs less than making every other file wait.
    const SourceFile file = source.read(path, maxFileSize);
    std::string digest = file.error.empty() ? sha256Hex(file.bytes) : std::string("-");
    std::lock_guard lock(m_mutex);
    return m_digests.try_emplace(path, std::move(digest)).first->second;
}

std::vector<std::string> RecipeContentKey::files(const RecipeFacts& facts)
{
    std::set<std::string> paths;
    if (!facts.path.empty())
        paths.insert(facts.path);
    for (const auto& [module, stamp] : facts.modules)
        if (!module.empty())
            paths.insert(module);
    for (const Fact<std::string>& imported : facts.importedFiles)
        if (std::string path = resolveImport(facts.path, imported.value); !path.empty())
            paths.insert(std::move(path));
    return {paths.begin(), paths.end()};
}

std::string RecipeContentKey::digestOf(std::string_view bytes)
{
    return sha256Hex(bytes);
}

template <typename DigestOf>
RecipeContentKey RecipeContentKey::hashed(const RecipeFacts& facts, DigestOf&& digestOf)
{
    if (facts.path.empty())
        return {};
    std::string text(header);
    for (const std::string& path : files(facts)) {
        text += path;
        text += '\t';
        text += digestOf(path);
        text += '\n';
    }
    return {Kind::Content, sha256Hex(text)};
}

RecipeContentKey RecipeContentKey::compute(const RepositorySource& source, const RecipeFacts& facts,
                                           FileDigests* digests)
{
    FileDigests own;
    FileDigests& known = digests ? *digests : own;
    return hashed(facts, [&](const std::string& path) { return known.digest(source, path); });
}

RecipeContentKey RecipeContentKey::computeFromScan(const RepositorySource& source,
                                                   const RecipeFacts& facts, FileDigests* digests)
{
    FileDigests own;
    FileDigests& known = digests ? *digests : own;
    return hashed(facts, [&](const std::string& path) -> std::string {
        if (path == facts.path && !facts.digest.empty())
            return facts.digest; // else unread by the scan: read now, "-" when it still fails
        // The scan read every module it recorded; "" is one it could not read.
        for (const auto& [module, stamp] : facts.modules)
            if (module == path)
                return stamp.empty() ? std::string("-") : stamp;
        return known.digest(source, path); // imported, but not reached by the evaluation
    });
}

RecipeContentKey RecipeContentKey::computeForFile(const RepositorySource& source,
                                                  const std::string& recipePath)
{
    SourceFile file = source.read(recipePath, AnalyzerOptions::defaultMaxFileSize);
    RecipeFacts facts;
    // The analyzer's own extraction, with the trail that records the modules it reads and
    // their digests: the facts a scan records for this recipe.
    RecipeModules modules(source, AnalyzerOptions::defaultMaxFileSize);
    if (file.error.empty()) {
        std::string digest = digestOf(file.bytes);
        ModuleTrail trail(modules);
        facts = Analyzer().extract(recipePath, std::move(file.bytes), &trail);
        facts.digest = std::move(digest);
        for (const std::string& module : trail.reached())
            facts.modules.emplace_back(module, modules.stamp(module));
    }
    facts.path = recipePath;
    return computeFromScan(source, facts);
}

void RecipeContentKey::keyAll(Analysis& analysis, const RepositorySource& source, int threads)
{
    std::vector<Cell*> keyed;
    for (Cell& entry : analysis.cells)
        if (entry.recipe)
            keyed.push_back(&entry);
    FileDigests digests;
    const size_t workers = std::min<size_t>(keyed.size(), size_t(idealThreads(threads)));
    std::atomic<size_t> next{0};
    auto loop = [&] {
        for (size_t i = next++; i < keyed.size(); i = next++)
            keyed[i]->contentKey = computeFromScan(source, *keyed[i]->recipe, &digests).toString();
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < workers; ++t)
        pool.emplace_back(loop);
    loop();
    for (std::thread& thread : pool)
        thread.join();
}

} // namespace rg

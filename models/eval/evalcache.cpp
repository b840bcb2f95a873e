#include "eval/evalcache.h"

#include "analysis/recipecontentkey.h"
#include "eval/evalbatch.h"
#include "vcs/atomicfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <nlohmann/json.hpp>

namespace rg {

namespace {

// A local source as far as a key needs it: its path, and when it or its top file last changed.
std::string identityOf(const std::string& path)
{
    std::string identity = path;
    for (const QString& file : {QString::fromStdString(path),
                                QString::fromStdString(path) + QStringLiteral("/default.nix")}) {
        const QFileInfo info(file);
        identity += '\t' +
                    std::to_string(info.exists() ? info.lastModified().toMSecsSinceEpoch() : -1) +
                    '\t' + std::to_string(info.size());
    }
    return identity;
}

} // namespace

EvalCache::EvalCache(const EvalSettings& settings, std::string nixVersion)
    : m_dir(settings.cacheDir), m_settings(settings)
{
    m_common = "recipegrid-eval 1\n" + nixVersion + '\n' +
               RecipeContentKey::digestOf(EvalBatch::wrapper()) + '\n' + settings.store + '\n' +
               (settings.defaultNixpkgs.empty() ? "" : identityOf(settings.defaultNixpkgs)) + '\n';
}

std::string EvalCache::keyOf(const EvalItem& item) const
{
    if (!enabled() || item.contentKey.empty())
        return {};
    // The recipe's path matters too: the same bytes elsewhere import other files.
    std::string text = m_common + item.path + '\n' + item.contentKey + '\n' + item.pin + '\n';
    const auto source = m_settings.sources.find(item.pin);
    if (source != m_settings.sources.end())
        text += identityOf(source->second);
    return RecipeContentKey::digestOf(text);
}

std::optional<EvaluatedRecipe> EvalCache::find(const std::string& key) const
{
    if (key.empty())
        return std::nullopt;
    QFile file(QString::fromStdString(m_dir + "/" + key + ".json"));
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    const auto json = nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
    std::optional<EvaluatedRecipe> result;
    try {
        result = EvaluatedRecipe::fromJson(json);
    } catch (const nlohmann::json::exception&) {
        return std::nullopt; // a damaged entry is evaluated again
    }
    if (result)
        result->fromCache = true;
    return result;
}

void EvalCache::store(const std::string& key, const EvaluatedRecipe& result) const
{
    if (key.empty() || result.transient)
        return;
    QDir().mkpath(QString::fromStdString(m_dir));
    // A cache that cannot be written only costs a later evaluation; the result stands.
    AtomicFile::write(QString::fromStdString(m_dir + "/" + key + ".json"),
                      QByteArray::fromStdString(result.toJson().dump()));
}

} // namespace rg

#pragma once

// Every finished job, persisted as JSON (`<AppDataLocation>/build-history.json`), rewritten
// atomically after each job. A corrupt file is moved aside (the error says where) and the
// history starts fresh, so a bad file never costs more than its own contents.
//
// Schema 1 throughout: the fields added since (`contentKey`, `branch`, `commit`) are optional,
// so a file written before them reads as it is (its records have no key: they list in the
// history and never show on a grid cell) and an older RecipeGrid still reads a newer file.

#include "builds/buildrecord.h"

#include <QHash>
#include <QString>
#include <optional>
#include <vector>

namespace rg {

class BuildHistory
{
public:
    // `filePath` empty → `<AppDataLocation>/build-history.json`. Loads immediately.
    explicit BuildHistory(const QString& filePath = {});

    QString filePath() const { return m_filePath; }
    // Why the file could not be read ("…: line 3, column 7: …; the old file was kept as …");
    // empty when it loaded (or did not exist yet).
    QString loadError() const { return m_loadError; }
    QString backupPath() const { return m_backupPath; }
    // The last save's error; empty when it succeeded.
    QString saveError() const { return m_saveError; }

    const std::vector<BuildRecord>& records() const { return m_records; } // oldest first
    const BuildRecord* record(quint64 id) const;
    // The most recent record of that variant (any kind), nullptr when none.
    const BuildRecord* latest(const QString& variant, JobKind kind = JobKind::Build) const;
    // The most recent build of exactly this content (BuildRecord::contentKey) that speaks for
    // `repository`: one that ran there, or one that succeeded in any clone or work tree — Nix
    // finds the same output for the same content, but it builds a failed derivation again, and
    // a failure may have been the other machine's or the other copy's. nullptr when none or
    // when `contentKey` is empty.
    const BuildRecord* latestOfContent(const QString& contentKey, const QString& repository) const;
    // The most recent successful build of this derivation (BuildRecord::derivationKey), from
    // any repository; nullptr when none or when `derivationKey` is empty.
    const BuildRecord* latestOfDerivation(const QString& derivationKey) const;
    // The most recent build of `variant` in `repository` that has a content key, whatever the
    // key: with latestOfContent() null, the recipe there changed since that build.
    const BuildRecord* latestKeyed(const QString& repository, const QString& variant) const;

    // Inserts or replaces (by id) and saves; false when saving failed (see saveError()).
    bool add(const BuildRecord& record);
    // Ids are unique across sessions: one more than the largest recorded.
    quint64 nextJobId();

    // Expected duration of a build of `variant`: the median of its successful builds, else the
    // median of all successful builds; nullopt without any.
    std::optional<qint64> estimatedDurationMs(const QString& variant) const;

    static std::string toJson(const std::vector<BuildRecord>& records);
    // nullopt with `error` ("line L, column C: …") when the text is not a valid history.
    static std::optional<std::vector<BuildRecord>> fromJson(const std::string& json,
                                                            QString* error);

private:
    void load();
    bool save();
    void index(std::size_t position);
    void reindex();

    QString m_filePath;
    QString m_loadError;
    QString m_backupPath;
    QString m_saveError;
    std::vector<BuildRecord> m_records;
    quint64 m_nextId = 1;
    // Positions in m_records of the newest build by content key, and by repository + variant
    // among keyed builds: cells ask on every paint.
    QHash<QString, std::size_t> m_byContentHere; // repository + content key → newest build
    QHash<QString, std::size_t> m_succeededByContent;
    QHash<QString, std::size_t> m_succeededByDerivation;
    QHash<QString, std::size_t> m_byPlace;
};

} // namespace rg

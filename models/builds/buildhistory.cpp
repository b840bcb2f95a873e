#include "builds/buildhistory.h"

#include "vcs/atomicfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <algorithm>
#include <nlohmann/json.hpp>

namespace rg {

namespace {

using nlohmann::json;

constexpr int schemaVersion = 1;

std::string str(const QString& s)
{
    return s.toStdString();
}

QString qstr(const json& j, const char* key)
{
    const auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return {};
    return QString::fromStdString(it->get<std::string>());
}

std::string timeString(const QDateTime& t)
{
    return t.isValid() ? str(t.toUTC().toString(Qt::ISODateWithMs)) : std::string();
}

QDateTime timeValue(const json& j, const char* key)
{
    const QString s = qstr(j, key);
    return s.isEmpty() ? QDateTime() : QDateTime::fromString(s, Qt::ISODateWithMs);
}

json recordToJson(const BuildRecord& r)
{
    json args = json::array();
    for (const QString& a : r.arguments)
        args.push_back(str(a));
    json placements = json::array();
    for (const BuildPlacement& p : r.placements)
        placements.push_back({{"derivation", str(p.derivation)},
                              {"machine", str(p.machine)},
                              {"failure", str(p.failure)}});
    return json{
        {"id", r.id},
        {"kind", str(jobKindName(r.kind))},
        {"variant", str(r.variant)},
        {"repository", str(r.repository)},
        {"branch", str(r.branch)},
        {"commit", str(r.commit)},
        {"contentKey", str(r.contentKey)},
        {"derivationKey", str(r.derivationKey)},
        {"backend", str(backendKindName(r.backend))},
        {"program", str(r.program)},
        {"arguments", args},
        {"command", str(r.command)},
        {"state", str(jobStateName(r.state))},
        {"queuedAt", timeString(r.queuedAt)},
        {"startedAt", timeString(r.startedAt)},
        {"finishedAt", timeString(r.finishedAt)},
        {"exitCode", r.exitCode},
        {"error", str(r.error)},
        {"logPath", str(r.logPath)},
        {"logError", str(r.logError)},
        {"resultPath", str(r.resultPath)},
        {"verification",
         {{"status", str(VerificationResult::statusName(r.verification.status))},
          {"reason", str(r.verification.reason)},
          {"torch", str(r.verification.torch)},
          {"cuda", str(r.verification.cuda)},
          {"python", str(r.verification.python)}}},
        {"closureSize", r.closureSize},
        {"placements", placements},
        {"retryOf", r.retryOf},
    };
}

// Throws json exceptions on a wrong structure; the caller turns them into a message.
BuildRecord recordFromJson(const json& j)
{
    BuildRecord r;
    r.id = j.at("id").get<quint64>();
    r.kind = qstr(j, "kind") == QLatin1String("publish") ? JobKind::Publish : JobKind::Build;
    r.variant = qstr(j, "variant");
    r.repository = qstr(j, "repository");
    // Absent in records written before they were recorded.
    r.branch = qstr(j, "branch");
    r.commit = qstr(j, "commit");
    r.contentKey = qstr(j, "contentKey");
    r.derivationKey = qstr(j, "derivationKey");
    r.backend = backendKindFromName(qstr(j, "backend")).value_or(BackendKind::Nix);
    r.program = qstr(j, "program");
    for (const auto& a : j.value("arguments", json::array()))
        r.arguments << QString::fromStdString(a.get<std::string>());
    r.command = qstr(j, "command");
    const auto state = jobStateFromName(qstr(j, "state"));
    if (!state)
        throw std::runtime_error("unknown job state '" + j.at("state").get<std::string>() + "'");
    r.state = *state;
    r.queuedAt = timeValue(j, "queuedAt");
    r.startedAt = timeValue(j, "startedAt");
    r.finishedAt = timeValue(j, "finishedAt");
    r.exitCode = j.value("exitCode", -1);
    r.error = qstr(j, "error");
    r.logPath = qstr(j, "logPath");
    r.logError = qstr(j, "logError");
    r.resultPath = qstr(j, "resultPath");
    if (const auto v = j.find("verification"); v != j.end() && v->is_object()) {
        r.verification.status = VerificationResult::statusFromName(qstr(*v, "status"));
        r.verification.reason = qstr(*v, "reason");
        r.verification.torch = qstr(*v, "torch");
        r.verification.cuda = qstr(*v, "cuda");
        r.verification.python = qstr(*v, "python");
    }
    r.closureSize = j.value("closureSize", qint64(-1));
    r.retryOf = j.value("retryOf", quint64(0));
    for (const auto& p : j.value("placements", json::array()))
        r.placements << BuildPlacement{qstr(p, "derivation"), qstr(p, "machine"),
                                       qstr(p, "failure")};
    return r;
}

std::pair<int, int> lineColumn(const std::string& text, std::size_t byte)
{
    int line = 1;
    int column = 1;
    for (std::size_t i = 0; i < std::min(byte, text.size()); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {line, column};
}

qint64 median(std::vector<qint64> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

} // namespace

BuildHistory::BuildHistory(const QString& filePath)
    : m_filePath(filePath.isEmpty()
                     ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                           QStringLiteral("/build-history.json")
                     : filePath)
{
    load();
}

std::string BuildHistory::toJson(const std::vector<BuildRecord>& records)
{
    json list = json::array();
    for (const BuildRecord& r : records)
        list.push_back(recordToJson(r));
    return json{{"schema", schemaVersion}, {"jobs", list}}.dump(2) + "\n";
}

std::optional<std::vector<BuildRecord>> BuildHistory::fromJson(const std::string& text,
                                                               QString* error)
{
    auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return std::nullopt;
    };
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        const auto [line, column] = lineColumn(text, e.byte > 0 ? e.byte - 1 : 0);
        return fail(QStringLiteral("line %1, column %2: %3")
                        .arg(line)
                        .arg(column)
                        .arg(QString::fromStdString(e.what())));
    }
    if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_array())
        return fail(QStringLiteral("line 1, column 1: not a build history (no \"jobs\" list)"));
    if (doc.value("schema", 0) != schemaVersion)
        return fail(QStringLiteral("line 1, column 1: unsupported schema %1 (expected %2)")
                        .arg(QString::fromStdString(doc.value("schema", json()).dump()))
                        .arg(schemaVersion));
    std::vector<BuildRecord> records;
    const json& jobs = doc["jobs"];
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        try {
            records.push_back(recordFromJson(jobs[i]));
        } catch (const std::exception& e) {
            return fail(
                QStringLiteral("/jobs/%1: %2").arg(i).arg(QString::fromStdString(e.what())));
        }
    }
    return records;
}

void BuildHistory::load()
{
    QFile file(m_filePath);
    if (!file.exists())
        return;
    if (!file.open(QIODevice::ReadOnly)) {
        m_loadError = QStringLiteral("%1: %2").arg(m_filePath, file.errorString());
        return;
    }
    const QByteArray bytes = file.readAll();
    file.close();
    QString why;
    if (auto records = fromJson(bytes.toStdString(), &why)) {
        m_records = std::move(*records);
        for (const BuildRecord& r : m_records)
            m_nextId = std::max(m_nextId, r.id + 1);
        reindex();
        return;
    }
    // Keep the unreadable file for the user, then start fresh.
    m_backupPath = m_filePath + QStringLiteral(".corrupt-") +
                   QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
    const bool moved = QFile::rename(m_filePath, m_backupPath);
    m_loadError = QStringLiteral("%1: %2; %3")
                      .arg(m_filePath, why,
                           moved ? QStringLiteral("the old file was kept as %1 and the history "
                                                  "starts empty")
                                       .arg(m_backupPath)
                                 : QStringLiteral("it could not be moved aside, so the history "
                                                  "starts empty and will overwrite it"));
    if (!moved)
        m_backupPath.clear();
}

bool BuildHistory::save()
{
    if (!QDir().mkpath(QFileInfo(m_filePath).absolutePath())) {
        m_saveError = QStringLiteral("%1: cannot create its directory").arg(m_filePath);
        return false;
    }
    const std::string text = toJson(m_records);
    if (const QString failed = AtomicFile::write(
            m_filePath, QByteArrayView(text.data(), static_cast<qsizetype>(text.size())));
        !failed.isEmpty()) {
        m_saveError = QStringLiteral("%1: %2").arg(m_filePath, failed);
        return false;
    }
    m_saveError.clear();
    return true;
}

const BuildRecord* BuildHistory::record(quint64 id) const
{
    const auto it = std::find_if(m_records.begin(), m_records.end(),
                                 [id](const BuildRecord& r) { return r.id == id; });
    return it == m_records.end() ? nullptr : &*it;
}

const BuildRecord* BuildHistory::latest(const QString& variant, JobKind kind) const
{
    for (auto it = m_records.rbegin(); it != m_records.rend(); ++it) {
        if (it->variant == variant && it->kind == kind)
            return &*it;
    }
    return nullptr;
}

namespace {

QString placeOf(const BuildRecord& r)
{
    return r.repository + QChar(u'\n') + r.variant;
}

} // namespace

void BuildHistory::index(std::size_t position)
{
    const BuildRecord& r = m_records[position];
    if (r.kind == JobKind::Build && r.state == JobState::Succeeded && !r.derivationKey.isEmpty())
        m_succeededByDerivation.insert(r.derivationKey, position);
    if (r.kind != JobKind::Build || r.contentKey.isEmpty())
        return;
    m_byContentHere.insert(r.repository + QLatin1Char('\n') + r.contentKey, position);
    if (r.state == JobState::Succeeded)
        m_succeededByContent.insert(r.contentKey, position);
    m_byPlace.insert(placeOf(r), position);
}

void BuildHistory::reindex()
{
    m_byContentHere.clear();
    m_succeededByContent.clear();
    m_succeededByDerivation.clear();
    m_byPlace.clear();
    for (std::size_t i = 0; i < m_records.size(); ++i)
        index(i); // later positions overwrite: the newest wins
}

const BuildRecord* BuildHistory::latestOfContent(const QString& contentKey,
                                                 const QString& repository) const
{
    if (contentKey.isEmpty())
        return nullptr;
    const auto here = m_byContentHere.constFind(repository + QLatin1Char('\n') + contentKey);
    const auto succeeded = m_succeededByContent.constFind(contentKey);
    std::optional<std::size_t> newest;
    if (here != m_byContentHere.cend())
        newest = *here;
    if (succeeded != m_succeededByContent.cend() && (!newest || *succeeded > *newest))
        newest = *succeeded;
    return newest ? &m_records[*newest] : nullptr;
}

const BuildRecord* BuildHistory::latestOfDerivation(const QString& derivationKey) const
{
    const auto found = m_succeededByDerivation.constFind(derivationKey);
    return derivationKey.isEmpty() || found == m_succeededByDerivation.cend() ? nullptr
                                                                              : &m_records[*found];
}

const BuildRecord* BuildHistory::latestKeyed(const QString& repository,
                                             const QString& variant) const
{
    BuildRecord probe;
    probe.repository = repository;
    probe.variant = variant;
    const auto it = m_byPlace.constFind(placeOf(probe));
    return it == m_byPlace.cend() ? nullptr : &m_records[*it];
}

bool BuildHistory::add(const BuildRecord& record)
{
    auto it = std::find_if(m_records.begin(), m_records.end(),
                           [&](const BuildRecord& r) { return r.id == record.id; });
    if (it == m_records.end()) {
        m_records.push_back(record);
        index(m_records.size() - 1);
    } else {
        *it = record;
        reindex();
    }
    m_nextId = std::max(m_nextId, record.id + 1);
    return save();
}

quint64 BuildHistory::nextJobId()
{
    return m_nextId++;
}

std::optional<qint64> BuildHistory::estimatedDurationMs(const QString& variant) const
{
    std::vector<qint64> own;
    std::vector<qint64> all;
    for (const BuildRecord& r : m_records) {
        if (r.kind != JobKind::Build || r.state != JobState::Succeeded || r.durationMs() < 0)
            continue;
        all.push_back(r.durationMs());
        if (r.variant == variant)
            own.push_back(r.durationMs());
    }
    if (!own.empty())
        return median(own);
    if (!all.empty())
        return median(all);
    return std::nullopt;
}

} // namespace rg

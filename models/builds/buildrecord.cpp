#include "builds/buildrecord.h"

#include <QObject>

namespace rg {

QString jobStateName(JobState state)
{
    switch (state) {
    case JobState::Queued:
        return QStringLiteral("queued");
    case JobState::Running:
        return QStringLiteral("running");
    case JobState::Succeeded:
        return QStringLiteral("succeeded");
    case JobState::Failed:
        return QStringLiteral("failed");
    case JobState::Cancelled:
        return QStringLiteral("cancelled");
    }
    return QStringLiteral("queued");
}

std::optional<JobState> jobStateFromName(const QString& name)
{
    for (JobState state : {JobState::Queued, JobState::Running, JobState::Succeeded,
                           JobState::Failed, JobState::Cancelled}) {
        if (name == jobStateName(state))
            return state;
    }
    return std::nullopt;
}

QString jobKindName(JobKind kind)
{
    return kind == JobKind::Publish ? QStringLiteral("publish") : QStringLiteral("build");
}

qint64 BuildRecord::durationMs() const
{
    if (!startedAt.isValid())
        return -1;
    const QDateTime end = finishedAt.isValid() ? finishedAt : QDateTime::currentDateTimeUtc();
    return startedAt.msecsTo(end);
}

const BuildPlacement* BuildRecord::builtOn() const
{
    for (auto it = placements.crbegin(); it != placements.crend(); ++it) {
        if (!it->isFailure())
            return &*it;
    }
    return nullptr;
}

QString BuildRecord::builderLabel() const
{
    const BuildPlacement* p = builtOn();
    return p ? p->machineLabel() : QString();
}

QString BuildRecord::logStopNote(bool atLineStart) const
{
    if (logError.isEmpty())
        return {};
    return (atLineStart ? QString() : QStringLiteral("\n")) +
           QObject::tr("# the log file stops here: %1; what follows is not kept\n").arg(logError);
}

QStringList BuildRecord::builderFailures() const
{
    QStringList out;
    for (const BuildPlacement& p : placements) {
        if (p.isFailure())
            out << QStringLiteral("%1: %2").arg(p.machineLabel(), p.failure);
    }
    return out;
}

QString formatDuration(qint64 ms)
{
    if (ms < 0)
        return {};
    const qint64 s = ms / 1000;
    if (s >= 3600)
        return QStringLiteral("%1h %2m %3s")
            .arg(s / 3600)
            .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
            .arg(s % 60, 2, 10, QLatin1Char('0'));
    if (s >= 60)
        return QStringLiteral("%1m %2s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1s").arg(s);
}

} // namespace rg

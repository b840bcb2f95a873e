#include "recentrepositories.h"

#include <QFileInfo>
#include <QSettings>

namespace rg {

namespace {

constexpr int maxRecent = 8;
const QString recentKey = QStringLiteral("recentRepositories");

} // namespace

RecentRepositories::RecentRepositories(QObject* parent)
    : QObject(parent), m_paths(QSettings().value(recentKey).toStringList())
{
    m_writer.setMaxThreadCount(1);
}

RecentRepositories::~RecentRepositories()
{
    flush();
}

void RecentRepositories::add(const QString& path)
{
    m_paths.removeAll(path);
    m_paths.prepend(path);
    while (m_paths.size() > maxRecent)
        m_paths.removeLast();
    store();
}

void RecentRepositories::openFailed(const QString& path)
{
    if (!m_paths.contains(path) || QFileInfo::exists(path))
        return;
    m_paths.removeAll(path);
    store();
}

void RecentRepositories::flush()
{
    m_writer.waitForDone();
}

void RecentRepositories::store()
{
    m_writer.start([recent = m_paths] { QSettings().setValue(recentKey, recent); });
    emit changed();
}

} // namespace rg

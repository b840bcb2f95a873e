#pragma once

// The repositories the window opened last, newest first, as File ▸ Open Recent and the welcome
// page list them; kept in the user's settings. A folder that is gone leaves the list when
// opening it fails, so that the list does not keep offering it.

#include <QObject>
#include <QStringList>
#include <QThreadPool>

namespace rg {

class RecentRepositories : public QObject
{
    Q_OBJECT
public:
    explicit RecentRepositories(QObject* parent = nullptr); // reads the settings
    ~RecentRepositories() override;                         // waits for its writes

    QStringList paths() const { return m_paths; }
    void add(const QString& path);
    // Opening `path` failed: a folder that no longer exists leaves the list; one that is there
    // (unreadable, not a repository yet) stays, since the user may mend it.
    void openFailed(const QString& path);
    // Waits for the writes started so far, so that settings written after them land after them.
    void flush();

signals:
    void changed();

private:
    void store();

    QStringList m_paths;
    // A settings file written on the GUI thread stalls the window for as long as the disk takes
    // (tens of ms while a scan reads thousands of recipes). One thread: the writes land in order.
    QThreadPool m_writer;
};

} // namespace rg

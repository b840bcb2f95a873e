#pragma once

// Asks every remote builder at once whether Nix can reach it: `nix store ping` on the
// builder's store, with the machine's SSH key and public host key, within a time limit. Runs
// the processes itself, without blocking; finished() when each builder has answered. What it
// says per builder is what the user needs to mend it: up with the time it took, or down with
// Nix's (or ssh's) words.

#include "builds/buildermachine.h"

#include <QList>
#include <QObject>
#include <QString>

class QProcess;

namespace rg {

struct BuilderHealth
{
    QString uri;
    QString label; // "user@host"
    bool up = false;
    QString message; // down: the reason; up: ""
    qint64 elapsedMs = -1;
    bool answered = false; // false while its check still runs
};

class BuilderCheck : public QObject
{
    Q_OBJECT
public:
    explicit BuilderCheck(QObject* parent = nullptr);
    ~BuilderCheck() override; // kills what still runs

    // `sharedFor`: the builders text of the builds that follow, whose shared connections the
    // check opens for them (BuildQueue); empty: a connection of its own per builder, so that
    // Test Connections asks each builder afresh.
    void start(const QList<BuilderMachine>& machines, int timeoutMs = 30000,
               const QString& sharedFor = {});
    bool isRunning() const { return m_pending > 0; }
    // In the machines' order; those still being asked are not answered().
    const QList<BuilderHealth>& results() const { return m_results; }

    // The store URI `nix store ping` gets: the machine's URI with its key and host key as the
    // store's ssh-key and base64-ssh-public-host-key settings.
    static QString storeUri(const BuilderMachine& machine);

signals:
    void builderAnswered(int index); // results()[index] holds its answer
    void finished();

private:
    void conclude(int index, QProcess* process, bool timedOut);

    QList<BuilderHealth> m_results;
    QList<QProcess*> m_processes;
    int m_pending = 0;
};

} // namespace rg

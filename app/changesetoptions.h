#pragma once

// The options of every command that writes a change set (create, fix, delete, complete,
// bump-pin), with the same words and the same checks: --dry-run, --diff, --commit,
// --message, --format, --spec and --recipe-dir, read into ChangeSetRun's options together
// with the repository they apply to.

#include "changesetrun.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QList>
#include <optional>
#include <string>

namespace rg {

class ChangeSetOptions
{
public:
    ChangeSetOptions();

    const QList<QCommandLineOption>& options() const { return m_options; }
    // Fills `run` for `command` from the parsed command line and REPO (which must be writable
    // unless it is a dry run); a return value is the exit status to stop with, after saying
    // why.
    std::optional<int> read(const std::string& command, const QCommandLineParser& parser,
                            const QString& repo, ChangeSetRun::Options* run) const;

private:
    QCommandLineOption m_dryRun;
    QCommandLineOption m_diff;
    QCommandLineOption m_commit;
    QCommandLineOption m_message;
    QCommandLineOption m_format;
    QCommandLineOption m_spec;
    QCommandLineOption m_recipeDir;
    QList<QCommandLineOption> m_options;
};

} // namespace rg

#include "changesetoptions.h"

#include "commandline.h"

namespace rg {

ChangeSetOptions::ChangeSetOptions()
    : m_dryRun(QStringLiteral("dry-run"), QStringLiteral("Print the plan; write nothing.")),
      m_diff(QStringLiteral("diff"), QStringLiteral("Print the unified diff of each file.")),
      m_commit(QStringLiteral("commit"),
               QStringLiteral("Commit the changed files on HEAD (git identity from git config).")),
      m_message(QStringLiteral("message"),
                QStringLiteral("Commit message (default: the change set's own, naming what it "
                               "changes)."),
                QStringLiteral("TEXT")),
      m_format(QStringLiteral("format"), QStringLiteral("Output format: text or json."),
               QStringLiteral("FORMAT"), QStringLiteral("text")),
      m_spec(QStringLiteral("spec"),
             QStringLiteral("Matrix spec file (default: .flox/recipegrid.json in the repository; "
                            "inferred from the recipes when absent)."),
             QStringLiteral("FILE")),
      m_recipeDir(QStringLiteral("recipe-dir"),
                  QStringLiteral("Recipe directory relative to the repository (default: the "
                                 "spec's, or .flox/pkgs)."),
                  QStringLiteral("DIR")),
      m_options{m_dryRun, m_diff, m_commit, m_message, m_format, m_spec, m_recipeDir}
{}

std::optional<int> ChangeSetOptions::read(const std::string& command,
                                          const QCommandLineParser& parser, const QString& repo,
                                          ChangeSetRun::Options* run) const
{
    run->command = command;
    if (const auto stop = CommandLine::readFormat(command, parser.value(m_format), &run->json))
        return stop;
    run->dryRun = parser.isSet(m_dryRun);
    run->diff = parser.isSet(m_diff);
    run->commit = parser.isSet(m_commit);
    run->message = parser.value(m_message).toStdString();
    if (parser.isSet(m_message) && !run->commit)
        return CommandLine::usageError(command, QStringLiteral("--message needs --commit"));
    if (run->commit && run->dryRun)
        return CommandLine::usageError(
            command, QStringLiteral("--dry-run writes nothing, so it cannot --commit"));
    if (parser.isSet(m_recipeDir))
        run->analyzer.recipeDir = parser.value(m_recipeDir).toStdString();
    if (const auto stop = CommandLine::readRepository(command, repo, !run->dryRun, &run->root))
        return stop;
    return CommandLine::readSpecFile(command, parser, m_spec, &run->analyzer.specPath);
}

} // namespace rg

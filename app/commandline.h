#pragma once

// What every headless subcommand says the same way: usage and repository errors (exit 2),
// and --help with the subcommand in its usage line.

#include <QString>
#include <optional>
#include <string>

class QCommandLineOption;
class QCommandLineParser;

namespace rg {

class CommandLine
{
public:
    // "recipegrid COMMAND: MESSAGE" and a pointer to --help on stderr; returns 2.
    static int usageError(const std::string& command, const QString& message);
    // "recipegrid COMMAND: MESSAGE" on stderr; returns 2.
    static int repositoryError(const std::string& command, const std::string& message);
    // The parser's help with `usage` ("recipegrid pins [options] REPO") as its first line;
    // QCommandLineParser names only the binary. Returns 0.
    static int printHelp(const QCommandLineParser& parser, const QString& usage);

    // The checks below return the exit status to stop with, after saying why; nullopt when
    // the value is sound.
    // --format text|json; `json` says which.
    static std::optional<int> readFormat(const std::string& command, const QString& format,
                                         bool* json);
    // REPO exists and is a directory (writable when `writable`); `root` gets its absolute path.
    static std::optional<int> readRepository(const std::string& command, const QString& repo,
                                             bool writable, std::string* root);
    // --spec FILE exists (its absolute path into `specPath`), when given.
    static std::optional<int> readSpecFile(const std::string& command,
                                           const QCommandLineParser& parser,
                                           const QCommandLineOption& spec, std::string* specPath);
};

} // namespace rg

#pragma once

// What every headless subcommand says the same way: usage and repository errors (exit 2),
// and --help with the subcommand in its usage line.

#include <QString>
#include <string>

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
};

} // namespace rg

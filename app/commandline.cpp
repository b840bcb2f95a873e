#include "commandline.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <iostream>

namespace rg {

int CommandLine::usageError(const std::string& command, const QString& message)
{
    std::cerr << "recipegrid " << command << ": " << message.toStdString() << "\n"
              << "Try 'recipegrid " << command << " --help'.\n";
    return 2;
}

int CommandLine::repositoryError(const std::string& command, const std::string& message)
{
    std::cerr << "recipegrid " << command << ": " << message << "\n";
    return 2;
}

int CommandLine::printHelp(const QCommandLineParser& parser, const QString& usage)
{
    QString help = parser.helpText();
    help.replace(0, help.indexOf(QLatin1Char('\n')), QStringLiteral("Usage: ") + usage);
    std::cout << help.toStdString();
    return 0;
}

std::optional<int> CommandLine::readFormat(const std::string& command, const QString& format,
                                           bool* json)
{
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return usageError(command,
                          QStringLiteral("unknown format '%1' (text or json)").arg(format));
    *json = format == QLatin1String("json");
    return std::nullopt;
}

std::optional<int> CommandLine::readRepository(const std::string& command, const QString& repo,
                                               bool writable, std::string* root)
{
    const QFileInfo info(repo);
    if (!info.exists())
        return repositoryError(command, repo.toStdString() + ": no such repository");
    if (!info.isDir())
        return repositoryError(command, repo.toStdString() + ": not a directory");
    if (writable && !info.isWritable())
        return repositoryError(command, repo.toStdString() + ": not writable");
    *root = QDir::cleanPath(info.absoluteFilePath()).toStdString();
    return std::nullopt;
}

std::optional<int> CommandLine::readSpecFile(const std::string& command,
                                             const QCommandLineParser& parser,
                                             const QCommandLineOption& spec, std::string* specPath)
{
    if (!parser.isSet(spec))
        return std::nullopt;
    const QFileInfo file(parser.value(spec));
    if (!file.isFile())
        return repositoryError(command, parser.value(spec).toStdString() + ": no such spec file");
    *specPath = file.absoluteFilePath().toStdString();
    return std::nullopt;
}

} // namespace rg

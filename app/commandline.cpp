#include "commandline.h"

#include <QCommandLineParser>
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

} // namespace rg

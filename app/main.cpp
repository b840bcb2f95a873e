// recipegrid: with a subcommand it runs headless; without one it opens the window.

#include "buildcommand.h"
#include "changecommand.h"
#include "checkcommand.h"
#include "exportcicommand.h"
#include "guilauncher.h"
#include "pincommand.h"

#include <QCoreApplication>
#include <cstring>
#include <iostream>

namespace {

struct Command
{
    const char* name;
    const char* summary;
    int (*run)(const QStringList& arguments);
};

const Command commands[] = {
    {"check", "Analyse a recipe repository and report findings", rg::CheckCommand::run},
    {"build", "Build variants with flox or nix, streaming their logs", rg::BuildCommand::run},
    {"export-ci", "Write a GitHub Actions workflow that builds variants", rg::ExportCiCommand::run},
    {"complete", "Create, fix and delete recipes until the matrix is complete",
     rg::ChangeCommand::complete},
    {"create", "Create the recipes of missing cells", rg::ChangeCommand::create},
    {"fix", "Fix broken recipes", rg::ChangeCommand::fix},
    {"delete", "Delete recipes of cells or recipe files", rg::ChangeCommand::remove},
    {"bump-pin", "Move recipes from one nixpkgs pin to another", rg::PinCommand::bumpPin},
    {"pins", "List nixpkgs pins; compare them across branches and repositories",
     rg::PinCommand::pins},
};

} // namespace

int main(int argc, char* argv[])
{
    if (argc > 1) {
        for (const Command& command : commands) {
            if (std::strcmp(argv[1], command.name) != 0)
                continue;
            QCoreApplication app(argc, argv);
            QCoreApplication::setApplicationName(QStringLiteral("recipegrid"));
            QCoreApplication::setApplicationVersion(QStringLiteral(RG_VERSION));
            QStringList arguments = QCoreApplication::arguments();
            arguments.removeAt(1); // the parser sees "recipegrid [options] …"
            arguments[0] += QLatin1Char(' ') + QLatin1String(command.name);
            return command.run(arguments);
        }
    }
    if (argc > 1 && (std::strcmp(argv[1], "help") == 0)) {
        std::cout << "Usage: recipegrid [--demo] [REPO]\n       recipegrid COMMAND --help\n\n"
                     "Commands:\n";
        for (const Command& command : commands)
            std::cout << "  " << command.name << std::string(12 - std::strlen(command.name), ' ')
                      << command.summary << '\n';
        return 0;
    }
    return rg::GuiLauncher::run(argc, argv);
}

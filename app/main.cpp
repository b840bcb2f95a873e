// recipegrid: with a subcommand it runs headless; with nothing, options or a path it opens
// the window; any other word is a mistyped command. Built with -DRG_GUI=OFF it has the
// commands alone (Qt Core only), for machines without Qt Widgets.

#ifndef RG_WITHOUT_WINDOW
#include "guilauncher.h"
#endif
#include "headlesscommands.h"
#include "vcs/gitlibrary.h"

#include <QCoreApplication>
#include <filesystem>
#include <iostream>
#include <string_view>

namespace {

#ifdef RG_WITHOUT_WINDOW
constexpr bool withWindow = false;
#else
constexpr bool withWindow = true;
#endif

int runHeadless(const rg::HeadlessCommand& command, int argc, char* argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("recipegrid"));
    QCoreApplication::setApplicationVersion(QStringLiteral(RG_VERSION));
    QStringList arguments = QCoreApplication::arguments();
    arguments.removeAt(1); // the parser sees "recipegrid [options] …"
    arguments[0] += QLatin1Char(' ') + QLatin1String(command.name);
    return command.run(arguments);
}

// A word that names neither a command nor anything on disk was meant as a command: opening
// the window on it would show an empty page, or abort where there is no display.
bool isUnknownCommand(std::string_view word)
{
    std::error_code error;
    return !word.empty() && !word.starts_with('-') && !std::filesystem::exists(word, error);
}

int unknownCommand(std::string_view word)
{
    std::cerr << "recipegrid: unknown command '" << word << "' (and no such file or folder)";
    if (const rg::HeadlessCommand* nearest = rg::HeadlessCommands::nearest(word))
        std::cerr << "; did you mean " << nearest->name << '?';
    std::cerr << "\n\n";
    rg::HeadlessCommands::printUsage(std::cerr, withWindow);
    return 2;
}

#ifdef RG_WITHOUT_WINDOW
// What a build without the window (-DRG_GUI=OFF) does with the window's arguments: answers
// --help and --version, and says what it lacks for anything else.
int withoutWindow(std::string_view first)
{
    if (first == "--version" || first == "-v") {
        std::cout << "RecipeGrid " RG_VERSION "\n";
        return 0;
    }
    if (first == "--help" || first == "-h") {
        rg::HeadlessCommands::printUsage(std::cout, withWindow);
        return 0;
    }
    std::cerr << "recipegrid: this build has no window (configured with -DRG_GUI=OFF)\n\n";
    rg::HeadlessCommands::printUsage(std::cerr, withWindow);
    return 2;
}
#endif

} // namespace

int main(int argc, char* argv[])
{
    // libgit2 (and the OpenSSL it sets up) initialised here, on the main thread, before any
    // worker could be the first to call it: state made by the first caller's thread would end
    // with that thread.
    rg::GitLibrary::ensureInitialised();
    if (argc > 1) {
        const std::string_view first = argv[1];
        if (const rg::HeadlessCommand* command = rg::HeadlessCommands::find(first))
            return runHeadless(*command, argc, argv);
        if (first == "help") {
            rg::HeadlessCommands::printUsage(std::cout, withWindow);
            return 0;
        }
        if (isUnknownCommand(first))
            return unknownCommand(first);
    }
#ifdef RG_WITHOUT_WINDOW
    return withoutWindow(argc > 1 ? argv[1] : "");
#else
    return rg::GuiLauncher::run(argc, argv);
#endif
}

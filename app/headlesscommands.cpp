#include "headlesscommands.h"

#include "buildcommand.h"
#include "changecommand.h"
#include "checkcommand.h"
#include "evalcommand.h"
#include "exportcicommand.h"
#include "pincommand.h"

#include <algorithm>
#include <ostream>
#include <vector>

namespace rg {

namespace {

const HeadlessCommand commands[] = {
    {"check", "Analyse a recipe repository and report findings", CheckCommand::run},
    {"eval", "Evaluate recipes with Nix against their pins and judge Nix's answer",
     EvalCommand::run},
    {"build", "Build variants with flox or nix, streaming their logs", BuildCommand::run},
    {"export-ci", "Write a GitHub Actions workflow that builds variants", ExportCiCommand::run},
    {"complete", "Create, fix and delete recipes until the matrix is complete",
     ChangeCommand::complete},
    {"create", "Create the recipes of missing cells", ChangeCommand::create},
    {"fix", "Fix broken recipes", ChangeCommand::fix},
    {"delete", "Delete recipes of cells or recipe files", ChangeCommand::remove},
    {"bump-pin", "Move recipes from one nixpkgs pin to another", PinCommand::bumpPin},
    {"pins", "List nixpkgs pins; compare them across branches and repositories", PinCommand::pins},
};

// Edits between two words, a swap of neighbours counting as one: typing slips are mostly
// one letter missing, doubled, wrong or swapped.
size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i)
        d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j)
        d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + substitution});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

} // namespace

std::span<const HeadlessCommand> HeadlessCommands::all()
{
    return commands;
}

const HeadlessCommand* HeadlessCommands::find(std::string_view name)
{
    for (const HeadlessCommand& command : commands)
        if (name == command.name)
            return &command;
    return nullptr;
}

const HeadlessCommand* HeadlessCommands::nearest(std::string_view word)
{
    // A beginning of a command ("comp", "export") names it; otherwise a short word may be one
    // edit away, a longer one two, beyond that the guess is noise ("eval" is not "fix").
    const size_t allowed = word.size() < 4 ? 1 : 2;
    const HeadlessCommand* best = nullptr;
    size_t bestDistance = allowed + 1;
    for (const HeadlessCommand& command : commands) {
        const std::string_view name = command.name;
        if (word.size() >= 2 && name.starts_with(word))
            return &command;
        const size_t distance = editDistance(word, name);
        if (distance < bestDistance) {
            best = &command;
            bestDistance = distance;
        }
    }
    return best;
}

std::string HeadlessCommands::names()
{
    std::string text;
    for (const HeadlessCommand& command : commands)
        text += (text.empty() ? "" : ", ") + std::string(command.name);
    return text;
}

void HeadlessCommands::printUsage(std::ostream& out, bool withWindow)
{
    out << (withWindow ? "Usage: recipegrid [--demo] [REPO]\n       " : "Usage: ")
        << "recipegrid COMMAND --help\n\nCommands:\n";
    for (const HeadlessCommand& command : commands) {
        const std::string_view name = command.name;
        out << "  " << name << std::string(12 - name.size(), ' ') << command.summary << '\n';
    }
}

} // namespace rg

#pragma once

// The headless subcommands of `recipegrid`: what main() dispatches to, what `help` lists, and
// what an unknown word is compared with to name the command the user probably meant.

#include <QStringList>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

namespace rg {

struct HeadlessCommand
{
    const char* name;
    const char* summary;
    int (*run)(const QStringList& arguments);
};

class HeadlessCommands
{
public:
    static std::span<const HeadlessCommand> all();
    static const HeadlessCommand* find(std::string_view name);
    // The command `word` is most likely a slip for ("chek" → check, "export" → export-ci);
    // null when none is near enough to suggest.
    static const HeadlessCommand* nearest(std::string_view word);
    // "check, build, export-ci, …": for one-line messages.
    static std::string names();
    // The usage lines and one line per command, as `recipegrid help` prints them; the line
    // that opens the window only where the build has one.
    static void printUsage(std::ostream& out, bool withWindow);
};

} // namespace rg

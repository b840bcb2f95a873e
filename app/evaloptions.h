#pragma once

// The command-line options that say how recipes are evaluated with Nix, shared by
// `recipegrid eval` and `recipegrid check --eval`: local nixpkgs sources, jobs, store, limits,
// cache.

#include "eval/evalsettings.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QList>
#include <string>

namespace rg {

class EvalOptions
{
public:
    EvalOptions();

    const QList<QCommandLineOption>& options() const { return m_options; }
    // The settings for the repository at `root` (absolute); "" in `error` when the options
    // are sound, else what is wrong with them.
    EvalSettings settingsFrom(const QCommandLineParser& parser, const std::string& root,
                              std::string* error) const;

private:
    QList<QCommandLineOption> m_options;
};

} // namespace rg

#include "builds/floxbackend.h"

#include <QProcessEnvironment>

namespace rg {

namespace {

void addNixConfig(ProcessSpec& spec, const BuildSettings& settings)
{
    const QString lines = settings.nixConfigLines();
    if (lines.isEmpty())
        return;
    const QString inherited =
        QProcessEnvironment::systemEnvironment().value(QStringLiteral("NIX_CONFIG"));
    spec.environment.insert(QStringLiteral("NIX_CONFIG"),
                            inherited.isEmpty() ? lines : inherited + QLatin1Char('\n') + lines);
}

} // namespace

std::optional<ProcessSpec> FloxBackend::buildProcess(const BuildTarget& target,
                                                     const BuildSettings& settings,
                                                     QString* error) const
{
    if (!checkTarget(target, error))
        return std::nullopt;
    ProcessSpec spec;
    spec.program = QStringLiteral("flox");
    spec.arguments = {QStringLiteral("build"), target.pname};
    spec.workingDirectory = target.repository;
    spec.resultPath = target.resultLink();
    addNixConfig(spec, settings);
    return spec;
}

std::optional<ProcessSpec> FloxBackend::publishProcess(const BuildTarget& target,
                                                       const BuildSettings& settings,
                                                       QString* error) const
{
    if (!checkTarget(target, error))
        return std::nullopt;
    if (!BuildTarget::isValidName(settings.publishOrg)) {
        if (error)
            *error =
                settings.publishOrg.isEmpty()
                    ? QStringLiteral("no organisation to publish to (set it in the build "
                                     "settings)")
                    : QStringLiteral("invalid organisation name '%1'").arg(settings.publishOrg);
        return std::nullopt;
    }
    ProcessSpec spec;
    spec.program = QStringLiteral("flox");
    spec.arguments = {QStringLiteral("publish"), QStringLiteral("-o"), settings.publishOrg,
                      target.pname};
    spec.workingDirectory = target.repository;
    addNixConfig(spec, settings);
    return spec;
}

} // namespace rg

#include "builds/verificationresult.h"

namespace rg {

QString VerificationResult::statusName(Status status)
{
    switch (status) {
    case Status::NotRun:
        return QStringLiteral("not run");
    case Status::Passed:
        return QStringLiteral("passed");
    case Status::Failed:
        return QStringLiteral("failed");
    }
    return QStringLiteral("not run");
}

VerificationResult::Status VerificationResult::statusFromName(const QString& name)
{
    if (name == QLatin1String("passed"))
        return Status::Passed;
    if (name == QLatin1String("failed"))
        return Status::Failed;
    return Status::NotRun;
}

} // namespace rg

#include "analysis/finding.h"

namespace rg {

std::string_view severityId(Severity severity)
{
    switch (severity) {
    case Severity::Error:
        return "error";
    case Severity::Warning:
        return "warning";
    case Severity::Info:
        return "info";
    }
    return "error";
}

std::string_view fixKindId(FixKind fix)
{
    switch (fix) {
    case FixKind::None:
        return "none";
    case FixKind::Regenerate:
        return "regenerate";
    case FixKind::ReplacePin:
        return "replace-pin";
    case FixKind::NewHash:
        return "new-hash";
    case FixKind::EditValue:
        return "edit-value";
    case FixKind::Rename:
        return "rename";
    case FixKind::Delete:
        return "delete";
    case FixKind::Create:
        return "create";
    }
    return "none";
}

} // namespace rg

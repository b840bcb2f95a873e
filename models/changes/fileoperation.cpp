#include "changes/fileoperation.h"

#include <QCryptographicHash>

namespace rg {

std::string_view fileOperationKindId(FileOperationKind kind)
{
    switch (kind) {
    case FileOperationKind::Create:
        return "create";
    case FileOperationKind::Modify:
        return "modify";
    case FileOperationKind::Delete:
        return "delete";
    }
    return "modify";
}

std::string contentHash(std::string_view bytes)
{
    const QByteArray digest =
        QCryptographicHash::hash(QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size())),
                                 QCryptographicHash::Sha256);
    return digest.toHex().toStdString();
}

} // namespace rg

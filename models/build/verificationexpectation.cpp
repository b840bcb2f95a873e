#include "build/verificationexpectation.h"

#include <QRegularExpression>

namespace rg {

VerificationExpectation VerificationExpectation::fromVariant(const QString& variant,
                                                             const QString& torchVersion)
{
    VerificationExpectation expected;
    expected.torch = torchVersion;
    // Components are '-'-separated; matching whole components keeps "pytorch210" from
    // being read as anything but the package word.
    const QStringList parts = variant.split(QLatin1Char('-'));
    static const QRegularExpression pythonPart(QStringLiteral("^(?:python|py)(\\d)(\\d+)$"));
    static const QRegularExpression cudaPart(QStringLiteral("^cuda(\\d+)_(\\d+)$"));
    for (const QString& part : parts) {
        if (const auto m = pythonPart.match(part); m.hasMatch() && expected.python.isEmpty())
            expected.python = m.captured(1) + QLatin1Char('.') + m.captured(2);
        else if (const auto c = cudaPart.match(part); c.hasMatch())
            expected.cuda = c.captured(1) + QLatin1Char('.') + c.captured(2);
        else if (part == QLatin1String("cpu") || part == QLatin1String("darwin"))
            expected.cuda = QStringLiteral("None");
    }
    return expected;
}

} // namespace rg

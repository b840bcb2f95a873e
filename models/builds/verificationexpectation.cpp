#include "builds/verificationexpectation.h"

#include "matrix/variantname.h"
#include "matrix/versionspelling.h"

namespace rg {

VerificationExpectation VerificationExpectation::fromVariant(const QString& variant,
                                                             const QString& torchVersion)
{
    VerificationExpectation expected;
    expected.torch = torchVersion;
    const auto name = VariantName::parse(variant.toStdString());
    if (!name)
        return expected; // not a matrix variant: only what the caller knows is checked
    expected.python = QString::fromStdString(dottedPython(name->python));
    switch (name->accelerator) {
    case Accelerator::Cuda:
        // Legacy names ("pytorch-py313-sm90-avx512") do not say which CUDA: not checked.
        expected.cuda = QString::fromStdString(name->cuda);
        break;
    case Accelerator::Cpu:
    case Accelerator::Darwin:
        expected.cuda = QStringLiteral("None");
        break;
    }
    return expected;
}

} // namespace rg

#pragma once

// What a built variant's Python must report when asked after the build: the torch version, the CUDA
// version ("None" for CPU-only and Darwin builds) and the Python version. An empty field is
// not checked.

#include <QString>

namespace rg {

struct VerificationExpectation
{
    QString torch;  // "2.9.1"; a local suffix in the result ("2.9.1+cu129") still matches
    QString cuda;   // "12.9" or "None"
    QString python; // "3.13": matches "Python 3.13.x"

    // Reads the Python and accelerator axes from a variant name (VariantName: python313 /
    // py313, cuda12_9, cpu, darwin). Legacy names without a CUDA component leave `cuda` empty;
    // names that are no matrix variant leave everything but `torch` empty.
    static VerificationExpectation fromVariant(const QString& variant,
                                               const QString& torchVersion = {});

    bool isEmpty() const { return torch.isEmpty() && cuda.isEmpty() && python.isEmpty(); }
    friend bool operator==(const VerificationExpectation&,
                           const VerificationExpectation&) = default;
};

} // namespace rg

#pragma once

// The verdict of running a built variant's Python against the expectation.

#include <QString>

namespace rg {

struct VerificationResult
{
    enum class Status { NotRun, Passed, Failed };

    Status status = Status::NotRun;
    QString reason; // why it failed; empty when passed or not run
    QString torch;  // what the result reported
    QString cuda;
    QString python; // "3.13.1"

    bool passed() const { return status == Status::Passed; }
    static QString statusName(Status status); // "not run", "passed", "failed"
    static Status statusFromName(const QString& name);

    friend bool operator==(const VerificationResult&, const VerificationResult&) = default;
};

} // namespace rg

#pragma once

// Checks a successful build's result as release engineers do by hand after a build:
//   result/bin/python -c "import torch; print(torch.__version__); print(torch.version.cuda)"
//   result/bin/python --version
// compares with the expectation, then measures the closure (`nix path-info -S`).
// Runs its processes one after another without blocking; emits finished() once.

#include "builds/verificationexpectation.h"
#include "builds/verificationresult.h"

#include <QObject>
#include <QStringList>

class QProcess;

namespace rg {

class ResultVerifier : public QObject
{
    Q_OBJECT
public:
    explicit ResultVerifier(QObject* parent = nullptr);
    ~ResultVerifier() override;

    // `checkPython` false skips the Python checks (status stays NotRun); `nixArguments`
    // (e.g. --store) are passed to `nix path-info`.
    void start(const QString& resultPath, const VerificationExpectation& expected, bool checkPython,
               const QStringList& nixArguments = {});
    void cancel();
    void setTimeoutMs(int ms) { m_timeoutMs = ms; }

    // Pure comparison, for tests and for callers with the outputs at hand. `torchOutput` is
    // the two lines of the -c program, `versionOutput` "Python 3.13.1".
    static VerificationResult compare(const VerificationExpectation& expected,
                                      const QString& torchOutput, const QString& versionOutput);
    // Parses `nix path-info -S` output ("/nix/store/…\t123456"); -1 when unreadable.
    static qint64 parseClosureSize(const QString& output);

signals:
    void finished(const rg::VerificationResult& result, qint64 closureSize);

private:
    enum class Step { Torch, Version, Closure, Done };
    void runStep();
    void stepFinished();
    void finish();
    // Why a step's process failed, in words: what kept it from starting, the time limit, the
    // signal that killed it by name (SIGILL with what it most likely means), or its exit code.
    QString howItFailed(const QProcess& process) const;

    QString m_resultPath;
    VerificationExpectation m_expected;
    bool m_checkPython = true;
    QStringList m_nixArguments;
    int m_timeoutMs = 120000;
    bool m_timedOut = false; // the running step was killed for taking longer than that
    Step m_step = Step::Done;
    QProcess* m_process = nullptr;
    QString m_torchOutput;
    QString m_versionOutput;
    VerificationResult m_result;
    qint64 m_closureSize = -1;
};

} // namespace rg

#include "builds/processsignal.h"

#include <cstring>

namespace rg::ProcessSignal {

QString name(int signal)
{
    const char* abbreviation = sigabbrev_np(signal);
    return QStringLiteral("SIG%1 (%2)")
        .arg(abbreviation ? QString::fromLatin1(abbreviation) : QString::number(signal),
             QString::fromLocal8Bit(strsignal(signal)));
}

} // namespace rg::ProcessSignal

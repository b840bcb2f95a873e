#include "builds/processspec.h"

namespace rg {

QString ProcessSpec::displayString() const
{
    QStringList words;
    for (const QString& word : QStringList(program) + arguments) {
        const bool plain = !word.isEmpty() && !word.contains(QLatin1Char(' ')) &&
                           !word.contains(QLatin1Char('\'')) && !word.contains(QLatin1Char('"')) &&
                           !word.contains(QLatin1Char('\n'));
        words << (plain ? word
                        : QLatin1Char('\'') +
                              QString(word).replace(QLatin1Char('\''), QStringLiteral("'\\''")) +
                              QLatin1Char('\''));
    }
    return words.join(QLatin1Char(' '));
}

} // namespace rg

#include "builds/custombackend.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <algorithm>

namespace rg {

std::optional<ProcessSpec> CustomBackend::buildProcess(const BuildTarget& target,
                                                       const BuildSettings& settings,
                                                       QString* error) const
{
    if (!checkTarget(target, error))
        return std::nullopt;
    const auto split = splitWords(settings.customCommand);
    if (!split) {
        if (error)
            *error = QStringLiteral("unbalanced quotes in the custom build command: %1")
                         .arg(settings.customCommand);
        return std::nullopt;
    }
    QStringList words = *split;
    if (words.isEmpty()) {
        if (error)
            *error = QStringLiteral("the custom build command is empty");
        return std::nullopt;
    }
    const QList<QPair<QString, QString>> values = {{QStringLiteral("{variant}"), target.variant},
                                                   {QStringLiteral("{pname}"), target.pname},
                                                   {QStringLiteral("{file}"), target.recipeFile},
                                                   {QStringLiteral("{repo}"), target.repository},
                                                   {QStringLiteral("{out}"), target.resultLink()}};
    static const QRegularExpression placeholder(QStringLiteral("\\{[A-Za-z_]+\\}"));
    for (QString& word : words) {
        // Checked before substitution so a path that happens to contain braces is no error.
        for (auto it = placeholder.globalMatch(word); it.hasNext();) {
            const QString name = it.next().captured();
            const bool known = std::any_of(values.begin(), values.end(),
                                           [&](const auto& v) { return v.first == name; });
            if (!known) {
                if (error)
                    *error = QStringLiteral("unknown placeholder %1 in the custom build command "
                                            "(known: {variant} {pname} {file} {repo} {out})")
                                 .arg(name);
                return std::nullopt;
            }
        }
        QString expanded;
        qsizetype from = 0;
        for (auto it = placeholder.globalMatch(word); it.hasNext();) {
            const auto m = it.next();
            expanded += word.mid(from, m.capturedStart() - from);
            for (const auto& [name, value] : values) {
                if (name == m.captured())
                    expanded += value;
            }
            from = m.capturedEnd();
        }
        word = expanded + word.mid(from);
    }
    ProcessSpec spec;
    spec.program = words.takeFirst();
    spec.arguments = words;
    spec.workingDirectory = target.repository;
    spec.resultPath = target.resultLink();
    const QString lines = settings.nixConfigLines();
    if (!lines.isEmpty()) {
        const QString inherited =
            QProcessEnvironment::systemEnvironment().value(QStringLiteral("NIX_CONFIG"));
        spec.environment.insert(QStringLiteral("NIX_CONFIG"),
                                inherited.isEmpty() ? lines
                                                    : inherited + QLatin1Char('\n') + lines);
    }
    return spec;
}

std::optional<QStringList> CustomBackend::splitWords(const QString& command)
{
    QStringList words;
    QString word;
    bool inWord = false;
    QChar quote;
    for (qsizetype i = 0; i < command.size(); ++i) {
        const QChar c = command[i];
        if (!quote.isNull()) {
            if (c == quote)
                quote = QChar();
            else if (c == QLatin1Char('\\') && quote == QLatin1Char('"') && i + 1 < command.size())
                word += command[++i];
            else
                word += c;
        } else if (c.isSpace()) {
            if (inWord)
                words << std::exchange(word, QString());
            inWord = false;
        } else if (c == QLatin1Char('\'') || c == QLatin1Char('"')) {
            quote = c;
            inWord = true;
        } else if (c == QLatin1Char('\\') && i + 1 < command.size()) {
            word += command[++i];
            inWord = true;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (!quote.isNull())
        return std::nullopt;
    if (inWord)
        words << word;
    return words;
}

} // namespace rg

#pragma once

// The engine speaks UTF-8 std::string; Qt's models and views speak QString. One conversion,
// used wherever the two meet, and the one way views count things in words.

#include <QString>
#include <string_view>

namespace rg {

inline QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// `one` for a count of one, otherwise `many` with the count: counted(n, "1 pin", "%1 pins").
// English plurals without a translator loaded: tr()'s %n would leave "recipe(s)".
inline QString counted(int n, const QString& one, const QString& many)
{
    return n == 1 ? one : many.arg(n);
}

} // namespace rg

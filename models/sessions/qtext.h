#pragma once

// The engine speaks UTF-8 std::string; Qt's models and views speak QString. One conversion,
// used wherever the two meet.

#include <QString>
#include <string_view>

namespace rg {

inline QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

} // namespace rg

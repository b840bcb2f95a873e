#include "versionspelling.h"

#include <algorithm>

namespace rg {

bool allDigits(std::string_view text)
{
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

namespace {
constexpr std::size_t shortLength = 7;
}

std::string dottedPython(std::string_view digits)
{
    if (digits.size() < 2)
        return std::string(digits);
    return std::string(digits.substr(0, 1)) + '.' + std::string(digits.substr(1));
}

std::string shortRevision(std::string_view revision)
{
    return std::string(revision.substr(0, shortLength));
}

QString shortRevision(const QString& revision)
{
    return revision.left(shortLength);
}

} // namespace rg

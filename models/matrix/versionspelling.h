#pragma once

// How versions and revisions are written for a reader, in one place: file names carry Python
// as digits ("313") and pins as full 40-hex revisions, while messages, tables and labels
// show "3.13" and the seven-character short form git itself prints.

#include <QString>
#include <string>
#include <string_view>

namespace rg {

// "313" → "3.13": Python's major version has one digit, the rest is the minor ("3100" is
// 3.100). Fewer than two digits are returned as they are.
std::string dottedPython(std::string_view digits);

// Non-empty and only ASCII digits: a Python's digits, an SM number, a CUDA component.
bool allDigits(std::string_view text);

// The first seven characters of a revision (all of a shorter one).
std::string shortRevision(std::string_view revision);
QString shortRevision(const QString& revision);

} // namespace rg

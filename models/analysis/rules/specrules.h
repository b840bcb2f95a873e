#pragma once

// Rules about the matrix spec itself: invalid, or absent so that it was inferred.

namespace rg {

struct SpecCheck;

class SpecRules
{
public:
    static void inferred(SpecCheck& c);
};

} // namespace rg

#pragma once

// Rules about the matrix spec itself: invalid, absent so that it was inferred, or asking for
// variants that cannot work.

namespace rg {

struct SpecCheck;

class SpecRules
{
public:
    static void inferred(SpecCheck& c);
    static void asksForImpossible(SpecCheck& c);
};

} // namespace rg

#pragma once

// The CPU features a recipe's compiler flags (cpuFlags) enable, worked out the way GCC and
// Clang do, so an ISA is judged by effect rather than by spelling: "-march=x86-64-v3" is an
// AVX2 build although it does not say "-mavx2", and "-mavx2 -mavx512vnni" is not one.
//
// Rules followed (GCC's, which Clang shares for these flags):
//  - The last -march= sets the baseline (on ARM, -mcpu= does when there is no -march=);
//    feature flags (-mX / -mno-X) then apply in command-line order on top of it, wherever they
//    stand relative to -march=, and a later one overrides an earlier one.
//  - Enabling a feature enables what it implies (-mavx512f: avx2, fma, f16c, avx, sse4.2, …).
//  - Disabling one disables it and everything that implies it (-mno-avx2: every avx512*;
//    -mno-fma: fma and every avx512*). ARM "+noX" modifiers alike, except that they never
//    remove an architecture level ("armv9-a+nosve2" is still armv9-a, without sve2).
//  - Unrecognised -m flags and -march= / -mcpu= values are recorded, never fatal; an
//    unrecognised or "native" baseline makes the result unknownBaseline(), since the compiler
//    will assume whatever that machine has. Flags that are not about CPU features (-O2, -g,
//    -fPIC, -I…, -mtune=, -m64, …) are ignored.
//
// Feature ids are lower case, as the flags spell them: x86 "sse4.2", "avx", "avx2", "fma",
// "f16c", "bmi", "bmi2", "avx512f", "avx512bw", "avx512vnni", "avx512bf16", "amx-tile", …;
// ARM "fp16", "dotprod", "sve", "sve2", "bf16", "i8mm", … and one id per architecture level,
// "armv8.2-a", "armv9-a", … (each implies the one below it, as in GCC).

#include "matrix/catalog.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace rg {

// How a flag list measures up to a catalog ISA (CpuIsa requires / recommends / forbids).
struct IsaVerdict
{
    std::vector<std::string> missingRequired;  // not this ISA without them
    std::vector<std::string> forbiddenEnabled; // would SIGILL on some machines of the ISA
    std::vector<std::string>
        missingRecommended;                // slower than the catalog's flags (not required ones)
    std::vector<std::string> unknownFlags; // -m flags / -march values not understood
    // The baseline is -march=native or not understood: the lists above only reflect the
    // flags that were understood, and the real feature set depends on the build machine.
    bool unknownBaseline = false;

    // The flags build this ISA: all required features, nothing forbidden, a known baseline.
    bool acceptable() const
    {
        return missingRequired.empty() && forbiddenEnabled.empty() && !unknownBaseline;
    }
    // …and nothing recommended missing, every flag understood.
    bool clean() const
    {
        return acceptable() && missingRecommended.empty() && unknownFlags.empty();
    }
};

class CpuFeatureSet
{
public:
    CpuFeatureSet() = default; // no flags: no features
    // Each element is one flag; an element holding several separated by spaces is split.
    explicit CpuFeatureSet(const std::vector<std::string>& flags);
    // The same set, made once per distinct flag list and shared: every scan judges every
    // recipe's flags again, and a branch's hundreds of recipes write a handful of lists.
    // Thread-safe.
    static std::shared_ptr<const CpuFeatureSet> shared(const std::vector<std::string>& flags);

    bool has(std::string_view feature) const { return m_enabled.contains(feature); }
    // Every enabled feature, implied ones included, x86 then ARM in a fixed readable order
    // (sse … avx, avx2, fma, … avx512f, …; armv8-a …, fp, simd, …).
    std::vector<std::string> features() const;
    // The enabled features no other enabled feature implies: what a person would list
    // ("-march=x86-64-v4 -mavx512vnni" → …, avx512bw, avx512cd, avx512dq, avx512vl, avx512vnni).
    std::vector<std::string> topFeatures() const;
    // For messages: "enables avx2, fma, f16c" (topFeatures), "enables no CPU feature",
    // "enables whatever the build machine has (-march=native), and avx2", or "enables what
    // -march=pentium4 stands for (unknown to RecipeGrid)".
    std::string describe() const;
    // The flag that turned `feature` on ("-mavx2" for avx, "-march=x86-64-v3" for fma); ""
    // when it is off.
    std::string origin(std::string_view feature) const;

    const std::vector<std::string>& unknownFlags() const { return m_unknownFlags; }
    bool unknownBaseline() const { return m_unknownBaseline; }
    // The -march= / -mcpu= value in effect without "+modifiers": "x86-64-v3", "armv9-a",
    // "neoverse-v2", "native"; "" when the flags set none.
    const std::string& baseline() const { return m_baseline; }

    // Required / forbidden / recommended features of `isa` against this set. An ISA with no
    // requirements (mps) is satisfied by anything its forbids allow.
    IsaVerdict judge(const CpuIsa& isa) const;

    // Whether `feature` is an id this class knows (x86 or ARM); catalog ISAs must use these.
    static bool isKnownFeature(std::string_view feature);

private:
    void setBaseline(const std::string& flag, std::string_view value, bool armOnly);
    void applyArmModifiers(const std::string& flag, std::string_view modifiers);
    void enable(CpuFamily family, std::string_view feature, const std::string& flag);
    void disable(CpuFamily family, std::string_view feature);
    void addUnknown(const std::string& flag);

    std::set<std::string, std::less<>> m_enabled;
    std::map<std::string, std::string, std::less<>> m_origin; // feature → flag that enabled it
    std::vector<std::string> m_unknownFlags;
    std::string m_baseline;
    std::string m_baselineFlag;
    bool m_unknownBaseline = false;
};

} // namespace rg

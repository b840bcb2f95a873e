#include "matrix/flagrepair.h"

#include "matrix/cpufeatureset.h"

#include <algorithm>

namespace rg {

namespace {

// Judges the flags a list has against one ISA.
class FlagJudge
{
public:
    FlagJudge(const CpuIsa& isa, const Catalog& catalog)
        : m_isa(isa), m_catalog(catalog), m_features(CpuFeatureSet(isa.flags).features())
    {}

    // On its own, enables a feature the ISA forbids or switches off one it requires.
    bool standsInTheWay(const std::string& flag) const
    {
        std::vector<std::string> withIt = m_isa.flags;
        withIt.push_back(flag);
        return !CpuFeatureSet({flag}).judge(m_isa).forbiddenEnabled.empty() ||
               !CpuFeatureSet(withIt).judge(m_isa).missingRequired.empty();
    }

    // A flag the ISA's own flags already imply (`-mavx2` beside `-mavx512f`).
    bool addsNothing(const std::string& flag) const
    {
        if (flag.starts_with("-mno-"))
            return false;
        const std::vector<std::string> enabled = CpuFeatureSet({flag}).features();
        return !enabled.empty() && std::ranges::all_of(enabled, [&](const std::string& f) {
            return std::ranges::count(m_features, f) > 0;
        });
    }

    // The list held another ISA's flags: a flag of a bigger one, most of this ISA's flags
    // absent, or (`copied`) another catalog ISA's list exactly.
    bool heldAnother(const std::vector<std::string>& have) const
    {
        const auto absent = std::ranges::count_if(m_isa.flags, [&](const std::string& flag) {
            return std::ranges::count(have, flag) == 0;
        });
        return copied(have) ||
               std::ranges::any_of(have, [&](const auto& f) { return standsInTheWay(f); }) ||
               static_cast<size_t>(absent) * 2 > m_isa.flags.size();
    }

    bool copied(const std::vector<std::string>& have) const
    {
        return std::ranges::any_of(m_catalog.isas(), [&](const CpuIsa& other) {
            return other.id != m_isa.id && other.flags == have;
        });
    }

    // What the ISA still misses with `flags`: required features, and recommended ones too
    // when the list is being made this ISA's.
    size_t wanting(const std::vector<std::string>& flags, bool recommended) const
    {
        const IsaVerdict verdict = CpuFeatureSet(flags).judge(m_isa);
        return verdict.missingRequired.size() +
               (recommended ? verdict.missingRecommended.size() : 0);
    }

    int catalogIndex(const std::string& flag) const
    {
        const auto at = std::ranges::find(m_isa.flags, flag);
        return at == m_isa.flags.end() ? -1 : static_cast<int>(at - m_isa.flags.begin());
    }

private:
    const CpuIsa& m_isa;
    const Catalog& m_catalog;
    std::vector<std::string> m_features;
};

// Where catalog flag `t` goes among the kept flags: after the last kept catalog flag listed
// before it, else before the first listed after it, else after the last kept flag that enables
// something (`-march=x86-64-v4`), else leading the -mno-… ones.
std::optional<FlagRepair::Insertion> placeOf(const FlagJudge& judge, size_t t,
                                             const std::string& flag,
                                             const std::vector<std::string>& kept,
                                             const std::vector<size_t>& keptIndex)
{
    for (size_t k = kept.size(); k-- > 0;)
        if (const int index = judge.catalogIndex(kept[k]); index >= 0 && index < int(t))
            return FlagRepair::Insertion{keptIndex[k], true, flag};
    for (size_t k = 0; k < kept.size(); ++k)
        if (judge.catalogIndex(kept[k]) > int(t))
            return FlagRepair::Insertion{keptIndex[k], false, flag};
    for (size_t k = kept.size(); k-- > 0;)
        if (!kept[k].starts_with("-mno-") && !CpuFeatureSet({kept[k]}).features().empty())
            return FlagRepair::Insertion{keptIndex[k], true, flag};
    if (kept.empty())
        return std::nullopt;
    return FlagRepair::Insertion{keptIndex.front(), false, flag, true};
}

} // namespace

std::optional<FlagRepair> FlagRepair::of(const std::vector<std::string>& have, const CpuIsa& isa,
                                         const Catalog& catalog)
{
    const FlagJudge judge(isa, catalog);
    const bool another = judge.heldAnother(have);
    const bool copied = judge.copied(have);
    FlagRepair repair;
    std::vector<std::string> kept;
    std::vector<size_t> keptIndex;
    for (size_t i = 0; i < have.size(); ++i) {
        const bool inCatalog = std::ranges::count(isa.flags, have[i]) > 0;
        if (!inCatalog &&
            (copied || judge.standsInTheWay(have[i]) || (another && judge.addsNothing(have[i])))) {
            repair.removed.push_back(i);
            continue;
        }
        kept.push_back(have[i]);
        keptIndex.push_back(i);
    }
    std::vector<std::string> now = kept;
    for (size_t t = 0; t < isa.flags.size(); ++t) {
        const std::string& flag = isa.flags[t];
        if (std::ranges::count(now, flag) > 0)
            continue;
        std::vector<std::string> with = now;
        with.push_back(flag);
        if (judge.wanting(with, another) >= judge.wanting(now, another))
            continue;
        const auto place = placeOf(judge, t, flag, kept, keptIndex);
        if (!place)
            return std::nullopt;
        repair.inserted.push_back(*place);
        now.push_back(flag);
    }
    if (!CpuFeatureSet(now).judge(isa).acceptable())
        return std::nullopt;
    return repair;
}

} // namespace rg

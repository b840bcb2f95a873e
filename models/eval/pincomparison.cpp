#include "eval/pincomparison.h"

#include <map>

namespace rg {

namespace {

void add(std::vector<PinComparison::Row>& rows, std::string label, const std::string& before,
         const std::string& after)
{
    if (before.empty() && after.empty())
        return;
    rows.push_back({std::move(label), before.empty() ? "-" : before, after.empty() ? "-" : after,
                    before != after});
}

// Each set's values by its name, in the order of `before`'s sets, then `after`'s new ones.
template <typename Set, typename Fields>
void addSets(std::vector<PinComparison::Row>& rows, const std::vector<Set>& before,
             const std::vector<Set>& after, Fields fields)
{
    std::vector<std::string> names;
    std::map<std::string, const Set*> was;
    std::map<std::string, const Set*> is;
    for (const Set& set : before) {
        names.push_back(set.name);
        was[set.name] = &set;
    }
    for (const Set& set : after) {
        if (!was.count(set.name))
            names.push_back(set.name);
        is[set.name] = &set;
    }
    const Set none{};
    for (const std::string& name : names) {
        const Set& b = was.count(name) ? *was[name] : none;
        const Set& a = is.count(name) ? *is[name] : none;
        for (const auto& [field, member] : fields)
            add(rows, field + " (" + name + ")", b.*member, a.*member);
    }
}

} // namespace

std::vector<PinComparison::Row> PinComparison::of(const PinContents& before,
                                                  const PinContents& after)
{
    std::vector<Row> rows;
    add(rows, "nixpkgs", before.nixpkgsVersion, after.nixpkgsVersion);
    add(rows, "python3", before.python3, after.python3);
    add(rows, "default CUDA", before.defaultCuda, after.defaultCuda);
    add(rows, "MAGMA", before.magma, after.magma);
    using PythonSet = PinContents::PythonSet;
    addSets(rows, before.pythonSets, after.pythonSets,
            std::vector<std::pair<std::string, std::string PythonSet::*>>{
                {"Python", &PythonSet::python}, {"torch", &PythonSet::torch}});
    using CudaSet = PinContents::CudaSet;
    addSets(rows, before.cudaSets, after.cudaSets,
            std::vector<std::pair<std::string, std::string CudaSet::*>>{
                {"CUDA", &CudaSet::cuda}, {"cuDNN", &CudaSet::cudnn}, {"NCCL", &CudaSet::nccl}});
    return rows;
}

} // namespace rg

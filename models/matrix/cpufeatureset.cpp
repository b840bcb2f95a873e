#include "matrix/cpufeatureset.h"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <unordered_map>

namespace rg {

namespace {

struct Feature
{
    std::string_view id;
    std::vector<std::string_view> implies; // direct implications; closure() follows them
    bool level = false;                    // an ARM architecture level ("armv9-a")
};

// GCC's i386 option masks (OPTION_MASK_ISA_*_SET), trimmed to what builds use. Table order is
// the order features() lists them in.
const std::vector<Feature>& x86Features()
{
    static const std::vector<Feature> table = {
        {"mmx", {}},
        {"sse", {}},
        {"sse2", {"sse"}},
        {"sse3", {"sse2"}},
        {"ssse3", {"sse3"}},
        {"sse4.1", {"ssse3"}},
        {"sse4.2", {"sse4.1"}},
        {"sse4a", {"sse3"}},
        {"popcnt", {}},
        {"abm", {"lzcnt", "popcnt"}},
        {"cx16", {}},
        {"sahf", {}},
        {"crc32", {}},
        {"lzcnt", {}},
        {"movbe", {}},
        {"bmi", {}},
        {"bmi2", {}},
        {"adx", {}},
        {"aes", {"sse2"}},
        {"pclmul", {"sse2"}},
        {"sha", {"sse2"}},
        {"gfni", {"sse2"}},
        {"rdrnd", {}},
        {"rdseed", {}},
        {"fsgsbase", {}},
        {"prfchw", {}},
        {"xsave", {}},
        {"xsaveopt", {"xsave"}},
        {"xsavec", {"xsave"}},
        {"xsaves", {"xsave"}},
        {"clflushopt", {}},
        {"clwb", {}},
        {"pku", {}},
        {"rdpid", {}},
        {"avx", {"sse4.2", "xsave"}},
        {"avx2", {"avx"}},
        {"fma", {"avx"}},
        {"f16c", {"avx"}},
        {"fma4", {"sse4a", "avx"}},
        {"xop", {"fma4"}},
        {"vaes", {"avx2", "aes"}},
        {"vpclmulqdq", {"avx", "pclmul"}},
        {"avxvnni", {"avx2"}},
        {"avx512f", {"avx2", "fma", "f16c"}},
        {"avx512dq", {"avx512f"}},
        {"avx512vl", {"avx512f"}},
        {"avx512bw", {"avx512f"}},
        {"avx512cd", {"avx512f"}},
        {"avx512ifma", {"avx512f"}},
        {"avx512vbmi", {"avx512bw"}},
        {"avx512vbmi2", {"avx512bw"}},
        {"avx512bitalg", {"avx512bw"}},
        {"avx512vpopcntdq", {"avx512f"}},
        {"avx512vnni", {"avx512f"}},
        {"avx512bf16", {"avx512bw"}},
        {"avx512fp16", {"avx512bw"}},
        {"amx-tile", {}},
        {"amx-bf16", {"amx-tile"}},
        {"amx-int8", {"amx-tile"}},
        {"amx-fp16", {"amx-tile"}},
    };
    return table;
}

// GCC's aarch64-arches.def and aarch64-option-extensions.def, trimmed likewise.
const std::vector<Feature>& armFeatures()
{
    static const std::vector<Feature> table = {
        {"armv8-a", {"simd"}, true},
        {"armv8.1-a", {"armv8-a", "crc", "lse", "rdma"}, true},
        {"armv8.2-a", {"armv8.1-a"}, true},
        {"armv8.3-a", {"armv8.2-a", "pauth", "rcpc"}, true},
        {"armv8.4-a", {"armv8.3-a", "dotprod", "flagm"}, true},
        {"armv8.5-a", {"armv8.4-a", "sb", "ssbs", "predres"}, true},
        {"armv8.6-a", {"armv8.5-a", "i8mm", "bf16"}, true},
        {"armv8.7-a", {"armv8.6-a", "ls64"}, true},
        {"armv8.8-a", {"armv8.7-a", "mops"}, true},
        {"armv8.9-a", {"armv8.8-a"}, true},
        {"armv9-a", {"armv8.5-a", "sve2"}, true},
        {"armv9.1-a", {"armv9-a", "armv8.6-a"}, true},
        {"armv9.2-a", {"armv9.1-a", "armv8.7-a"}, true},
        {"armv9.3-a", {"armv9.2-a", "armv8.8-a"}, true},
        {"armv9.4-a", {"armv9.3-a", "armv8.9-a"}, true},
        {"fp", {}},
        {"simd", {"fp"}},
        {"crc", {}},
        {"lse", {}},
        {"rdma", {"simd"}},
        {"fp16", {"fp"}},
        {"fp16fml", {"fp16"}},
        {"dotprod", {"simd"}},
        {"rcpc", {}},
        {"pauth", {}},
        {"flagm", {}},
        {"sb", {}},
        {"ssbs", {}},
        {"predres", {}},
        {"rng", {}},
        {"memtag", {}},
        {"profile", {}},
        {"aes", {"simd"}},
        {"sha2", {"simd"}},
        {"sha3", {"sha2"}},
        {"sm4", {"simd"}},
        {"crypto", {"aes", "sha2"}},
        {"bf16", {"fp"}},
        {"i8mm", {"simd"}},
        {"sve", {"simd", "fp16"}},
        {"sve2", {"sve"}},
        {"sve2-aes", {"sve2", "aes"}},
        {"sve2-sha3", {"sve2", "sha3"}},
        {"sve2-sm4", {"sve2", "sm4"}},
        {"sve2-bitperm", {"sve2"}},
        {"f32mm", {"sve"}},
        {"f64mm", {"sve"}},
        {"ls64", {}},
        {"mops", {}},
        {"sme", {"bf16"}},
        {"sme2", {"sme"}},
    };
    return table;
}

const std::vector<Feature>& tableOf(CpuFamily family)
{
    return family == CpuFamily::X86 ? x86Features() : armFeatures();
}

const Feature* find(CpuFamily family, std::string_view id)
{
    const auto& table = tableOf(family);
    const auto it =
        std::find_if(table.begin(), table.end(), [id](const Feature& f) { return f.id == id; });
    return it == table.end() ? nullptr : &*it;
}

// `id` and everything it implies, transitively. Computed once per table: a rescan judges the
// flags of every recipe again, and walking the implications each time dominated that.
const std::set<std::string_view>& closure(CpuFamily family, std::string_view id)
{
    using Closures = std::map<std::string_view, std::set<std::string_view>, std::less<>>;
    const auto build = [](CpuFamily of) {
        Closures closures;
        for (const Feature& feature : tableOf(of)) {
            std::set<std::string_view>& out = closures[feature.id];
            std::vector<std::string_view> todo{feature.id};
            while (!todo.empty()) {
                const std::string_view next = todo.back();
                todo.pop_back();
                if (!out.insert(next).second)
                    continue;
                if (const Feature* f = find(of, next))
                    todo.insert(todo.end(), f->implies.begin(), f->implies.end());
            }
        }
        return closures;
    };
    static const Closures x86 = build(CpuFamily::X86);
    static const Closures arm = build(CpuFamily::Arm);
    static const std::set<std::string_view> none;
    const Closures& closures = family == CpuFamily::X86 ? x86 : arm;
    const auto it = closures.find(id);
    return it == closures.end() ? none : it->second;
}

struct Baseline
{
    std::string_view name;
    std::vector<std::string_view> features;
};

// x86 -march= values (GCC's processor_alias_table), each as its predecessor plus what it adds.
const std::vector<Baseline>& x86Baselines()
{
    static const std::vector<Baseline> table = [] {
        std::vector<Baseline> t;
        const auto add = [&t](std::string_view name, std::string_view parent,
                              std::initializer_list<std::string_view> extra) {
            Baseline b{name, {}};
            for (const Baseline& p : t)
                if (p.name == parent)
                    b.features = p.features;
            b.features.insert(b.features.end(), extra.begin(), extra.end());
            t.push_back(std::move(b));
        };
        add("x86-64", "", {"mmx", "sse2"});
        add("x86-64-v2", "x86-64", {"cx16", "sahf", "popcnt", "sse4.2"});
        add("x86-64-v3", "x86-64-v2",
            {"avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"});
        add("x86-64-v4", "x86-64-v3", {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"});
        add("nehalem", "x86-64-v2", {});
        add("corei7", "nehalem", {});
        add("westmere", "nehalem", {"aes", "pclmul"});
        add("sandybridge", "westmere", {"avx", "xsaveopt"});
        add("corei7-avx", "sandybridge", {});
        add("ivybridge", "sandybridge", {"fsgsbase", "rdrnd", "f16c"});
        add("core-avx-i", "ivybridge", {});
        add("haswell", "ivybridge", {"avx2", "bmi", "bmi2", "lzcnt", "movbe", "fma"});
        add("core-avx2", "haswell", {});
        add("broadwell", "haswell", {"adx", "rdseed", "prfchw"});
        add("skylake", "broadwell", {"clflushopt", "xsavec", "xsaves"});
        add("skylake-avx512", "skylake",
            {"pku", "clwb", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"});
        add("cascadelake", "skylake-avx512", {"avx512vnni"});
        add("cooperlake", "cascadelake", {"avx512bf16"});
        add("icelake-client", "skylake-avx512",
            {"avx512vbmi", "avx512ifma", "avx512vbmi2", "avx512vnni", "avx512bitalg",
             "avx512vpopcntdq", "gfni", "vaes", "vpclmulqdq", "sha", "rdpid"});
        add("icelake-server", "icelake-client", {});
        add("tigerlake", "icelake-client", {});
        add("sapphirerapids", "icelake-server",
            {"avx512bf16", "avx512fp16", "amx-tile", "amx-bf16", "amx-int8", "avxvnni"});
        add("emeraldrapids", "sapphirerapids", {});
        add("graniterapids", "sapphirerapids", {"amx-fp16"});
        add("alderlake", "skylake",
            {"avxvnni", "gfni", "vaes", "vpclmulqdq", "sha", "rdpid", "clwb", "pku"});
        add("raptorlake", "alderlake", {});
        add("meteorlake", "alderlake", {});
        add("znver1", "x86-64-v3",
            {"aes", "pclmul", "sha", "adx", "rdrnd", "rdseed", "fsgsbase", "prfchw", "sse4a", "abm",
             "clflushopt", "xsaveopt", "xsavec", "xsaves"});
        add("znver2", "znver1", {"clwb", "rdpid"});
        add("znver3", "znver2", {"vaes", "vpclmulqdq", "pku"});
        add("znver4", "znver3",
            {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512ifma", "avx512vbmi",
             "avx512vbmi2", "avx512vnni", "avx512bitalg", "avx512vpopcntdq", "avx512bf16", "gfni"});
        add("znver5", "znver4", {"avxvnni"});
        return t;
    }();
    return table;
}

// ARM -mcpu= values (GCC's aarch64-cores.def) for the machines the matrix builds for.
const std::vector<Baseline>& armCpus()
{
    static const std::vector<Baseline> table = {
        {"generic", {"armv8-a"}},
        {"carmel", {"armv8.2-a", "fp16", "crypto"}},
        {"cortex-a78", {"armv8.2-a", "fp16", "dotprod", "rcpc", "ssbs"}},
        {"cortex-a78ae", {"armv8.2-a", "fp16", "dotprod", "rcpc", "ssbs", "profile"}},
        {"neoverse-n1", {"armv8.2-a", "fp16", "dotprod", "rcpc", "ssbs", "profile"}},
        {"neoverse-v1", {"armv8.4-a", "sve", "i8mm", "bf16", "profile", "ssbs", "rng"}},
        {"neoverse-n2", {"armv9-a", "i8mm", "bf16", "sve2-bitperm", "rng", "memtag", "profile"}},
        {"neoverse-v2", {"armv9-a", "i8mm", "bf16", "sve2-bitperm", "rng", "memtag", "profile"}},
        {"neoverse-v3", {"armv9.2-a", "sve2-bitperm", "rng", "ls64", "memtag", "profile"}},
        {"neoverse-v3ae", {"armv9.2-a", "sve2-bitperm", "rng", "ls64", "memtag", "profile"}},
        {"cortex-x925", {"armv9.2-a", "sve2-bitperm", "memtag", "profile"}},
    };
    return table;
}

const Baseline* findBaseline(const std::vector<Baseline>& table, std::string_view name)
{
    const auto it = std::find_if(table.begin(), table.end(),
                                 [name](const Baseline& b) { return b.name == name; });
    return it == table.end() ? nullptr : &*it;
}

// -m flags that tune code generation but assume no CPU feature.
bool isCodegenFlag(std::string_view flag)
{
    static constexpr std::string_view prefixes[] = {"-mtune=",
                                                    "-mfpmath=",
                                                    "-mcmodel=",
                                                    "-mabi=",
                                                    "-mprefer-vector-width=",
                                                    "-mpreferred-stack-boundary=",
                                                    "-mbranch-protection=",
                                                    "-mindirect-branch",
                                                    "-mfunction-return=",
                                                    "-mstack-protector-guard",
                                                    "-mtls-dialect=",
                                                    "-mveclibabi=",
                                                    "-mlarge-data-threshold=",
                                                    "-mharden-sls=",
                                                    "-malign-data="};
    static constexpr std::string_view exact[] = {"-m32",
                                                 "-m64",
                                                 "-mx32",
                                                 "-mred-zone",
                                                 "-mno-red-zone",
                                                 "-mstackrealign",
                                                 "-mfentry",
                                                 "-mrecord-mcount",
                                                 "-mnop-mcount",
                                                 "-mgeneral-regs-only",
                                                 "-mstrict-align",
                                                 "-mno-strict-align",
                                                 "-mlittle-endian",
                                                 "-mbig-endian",
                                                 "-momit-leaf-frame-pointer",
                                                 "-mno-omit-leaf-frame-pointer",
                                                 "-mieee-fp",
                                                 "-mno-ieee-fp",
                                                 "-mvzeroupper",
                                                 "-mno-vzeroupper",
                                                 "-mretpoline",
                                                 "-mno-retpoline",
                                                 "-mspeculative-load-hardening",
                                                 "-mfix-cortex-a53-835769",
                                                 "-mfix-cortex-a53-843419",
                                                 "-mno-fix-cortex-a53-835769",
                                                 "-mno-fix-cortex-a53-843419",
                                                 "-mpc-relative-literal-loads",
                                                 "-mno-pc-relative-literal-loads"};
    for (const std::string_view p : prefixes)
        if (flag.starts_with(p))
            return true;
    return std::find(std::begin(exact), std::end(exact), flag) != std::end(exact);
}

std::string join(const std::vector<std::string>& items)
{
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : ", ") + item;
    return out;
}

} // namespace

CpuFeatureSet::CpuFeatureSet(const std::vector<std::string>& rawFlags)
{
    std::vector<std::string> flags;
    for (const std::string& raw : rawFlags) {
        std::size_t at = 0;
        while ((at = raw.find_first_not_of(" \t\n", at)) != std::string::npos) {
            const std::size_t end = raw.find_first_of(" \t\n", at);
            flags.push_back(raw.substr(at, end == std::string::npos ? end : end - at));
            at = end;
        }
    }

    // The baseline comes first whatever its position: GCC lets explicit feature flags win
    // over what -march= implies, in either order.
    const auto lastWith = [&flags](std::string_view prefix) -> const std::string* {
        for (auto it = flags.rbegin(); it != flags.rend(); ++it)
            if (it->starts_with(prefix))
                return &*it;
        return nullptr;
    };
    if (const std::string* march = lastWith("-march="))
        setBaseline(*march, std::string_view(*march).substr(7), false);
    else if (const std::string* mcpu = lastWith("-mcpu="))
        setBaseline(*mcpu, std::string_view(*mcpu).substr(6), true);

    for (const std::string& flag : flags) {
        if (!flag.starts_with("-m") || flag.starts_with("-march=") || flag.starts_with("-mcpu=") ||
            isCodegenFlag(flag))
            continue;
        const bool off = flag.starts_with("-mno-");
        std::string_view feature = std::string_view(flag).substr(off ? 5 : 2);
        if (feature == "sse4") // GCC's alias: -msse4 is SSE4.2, -mno-sse4 drops SSE4.1 and up
            feature = off ? "sse4.1" : "sse4.2";
        if (!find(CpuFamily::X86, feature)) {
            addUnknown(flag);
            continue;
        }
        if (off)
            disable(CpuFamily::X86, feature);
        else
            enable(CpuFamily::X86, feature, flag);
    }
}

std::shared_ptr<const CpuFeatureSet> CpuFeatureSet::shared(const std::vector<std::string>& flags)
{
    // Bounded: a long session over many branches must not keep every list it ever saw.
    static constexpr size_t maxKept = 4096;
    static std::mutex mutex;
    static std::unordered_map<std::string, std::shared_ptr<const CpuFeatureSet>> kept;
    std::string key;
    for (const std::string& flag : flags)
        (key += flag) += '\0';
    {
        std::lock_guard lock(mutex);
        if (const auto it = kept.find(key); it != kept.end())
            return it->second;
    }
    auto made = std::make_shared<const CpuFeatureSet>(flags);
    std::lock_guard lock(mutex);
    if (kept.size() >= maxKept)
        kept.clear();
    return kept.emplace(std::move(key), std::move(made)).first->second;
}

void CpuFeatureSet::setBaseline(const std::string& flag, std::string_view value, bool armOnly)
{
    const auto plus = value.find('+');
    const std::string_view name = value.substr(0, plus);
    const std::string_view modifiers =
        plus == std::string_view::npos ? std::string_view{} : value.substr(plus + 1);
    m_baseline = name;
    m_baselineFlag = flag;
    if (name == "native") {
        m_unknownBaseline = true;
    } else if (const Baseline* x86 = armOnly ? nullptr : findBaseline(x86Baselines(), name);
               x86 && modifiers.empty()) {
        for (const std::string_view f : x86->features)
            enable(CpuFamily::X86, f, flag);
        return;
    } else if (const Feature* level = armOnly ? nullptr : find(CpuFamily::Arm, name);
               level && level->level) {
        enable(CpuFamily::Arm, name, flag);
    } else if (const Baseline* cpu = armOnly ? findBaseline(armCpus(), name) : nullptr) {
        for (const std::string_view f : cpu->features)
            enable(CpuFamily::Arm, f, flag);
    } else {
        m_unknownBaseline = true;
        addUnknown(flag);
        return;
    }
    applyArmModifiers(flag, modifiers);
}

void CpuFeatureSet::applyArmModifiers(const std::string& flag, std::string_view modifiers)
{
    while (!modifiers.empty()) {
        const auto plus = modifiers.find('+');
        const std::string_view modifier = modifiers.substr(0, plus);
        modifiers =
            plus == std::string_view::npos ? std::string_view{} : modifiers.substr(plus + 1);
        const bool off = modifier.starts_with("no");
        const std::string_view feature = off ? modifier.substr(2) : modifier;
        const Feature* f = find(CpuFamily::Arm, feature);
        if (!f || f->level) {
            addUnknown(flag);
            continue;
        }
        if (off)
            disable(CpuFamily::Arm, feature);
        else
            enable(CpuFamily::Arm, feature, flag);
    }
}

void CpuFeatureSet::enable(CpuFamily family, std::string_view feature, const std::string& flag)
{
    const auto add = [&](std::string_view f) {
        if (m_enabled.emplace(f).second)
            m_origin.emplace(f, flag);
    };
    if (!find(family, feature)) // a baseline may name a feature the table lacks: just itself
        add(feature);
    for (const std::string_view f : closure(family, feature))
        add(f);
}

void CpuFeatureSet::disable(CpuFamily family, std::string_view feature)
{
    for (const Feature& f : tableOf(family)) {
        if (f.level && f.id != feature)
            continue;
        if (closure(family, f.id).count(feature)) {
            if (const auto it = m_enabled.find(f.id); it != m_enabled.end())
                m_enabled.erase(it);
            if (const auto it = m_origin.find(f.id); it != m_origin.end())
                m_origin.erase(it);
        }
    }
}

void CpuFeatureSet::addUnknown(const std::string& flag)
{
    if (std::find(m_unknownFlags.begin(), m_unknownFlags.end(), flag) == m_unknownFlags.end())
        m_unknownFlags.push_back(flag);
}

std::vector<std::string> CpuFeatureSet::features() const
{
    std::vector<std::string> out;
    for (const CpuFamily family : {CpuFamily::X86, CpuFamily::Arm})
        for (const Feature& f : tableOf(family))
            if (has(f.id) && std::find(out.begin(), out.end(), f.id) == out.end())
                out.emplace_back(f.id);
    return out;
}

std::vector<std::string> CpuFeatureSet::topFeatures() const
{
    std::vector<std::string> out;
    for (const CpuFamily family : {CpuFamily::X86, CpuFamily::Arm}) {
        for (const Feature& f : tableOf(family)) {
            if (!has(f.id))
                continue;
            const bool implied =
                std::any_of(m_enabled.begin(), m_enabled.end(), [&](const std::string& other) {
                    return other != f.id && find(family, other) &&
                           closure(family, other).count(f.id) > 0;
                });
            if (!implied && std::find(out.begin(), out.end(), f.id) == out.end())
                out.emplace_back(f.id);
        }
    }
    return out;
}

std::string CpuFeatureSet::describe() const
{
    const std::vector<std::string> top = topFeatures();
    if (m_unknownBaseline) {
        const std::string out =
            m_baseline == "native"
                ? "enables whatever the build machine has (" + m_baselineFlag + ")"
                : "enables what " + m_baselineFlag + " stands for (unknown to RecipeGrid)";
        return top.empty() ? out : out + ", and " + join(top);
    }
    return top.empty() ? "enables no CPU feature" : "enables " + join(top);
}

std::string CpuFeatureSet::origin(std::string_view feature) const
{
    const auto it = m_origin.find(feature);
    return it == m_origin.end() ? std::string() : it->second;
}

IsaVerdict CpuFeatureSet::judge(const CpuIsa& isa) const
{
    IsaVerdict verdict;
    for (const std::string& f : isa.requiredFeatures)
        if (!has(f))
            verdict.missingRequired.push_back(f);
    for (const std::string& f : isa.forbiddenFeatures)
        if (has(f))
            verdict.forbiddenEnabled.push_back(f);
    for (const std::string& f : isa.recommendedFeatures)
        if (!has(f) && std::find(verdict.missingRequired.begin(), verdict.missingRequired.end(),
                                 f) == verdict.missingRequired.end())
            verdict.missingRecommended.push_back(f);
    verdict.unknownFlags = m_unknownFlags;
    verdict.unknownBaseline = m_unknownBaseline;
    return verdict;
}

bool CpuFeatureSet::isKnownFeature(std::string_view feature)
{
    return find(CpuFamily::X86, feature) || find(CpuFamily::Arm, feature);
}

} // namespace rg

// FlagRepair: the fewest flags out of and into a flag list so that it builds an ISA by
// effect, keeping the author's other flags; placed by their catalog neighbours.

#include "matrix/catalog.h"
#include "matrix/cpufeatureset.h"
#include "matrix/flagrepair.h"

#include <QTest>

using namespace rg;

namespace {

using Flags = std::vector<std::string>;

// The list after the repair, insertions placed as a list editor places them.
Flags applied(const Flags& have, const FlagRepair& repair)
{
    Flags out;
    for (size_t i = 0; i <= have.size(); ++i) {
        for (const FlagRepair::Insertion& in : repair.inserted)
            if ((!in.after && in.anchor == i) || (in.after && in.anchor + 1 == i))
                out.push_back(in.flag);
        if (i < have.size() && std::ranges::count(repair.removed, i) == 0)
            out.push_back(have[i]);
    }
    return out;
}

const CpuIsa& isa(const char* id)
{
    return *Catalog::builtin().isa(id);
}

} // namespace

class TestFlagRepair : public QObject
{
    Q_OBJECT
private slots:
    void aMissingFlagComesInBesideItsCatalogNeighbour()
    {
        const Flags have = {"-mavx512f", "-mavx512dq", "-mavx512vl", "-mavx512bw", "-mfma"};
        const auto repair = FlagRepair::of(have, isa("avx512vnni"), Catalog::builtin());
        QVERIFY(repair);
        QVERIFY(repair->removed.empty());
        QCOMPARE(applied(have, *repair), isa("avx512vnni").flags);
    }

    void anotherIsasListBecomesThisOnes()
    {
        const Flags avx2 = isa("avx2").flags;
        const auto repair = FlagRepair::of(avx2, isa("avx512"), Catalog::builtin());
        QVERIFY(repair);
        QCOMPARE(applied(avx2, *repair), isa("avx512").flags);
        const Flags avx512 = isa("avx512").flags;
        const auto back = FlagRepair::of(avx512, isa("avx2"), Catalog::builtin());
        QVERIFY(back);
        QCOMPARE(applied(avx512, *back), avx2);
    }

    // The author's -mno-… workarounds stay; only the flag that builds a bigger ISA goes.
    void workaroundsStayAndTheForbiddenFlagGoes()
    {
        const Flags have = {"-mavx", "-mno-fma", "-mno-avx2", "-mno-bmi2", "-mavx512f"};
        const auto repair = FlagRepair::of(have, isa("avx"), Catalog::builtin());
        QVERIFY(repair);
        QCOMPARE(repair->removed, std::vector<size_t>{4});
        QVERIFY(repair->inserted.empty());
        QVERIFY(CpuFeatureSet(applied(have, *repair)).judge(isa("avx")).acceptable());
    }

    // A -march that gives the features is kept; the missing flag follows it.
    void aMarchBaselineIsKept()
    {
        const Flags have = {"-march=x86-64-v4"};
        const auto repair = FlagRepair::of(have, isa("avx512bf16"), Catalog::builtin());
        QVERIFY(repair);
        QCOMPARE(applied(have, *repair), (Flags{"-march=x86-64-v4", "-mavx512bf16"}));
    }

    // An author who left out a recommended flag keeps that choice when only a required one
    // is missing.
    void aListThatLacksOneFlagKeepsTheAuthorsChoice()
    {
        // avx512vnni without -mavx512vnni, and without the catalog's -mfma by choice
        const Flags have = {"-mavx512f", "-mavx512dq", "-mavx512vl", "-mavx512bw"};
        const auto repair = FlagRepair::of(have, isa("avx512vnni"), Catalog::builtin());
        QVERIFY(repair);
        QCOMPARE(applied(have, *repair),
                 (Flags{"-mavx512f", "-mavx512dq", "-mavx512vl", "-mavx512bw", "-mavx512vnni"}));
    }

    void aMachineDependentBaselineCannotBeRepaired()
    {
        QVERIFY(!FlagRepair::of({"-march=native"}, isa("avx2"), Catalog::builtin()));
    }
};

QTEST_GUILESS_MAIN(TestFlagRepair)
#include "tst_flagrepair.moc"

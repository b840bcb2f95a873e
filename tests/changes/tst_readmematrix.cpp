// The README's generated variant-matrix section: its exact Markdown, and that regenerating it
// leaves every byte outside the markers alone.

#include "changes/readmematrix.h"

#include <QTest>
#include <string>
#include <vector>

using rg::ReadmeMatrix;
using rg::VariantName;

namespace {

std::string sectionOf(const std::vector<VariantName>& variants)
{
    return ReadmeMatrix::section(variants, rg::Catalog::builtin());
}

std::vector<VariantName> names(const std::vector<std::string>& stems)
{
    std::vector<VariantName> variants;
    for (const std::string& stem : stems) {
        const auto variant = VariantName::parse(stem);
        if (!variant)
            qFatal("not a variant name: %s", stem.c_str());
        variants.push_back(*variant);
    }
    return variants;
}

// Seed 001's target: 36 GPU x86-64, 4 GPU ARM, 4 CPU-only.
std::vector<VariantName> seed001Target()
{
    const std::vector<std::string> x86 = {"avx2", "avx512", "avx512bf16", "avx512vnni"};
    std::vector<std::string> stems;
    for (const char* arch :
         {"sm80", "sm86", "sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121"})
        for (const std::string& isa : x86)
            stems.push_back(std::string("pytorch-python313-cuda13_0-") + arch + "-" + isa);
    for (const char* arch : {"sm110", "sm121"})
        for (const char* isa : {"armv8_2", "armv9"})
            stems.push_back(std::string("pytorch-python313-cuda13_0-") + arch + "-" + isa);
    for (const std::string& isa : x86)
        stems.push_back("pytorch-python313-cpu-" + isa);
    return names(stems);
}

int occurrences(const std::string& text, const std::string& needle)
{
    int count = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
        ++count;
    return count;
}

const char* const smallSection = R"(<!-- recipegrid:matrix -->
## Variant matrix

**6 variants** for Python 3.13: 2 CUDA 12.8 (1 x86-64, 1 generic) · 2 CUDA 13.0 (1 x86-64, 1 ARM) · 1 CPU-only · 1 Darwin

### CUDA 12.8

| GPU | avx512 | generic |
| --- | :-: | :-: |
| **SM120** |  | ✓ |
| **SM86** | ✓ |  |

### CUDA 13.0

| GPU | avx2 | armv9 |
| --- | :-: | :-: |
| **SM121** |  | ✓ |
| **SM90** | ✓ |  |

### CPU-only

| ISA | Python 3.13 |
| --- | :-: |
| **avx2** | ✓ |

### Darwin

- `pytorch-python313-darwin-mps`

<!-- /recipegrid:matrix -->
)";

} // namespace

class TestReadmeMatrix : public QObject
{
    Q_OBJECT

private slots:
    // Suffixed recipes and duplicates are not variants of the matrix; input order is irrelevant.
    void smallSetExact()
    {
        const auto variants = names({
            "pytorch-python313-darwin-mps",
            "pytorch-python313-cuda13_0-sm90-avx2",
            "pytorch-python313-cuda12_8-sm120",
            "pytorch-python313-cuda13_0-sm121-armv9",
            "pytorch-python313-cuda13_0-sm90-avx2",
            "pytorch-python313-cuda13_0-sm120-avx512-magma",
            "pytorch-python313-cpu-avx2",
            "pytorch-python313-cuda12_8-sm86-avx512",
        });
        QCOMPARE(sectionOf(variants), std::string(smallSection));
        auto reversed = variants;
        std::reverse(reversed.begin(), reversed.end());
        QCOMPARE(sectionOf(reversed), std::string(smallSection));
    }

    void severalPythonsGetOneTablePerPython()
    {
        const std::string section = sectionOf(names({
            "pytorch-python313-cuda13_0-sm90-avx2",
            "pytorch-python312-cuda13_0-sm90-avx2",
            "pytorch-python312-cuda13_0-sm80-avx2",
            "pytorch-python312-cpu-avx512",
            "pytorch-python313-cpu-avx2",
        }));
        const std::string expected = R"(<!-- recipegrid:matrix -->
## Variant matrix

**5 variants** for Python 3.12, 3.13: 3 CUDA 13.0 (3 x86-64) · 2 CPU-only

### CUDA 13.0 · Python 3.12

| GPU | avx2 |
| --- | :-: |
| **SM90** | ✓ |
| **SM80** | ✓ |

### CUDA 13.0 · Python 3.13

| GPU | avx2 |
| --- | :-: |
| **SM90** | ✓ |
| **SM80** |  |

### CPU-only

| ISA | Python 3.12 | Python 3.13 |
| --- | :-: | :-: |
| **avx2** |  | ✓ |
| **avx512** | ✓ |  |

<!-- /recipegrid:matrix -->
)";
        QCOMPARE(section, expected);
    }

    // Columns follow the catalog (x86 before ARM), ISAs it does not know come after, the
    // generic build last; rows are newest arch first, compared as numbers (sm100 > sm90).
    void columnAndRowOrder()
    {
        const std::string section = sectionOf(names({
            "pytorch-python313-cuda13_0-sm90",
            "pytorch-python313-cuda13_0-sm90-neoversev2",
            "pytorch-python313-cuda13_0-sm100-armv9",
            "pytorch-python313-cuda13_0-sm100-avx2",
            "pytorch-python313-cuda13_0-sm130-armv8_2",
        }));
        QVERIFY2(section.find("| GPU | avx2 | armv8_2 | armv9 | neoversev2 | generic |\n") !=
                     std::string::npos,
                 section.c_str());
        const auto sm130 = section.find("| **SM130** |");
        const auto sm100 = section.find("| **SM100** |");
        const auto sm90 = section.find("| **SM90** |");
        QVERIFY(sm130 != std::string::npos && sm130 < sm100 && sm100 < sm90);
        QVERIFY2(section.find("5 CUDA 13.0 (1 x86-64, 2 ARM, 1 generic, 1 other)") !=
                     std::string::npos,
                 section.c_str());
    }

    void seed001TargetCounts()
    {
        const std::string section = sectionOf(seed001Target());
        QVERIFY2(section.find("**44 variants** for Python 3.13: 40 CUDA 13.0 (36 x86-64, 4 ARM) "
                              "\xc2\xb7 4 CPU-only\n") != std::string::npos,
                 section.c_str());
        QCOMPARE(occurrences(section, "### CUDA 13.0\n"), 1);
        QVERIFY(section.find("Python 3.13\n\n|") == std::string::npos); // one Python: no split
        QVERIFY(section.find("| GPU | avx2 | avx512 | avx512bf16 | avx512vnni | armv8_2 | armv9 "
                             "|\n") != std::string::npos);
        QCOMPARE(occurrences(section, "| **SM"), 9);
        const std::string first = "| **SM121** | \xe2\x9c\x93 | \xe2\x9c\x93 | \xe2\x9c\x93 | "
                                  "\xe2\x9c\x93 | \xe2\x9c\x93 | \xe2\x9c\x93 |\n";
        QVERIFY2(section.find(first) != std::string::npos, section.c_str());
        QVERIFY(section.find("| **SM80** | \xe2\x9c\x93 | \xe2\x9c\x93 | \xe2\x9c\x93 | "
                             "\xe2\x9c\x93 |  |  |\n") != std::string::npos);
        // 36 + 4 GPU cells, 4 CPU cells.
        QCOMPARE(occurrences(section, "\xe2\x9c\x93"), 44);
        QVERIFY(section.find("### CPU-only") != std::string::npos);
        QVERIFY(section.find("Darwin") == std::string::npos);
    }

    void noVariants()
    {
        QCOMPARE(sectionOf({}),
                 std::string("<!-- recipegrid:matrix -->\n## Variant matrix\n\nNo variants.\n\n"
                             "<!-- /recipegrid:matrix -->\n"));
    }

    void updateReplacesOnlyBetweenMarkers()
    {
        const std::string before = "# Title\r\n\nSome text \xc3\xbc  \n\n";
        const std::string after = "\n## Building\n\n  trailing spaces  \n\n\n";
        const std::string readme = before +
                                   "<!-- recipegrid:matrix -->\nold table\n| x |\n"
                                   "<!-- /recipegrid:matrix -->\n" +
                                   after;
        const std::string section = sectionOf(seed001Target());
        const std::string updated = ReadmeMatrix::updated(readme, section);
        QCOMPARE(updated, before + section + after);
        QCOMPARE(ReadmeMatrix::updated(updated, section), updated);
    }

    void updateIsIdempotent_data()
    {
        QTest::addColumn<std::string>("readme");
        QTest::newRow("empty") << std::string();
        QTest::newRow("no markers") << std::string("# Title\n\ntext\n");
        QTest::newRow("no final newline") << std::string("# Title\n\ntext");
        QTest::newRow("section at end without newline")
            << std::string("# T\n<!-- recipegrid:matrix -->\nx\n<!-- /recipegrid:matrix -->");
        QTest::newRow("only begin") << std::string("a\n<!-- recipegrid:matrix -->\nb\n");
        QTest::newRow("only end") << std::string("a\n<!-- /recipegrid:matrix -->\nb\n");
        QTest::newRow("wrong order")
            << std::string("a\n<!-- /recipegrid:matrix -->\nb\n<!-- recipegrid:matrix -->\nc\n");
    }
    void updateIsIdempotent()
    {
        QFETCH(std::string, readme);
        const std::string section = sectionOf(seed001Target());
        const std::string once = ReadmeMatrix::updated(readme, section);
        QCOMPARE(ReadmeMatrix::updated(once, section), once);
        QCOMPARE(occurrences(once, section.substr(0, section.size() - 1)), 1);
    }

    void sectionAtEndWithoutNewlineStaysSo()
    {
        const std::string readme =
            "# T\n<!-- recipegrid:matrix -->\nx\n<!-- /recipegrid:matrix -->";
        const std::string section = sectionOf(seed001Target());
        QCOMPARE(ReadmeMatrix::updated(readme, section),
                 "# T\n" + section.substr(0, section.size() - 1));
    }

    void missingMarkersAppendAfterOneBlankLine_data()
    {
        QTest::addColumn<std::string>("readme");
        QTest::addColumn<std::string>("kept");
        QTest::newRow("final newline")
            << std::string("# T\n\ntext\n") << std::string("# T\n\ntext");
        QTest::newRow("no final newline")
            << std::string("# T\n\ntext") << std::string("# T\n\ntext");
        QTest::newRow("blank lines at end")
            << std::string("# T\n\ntext\n\n\n") << std::string("# T\n\ntext");
    }
    void missingMarkersAppendAfterOneBlankLine()
    {
        QFETCH(std::string, readme);
        QFETCH(std::string, kept);
        const std::string section = sectionOf(seed001Target());
        QCOMPARE(ReadmeMatrix::updated(readme, section), kept + "\n\n" + section);
        QCOMPARE(ReadmeMatrix::updated(std::string(), section), section);
    }

    // A marker without its partner, or a pair in the wrong order, does not delimit a section:
    // the text around it is the user's and stays; the section is appended.
    void malformedMarkersAppendAndKeepText_data()
    {
        QTest::addColumn<std::string>("readme");
        QTest::newRow("only begin")
            << std::string("# T\n<!-- recipegrid:matrix -->\nhand-written table\n");
        QTest::newRow("only end") << std::string(
            "# T\nhand-written table\n<!-- /recipegrid:matrix -->\nmore\n");
        QTest::newRow("wrong order") << std::string(
            "# T\n<!-- /recipegrid:matrix -->\nkeep me\n<!-- recipegrid:matrix -->\nand me\n");
    }
    void malformedMarkersAppendAndKeepText()
    {
        QFETCH(std::string, readme);
        const std::string section = sectionOf(seed001Target());
        const std::string updated = ReadmeMatrix::updated(readme, section);
        QCOMPARE(updated, readme.substr(0, readme.size() - 1) + "\n\n" + section);
    }

    // A stray begin marker above a real section must not make the text between them look like
    // part of the section.
    void strayBeginAboveSectionIsKept()
    {
        const std::string head = "# T\n<!-- recipegrid:matrix -->\nprose\n\n";
        const std::string readme =
            head + "<!-- recipegrid:matrix -->\nold\n<!-- /recipegrid:matrix -->\ntail\n";
        const std::string section = sectionOf(seed001Target());
        QCOMPARE(ReadmeMatrix::updated(readme, section), head + section + "tail\n");
    }
};

QTEST_GUILESS_MAIN(TestReadmeMatrix)
#include "tst_readmematrix.moc"

#include "analysis/rules/archrules.h"

#include "analysis/rules/recipecheck.h"
#include "analysis/ruleset.h"
#include "facts/archnotation.h"

#include <algorithm>

namespace rg {

using namespace ruletext;

// "\"12.0\" (line 48, via gpuArchSM)" — where the entry is written and what it came through.
std::string ArchRules::origin(const RecipeFacts& f, const ArchSinkFact& entry)
{
    std::vector<std::string> where;
    if (entry.sinkIn.empty())
        where.push_back(lineOf(f, entry.range)); // else no range of it is in the recipe
    if (!entry.via.empty())
        where.push_back("bound to " + entry.via);
    if (!entry.writtenIn.empty())
        where.push_back("written in " + entry.writtenIn);
    std::string text;
    for (const std::string& part : where)
        text += (text.empty() ? "" : ", ") + part;
    return inQuotes(entry.value) + " (" + text + ")";
}

std::string ArchRules::sinkAt(const RecipeFacts& f, const ArchSinkFact& entry)
{
    return std::string(archSinkName(entry.sink)) + " (" +
           (entry.sinkIn.empty() ? lineOf(f, entry.sinkRange) : "in " + entry.sinkIn) + ")";
}

void ArchRules::gpuArch(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    const VariantExpectation* e = c.expected();
    const VariantName& v = e->name;
    if (v.accelerator != Accelerator::Cuda || e->archNumber.empty())
        return;
    // One finding per written value: a binding that feeds two sinks is one mistake.
    struct Verdict
    {
        std::string_view id;
        std::vector<std::string> sinks;
        std::string text;
        nix::SourceRange range;
        bool madeValue; // a wrong arch, not only an extra one
    };
    std::vector<Verdict> verdicts;
    auto note = [&](std::string_view id, const ArchSinkFact& entry, std::string text) {
        for (Verdict& verdict : verdicts)
            if (verdict.id == id && verdict.range == entry.range && verdict.text == text) {
                verdict.sinks.push_back(sinkAt(f, entry));
                return;
            }
        verdicts.push_back(
            {id, {sinkAt(f, entry)}, std::move(text), entry.range, id != rule::gpuArchExtra});
    };
    for (size_t i = 0; i < f.archSinks.size(); ++i) {
        const ArchSinkFact& entry = f.archSinks[i];
        const ArchReading reading = ArchNotation::read(entry.sink, entry.value);
        // In the sink's notation and the form the group's canonical recipe writes there.
        const auto form = e->archSuffixes.find(std::string(archSinkName(entry.sink)));
        const std::string right = ArchNotation::write(entry.sink, e->archNumber) +
                                  (form == e->archSuffixes.end() ? std::string() : form->second);
        if (!reading.accepted) {
            note(rule::gpuArchNotation, entry,
                 origin(f, entry) + ", which it rejects: it takes " +
                     std::string(ArchNotation::accepts(entry.sink)) + "; write " + inQuotes(right));
            continue;
        }
        if (reading.denotesAny)
            continue;
        // The sink is right when any of its entries names the variant's arch.
        bool sinkHasArch = false;
        for (const ArchSinkFact& other : f.archSinks)
            if (other.sinkRange == entry.sinkRange && other.sinkIn == entry.sinkIn) {
                const ArchReading r = ArchNotation::read(other.sink, other.value);
                sinkHasArch = sinkHasArch || std::find(r.numbers.begin(), r.numbers.end(),
                                                       e->archNumber) != r.numbers.end();
            }
        const bool names = std::find(reading.numbers.begin(), reading.numbers.end(),
                                     e->archNumber) != reading.numbers.end();
        if (names)
            continue;
        const std::string denotes =
            reading.numbers.size() == 1 ? "sm" + reading.numbers.front() : "other archs";
        if (sinkHasArch)
            note(rule::gpuArchExtra, entry,
                 origin(f, entry) + ": it also builds for " + denotes + ", not only " + v.gpuArch +
                     " (a fat build, where each cell builds its own arch)");
        else
            note(rule::gpuArchMismatch, entry,
                 origin(f, entry) + ": that is " + denotes + ", but the file builds " + v.gpuArch +
                     "; write " + inQuotes(right));
    }
    for (const Verdict& verdict : verdicts) {
        std::string sinks;
        for (size_t i = 0; i < verdict.sinks.size(); ++i)
            sinks += (i == 0                          ? ""
                      : i + 1 == verdict.sinks.size() ? " and "
                                                      : ", ") +
                     verdict.sinks[i];
        std::string message =
            sinks + (verdict.sinks.size() > 1 ? " get " : " gets ") + verdict.text;
        if (verdict.madeValue)
            c.addMadeValue(verdict.id, std::move(message), verdict.range);
        else
            c.add(verdict.id, std::move(message), verdict.range);
    }
}

} // namespace rg

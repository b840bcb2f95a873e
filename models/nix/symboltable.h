#pragma once

// Interned names for the lowered form of a file, with the order Nix 2.8 gives them.
//
// Nix 2.8 keys `let` bindings and formals by the address of the interned string, so
// `nix-instantiate --parse` prints them in heap order. We model that order as: names Nix
// interns at start-up (builtins and the evaluator's own symbols, in their observed order),
// then names first seen in the file in order of appearance, then the names interned when Nix
// parses its built-in derivation.nix. Nix's real order can differ once a file has many names
// (freed heap chunks get reused); attribute sets are sorted by name and are always exact.

#include <cstdint>
#include <string_view>
#include <vector>

namespace rg::nix {

using Symbol = uint32_t;

class SymbolTable
{
public:
    SymbolTable();

    // `name` must outlive the table.
    Symbol intern(std::string_view name);
    std::string_view name(Symbol symbol) const { return m_names[symbol]; }
    // Sort key reproducing Nix's symbol order (see above).
    uint64_t rank(Symbol symbol) const { return m_ranks[symbol]; }
    // Whether the name is bound in Nix's base environment (builtins, true, import, __sub, …).
    bool isBaseName(std::string_view name) const;

private:
    struct Slot
    {
        std::string_view name;
        Symbol symbol = UINT32_MAX;
    };
    void grow();

    std::vector<Slot> m_slots;             // open addressing, size a power of two
    std::vector<std::string_view> m_names; // views the caller keeps alive (source, arena)
    std::vector<uint64_t> m_ranks;
    uint64_t m_nextFresh = 0;
};

} // namespace rg::nix

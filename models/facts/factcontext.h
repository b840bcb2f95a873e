#pragma once

// What every fact reader of one file shares: the tree and its walk, the facts being filled,
// the evaluator that gives expressions their values, and the overlays found so far (a value
// inside an overlay describes the package set it rebuilds, not the recipe).
//
// A module read for the recipe that applies it (a builder, a pin generator) shares the
// recipe's evaluator, and its values are those it has where it is applied to the recipe's
// arguments.

#include "facts/recipefacts.h"
#include "facts/recipewalk.h"
#include "facts/sourcedtext.h"
#include "nix/evaluator.h"
#include "nix/moduleloader.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg {

class FactContext
{
public:
    // `depth` is 0 for the recipe, 1+ for a module read on its behalf.
    FactContext(const nix::SyntaxTree& tree, RecipeFacts& facts, nix::ModuleLoader* modules,
                int depth = 0);
    // The module `moduleId` where the recipe applies it to `appliedTo`, read through the
    // recipe's evaluator `shared`.
    FactContext(const nix::SyntaxTree& tree, RecipeFacts& facts, nix::ModuleLoader* modules,
                int depth, nix::Evaluator& shared, std::string moduleId,
                std::vector<nix::Value> appliedTo);
    ~FactContext();
    FactContext(const FactContext&) = delete;
    FactContext& operator=(const FactContext&) = delete;

    void walk(const nix::Node& root) { m_walk.walk(root); }

    const nix::SyntaxTree& tree() const { return m_tree; }
    RecipeFacts& facts() const { return m_facts; }
    nix::ModuleLoader* modules() const { return m_modules; }
    int depth() const { return m_depth; }
    const RecipeWalk& walked() const { return m_walk; }
    bool isApplied() const { return !m_appliedTo.empty(); }
    const std::string& moduleId() const { return m_moduleId; }

    // The overlay functions of this file, by where they begin.
    const std::vector<nix::SourceRange>& overlays() const { return m_overlays; }
    void setOverlays(std::vector<nix::SourceRange> overlays) { m_overlays = std::move(overlays); }
    bool inOverlay(const nix::Node* node) const;

    nix::Evaluator& evaluator() const;
    nix::Value valueOf(const nix::Node* node) const;
    // The values of a call's arguments after the callee's first (`import ./m.nix a b`: a, b).
    std::vector<nix::Value> valuesOf(const std::vector<const nix::Node*>& call) const;
    std::optional<bool> boolAt(const nix::Node* node) const { return valueOf(node).asBool(); }

    // File ids in values view the evaluator's own copy of this file's id.
    bool inThisFile(std::string_view file) const
    {
        const std::string& id = !m_appliedTo.empty() ? m_moduleId : evaluator().fileId();
        return file.size() == id.size() && (file.data() == id.data() || file == id);
    }
    bool inThisFile(const nix::Origin& origin) const { return inThisFile(origin.file); }

    // A known string (or a number or path, as written) with the pieces of it in this file.
    // `at` is the expression evaluated: the range of a value written in a module.
    std::optional<SourcedText> textOf(const nix::Value& value, const nix::Node& at) const;
    std::optional<SourcedText> textAt(const nix::Node* node) const
    {
        return node ? textOf(valueOf(node), *node) : std::nullopt;
    }
    // "lib/cpu-isa.nix:3" for a value written in a module, else "".
    std::string writtenIn(const nix::Value& value) const;
    // The line of `offset` in a file the evaluator read: a module or a plain file.
    int lineIn(const std::string& file, uint32_t offset) const;

    // The string items of a list value, nested lists flattened; nullopt when the value is no
    // list one can read.
    std::optional<TextItems> itemsOf(const nix::Value& value, const nix::Node& at,
                                     int depth = 0) const;
    std::optional<TextItems> itemsAt(const nix::Node* node) const
    {
        return node ? itemsOf(valueOf(node), *node) : std::nullopt;
    }
    // A list of strings, or nullopt when any element is unknown.
    std::optional<Fact<std::vector<std::string>>> listAt(const nix::Node* node) const;

    // The bindings of this file (with a value) a value came through, nearest to its literal
    // first.
    std::vector<const BindingRecord*> bindingsOf(const nix::Value& value) const;
    // The binding whose value holds `range` most closely: the name a literal flowed through.
    const BindingRecord* bindingAround(nix::SourceRange range) const;

private:
    const nix::SyntaxTree& m_tree;
    RecipeFacts& m_facts;
    nix::ModuleLoader* m_modules = nullptr;
    int m_depth = 0;
    RecipeWalk m_walk;
    std::vector<nix::SourceRange> m_overlays;
    nix::Evaluator* m_shared = nullptr;
    std::string m_moduleId;
    std::vector<nix::Value> m_appliedTo; // the arguments a module function is applied to
    mutable std::unique_ptr<nix::Evaluator> m_evaluator;
};

} // namespace rg

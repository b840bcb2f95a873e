#pragma once

// One pass over a file's syntax tree that lists what the fact readers look at — bindings with
// their full attribute paths, calls, selections, names, strings, formals, `with`s — so each
// reader scans short lists instead of walking the tree again.

#include "facts/bindingrecord.h"
#include "nix/syntaxtree.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg {

class RecipeWalk
{
public:
    explicit RecipeWalk(const nix::SyntaxTree& tree);

    void walk(const nix::Node& root) { visit(root, std::string()); }

    const std::vector<BindingRecord>& bindings() const { return m_bindings; }
    const std::vector<const nix::Node*>& applies() const { return m_applies; }
    const std::vector<const nix::Node*>& selects() const { return m_selects; }
    const std::vector<const nix::Node*>& identifiers() const { return m_identifiers; }
    const std::vector<const nix::Node*>& strings() const { return m_strings; }
    const std::vector<const nix::Node*>& formals() const { return m_formals; }
    const std::vector<const nix::Node*>& withs() const { return m_withs; }
    // Lambda arguments and formals without a default: what an override's old value comes from.
    const std::vector<nix::SourceRange>& arguments() const { return m_arguments; }

private:
    void addBinding(std::string path, const nix::Node* value, const nix::Node* key,
                    const nix::Node* source);
    void visitBindings(const nix::Node& owner, const std::string& prefix);
    void visitInherit(const nix::Node& inherit, const std::string& prefix);
    void visitLambda(const nix::Node& lambda, const std::string& prefix);
    void visit(const nix::Node& node, const std::string& prefix);
    std::optional<nix::SourceRange> nameRange(std::string_view text) const;

    const nix::SyntaxTree& m_tree;
    std::vector<BindingRecord> m_bindings;
    std::vector<const nix::Node*> m_applies;
    std::vector<const nix::Node*> m_selects;
    std::vector<const nix::Node*> m_identifiers;
    std::vector<const nix::Node*> m_strings;
    std::vector<const nix::Node*> m_formals;
    std::vector<const nix::Node*> m_withs;
    std::vector<nix::SourceRange> m_arguments;
};

} // namespace rg

#include "nix/node.h"

namespace rg::nix {

std::optional<std::string> literalString(const Node& node)
{
    if (node.kind != NodeKind::String && node.kind != NodeKind::IndentedString)
        return std::nullopt;
    std::string value;
    for (const Node* part : node.children) {
        if (part->kind != NodeKind::StringText)
            return std::nullopt;
        value += part->text;
    }
    return value;
}

std::optional<std::string> attrPathString(const Node& attrPath)
{
    if (attrPath.kind != NodeKind::AttrPath)
        return std::nullopt;
    std::string path;
    for (const Node* segment : attrPath.children) {
        if (segment != attrPath.children.front())
            path += '.';
        if (segment->kind == NodeKind::AttrName) {
            path += segment->text;
        } else if (auto value = literalString(*segment)) {
            path += *value;
        } else if (auto inner = segment->kind == NodeKind::Interpolation && segment->child(0)
                                    ? literalString(*segment->child(0))
                                    : std::nullopt) {
            path += *inner;
        } else {
            return std::nullopt;
        }
    }
    return path;
}

} // namespace rg::nix

#include "changes/textedits.h"

#include <algorithm>

namespace rg {

namespace {
bool overlaps(nix::SourceRange a, nix::SourceRange b)
{
    return a.begin < b.end && b.begin < a.end;
}
} // namespace

bool TextEdits::touches(nix::SourceRange range) const
{
    return std::any_of(m_edits.begin(), m_edits.end(),
                       [&](const Edit& edit) { return overlaps(edit.range, range); });
}

bool TextEdits::replace(nix::SourceRange range, std::string text)
{
    for (const Edit& edit : m_edits) {
        if (edit.range.begin == range.begin && edit.range.end == range.end)
            return edit.text == text;
        if (overlaps(edit.range, range))
            return false;
    }
    m_edits.push_back({range, std::move(text)});
    return true;
}

std::string TextEdits::applyTo(std::string_view original) const
{
    std::vector<const Edit*> sorted;
    for (const Edit& edit : m_edits)
        sorted.push_back(&edit);
    // An insertion (an empty range) goes before a replacement that starts where it does.
    std::sort(sorted.begin(), sorted.end(), [](const Edit* a, const Edit* b) {
        return a->range.begin != b->range.begin ? a->range.begin < b->range.begin
                                                : a->range.end < b->range.end;
    });
    std::string out;
    out.reserve(original.size());
    uint32_t at = 0;
    for (const Edit* edit : sorted) {
        if (edit->range.begin < at || edit->range.end > original.size())
            continue;
        out.append(original.substr(at, edit->range.begin - at));
        out += edit->text;
        at = edit->range.end;
    }
    out.append(original.substr(at));
    return out;
}

} // namespace rg

#pragma once

#include <QStringList>

namespace rg {

enum class ChangeAction;

// `recipegrid complete|create|fix|delete REPO …`: plans a change set for cells of a work tree
// (ChangePlanner), prints it, and unless --dry-run applies it all or nothing, optionally
// committing it. Exit status: 0 done or nothing to do, 1 the apply or the commit failed,
// 2 usage or repository error.
class ChangeCommand
{
public:
    static int complete(const QStringList& arguments);
    static int create(const QStringList& arguments);
    static int fix(const QStringList& arguments);
    static int remove(const QStringList& arguments); // `delete`, a C++ keyword

private:
    static int run(ChangeAction action, const QStringList& arguments);
};

} // namespace rg

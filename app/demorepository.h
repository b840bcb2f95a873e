#pragma once

#include <QString>
#include <QStringList>

namespace rg {

// The bundled demo (resources/demo/repository, compiled in) made into a real git work tree in
// a temporary directory, so the branch, the dirty flag, live refresh and the branch overview
// all work on it. Two branches tell the story of a CUDA 13.0 migration: `main` holds the six
// recipes the CUDA 13.0 branch started from; `cuda-13_0` (checked out) is the matrix half-way done,
// with a cell of every status.
class DemoRepository
{
public:
    static constexpr const char* resourceRoot = ":/demo/repository";
    static constexpr const char* mainFilesResource = ":/demo/main-files.txt";

    // Returns the work tree's path, or "" and `error`. `parentDirectory` defaults to the
    // system's temporary directory.
    static QString create(QString* error, const QString& parentDirectory = {});
    // Removes a work tree create() made, with whatever was done in it; nothing for "".
    static void remove(const QString& root);
    static QStringList files(); // paths inside the bundle, relative, sorted
};

} // namespace rg

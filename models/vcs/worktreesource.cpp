#include "vcs/worktreesource.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace rg {

namespace fs = std::filesystem;

namespace {

std::string osError(int code)
{
    return std::strerror(code);
}

std::string mebibytes(uint64_t bytes)
{
    const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", mib);
    return text;
}

int64_t nanoseconds(const struct timespec& time)
{
    return static_cast<int64_t>(time.tv_sec) * 1000000000 + time.tv_nsec;
}

// What stat says of a file's content: mtime and size.
std::string statStamp(const struct stat& st)
{
    return std::to_string(st.st_mtim.tv_sec) + '.' + std::to_string(st.st_mtim.tv_nsec) + ':' +
           std::to_string(st.st_size);
}

// Longer than any file system's timestamp tick (FAT's is 2 s): a file whose last change is
// older than this when it is hashed cannot change again without a new mtime or ctime.
constexpr int64_t settleNs = int64_t(3) * 1000000000;

// Larger files are never read as recipes: their stamp is mtime and size alone.
constexpr uint64_t maxHashedSize = uint64_t(64) * 1024 * 1024;

std::optional<size_t> hashOfFile(const std::filesystem::path& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    std::string bytes;
    char buffer[65536];
    ssize_t n;
    while ((n = ::read(fd, buffer, sizeof buffer)) > 0)
        bytes.append(buffer, static_cast<size_t>(n));
    ::close(fd);
    if (n < 0)
        return std::nullopt;
    return std::hash<std::string>{}(bytes);
}

} // namespace

WorkTreeSource::WorkTreeSource(const std::string& root)
{
    std::error_code ec;
    m_root = fs::weakly_canonical(fs::absolute(root, ec), ec);
    if (ec)
        m_root = fs::absolute(root);
}

std::string WorkTreeSource::displayName() const
{
    return m_root.string();
}

std::string WorkTreeSource::rootPath() const
{
    return m_root.string();
}

bool WorkTreeSource::isInside(const fs::path& path) const
{
    auto rel = path.lexically_relative(m_root);
    if (rel.empty())
        return false;
    const std::string first = rel.begin()->string();
    return first != ".." && !rel.is_absolute();
}

bool WorkTreeSource::directoryIsInside(const fs::path& directory) const
{
    // A directory on the way may itself be a symlink out of the repository; resolve each
    // directory once, as recipes share a handful of them.
    const std::string key = directory.string();
    {
        std::lock_guard lock(m_mutex);
        if (auto it = m_directories.find(key); it != m_directories.end())
            return it->second;
    }
    std::error_code ec;
    const fs::path resolved = fs::weakly_canonical(directory, ec);
    const bool inside = !ec && (resolved == m_root || isInside(resolved));
    std::lock_guard lock(m_mutex);
    m_directories.emplace(key, inside);
    return inside;
}

std::vector<SourceEntry> WorkTreeSource::list(const std::string& directory,
                                              std::string* error) const
{
    std::vector<SourceEntry> entries;
    const fs::path dir = (m_root / directory).lexically_normal();
    std::error_code ec;
    // The recipe directory itself must not lead out of the repository either.
    const fs::path resolved = fs::weakly_canonical(dir, ec);
    if (ec || !isInside(resolved)) {
        if (error)
            *error = directory + ": recipe directory is outside the repository";
        return entries;
    }
    fs::directory_iterator it(resolved, ec);
    if (ec) {
        // A folder opened by mistake is the common case: say where the directory was looked
        // for and what belongs in it, not only the system's "No such file or directory".
        if (error)
            *error = ec == std::errc::no_such_file_or_directory
                         ? directory + ": no such recipe directory in " + m_root.string() +
                               " (a recipe repository keeps one .nix file per variant there)"
                         : directory + ": " + ec.message();
        return entries;
    }
    const std::string prefix = directory.empty() || directory == "." ? std::string()
                               : directory.ends_with('/')            ? directory
                                                                     : directory + "/";
    for (const fs::directory_entry& entry : it) {
        const std::string name = entry.path().filename().string();
        if (!name.ends_with(".nix"))
            continue;
        struct stat st;
        if (::lstat(entry.path().c_str(), &st) != 0)
            continue;
        SourceEntry item;
        item.path = prefix + name;
        item.symlink = S_ISLNK(st.st_mode);
        // A directory named *.nix holds no recipe of its own. Anything else that is not a
        // regular file (a named pipe, a socket, a device) is listed but not opened here:
        // reading it says what it is, where skipping it made a recipe vanish without a word.
        if (S_ISDIR(st.st_mode))
            continue;
        item.size = static_cast<uint64_t>(st.st_size);
        item.stamp = S_ISREG(st.st_mode) ? contentStamp(entry.path(), st) : statStamp(st);
        entries.push_back(std::move(item));
    }
    std::sort(entries.begin(), entries.end(),
              [](const SourceEntry& a, const SourceEntry& b) { return a.path < b.path; });
    return entries;
}

std::string WorkTreeSource::contentStamp(const fs::path& path, const struct stat& st) const
{
    std::string stamp = statStamp(st);
    if (static_cast<uint64_t>(st.st_size) > maxHashedSize)
        return stamp;
    Fingerprint now;
    now.mtimeNs = nanoseconds(st.st_mtim);
    now.ctimeNs = nanoseconds(st.st_ctim);
    now.size = static_cast<uint64_t>(st.st_size);
    now.inode = static_cast<uint64_t>(st.st_ino);
    {
        std::lock_guard lock(m_mutex);
        const auto known = m_fingerprints.find(path.string());
        if (known != m_fingerprints.end() && known->second.settled &&
            known->second.mtimeNs == now.mtimeNs && known->second.ctimeNs == now.ctimeNs &&
            known->second.size == now.size && known->second.inode == now.inode)
            return stamp + ':' + std::to_string(known->second.hash);
    }
    struct timespec clock;
    ::clock_gettime(CLOCK_REALTIME, &clock);
    const std::optional<size_t> hash = hashOfFile(path);
    if (!hash)
        return stamp; // unreadable: reading it later reports why
    now.hash = *hash;
    now.settled = nanoseconds(clock) - std::max(now.mtimeNs, now.ctimeNs) > settleNs;
    std::lock_guard lock(m_mutex);
    m_fingerprints[path.string()] = now;
    return stamp + ':' + std::to_string(now.hash);
}

bool WorkTreeSource::exists(const std::string& path) const
{
    std::error_code ec;
    return fs::exists(m_root / path, ec);
}

SourceFile WorkTreeSource::read(const std::string& path, uint64_t maxBytes) const
{
    SourceFile file;
    file.path = path;
    fs::path full = (m_root / path).lexically_normal();
    if (!isInside(full) || !directoryIsInside(full.parent_path())) {
        file.outsideRepository = true;
        file.error = "path is outside the repository; not read";
        return file;
    }
    // O_NOFOLLOW: the common case (a regular file) costs one open; a symlink as the last
    // component fails with ELOOP and is resolved and checked before it is read.
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; the
    // type is checked right after, before anything is read.
    int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0 && errno == ELOOP) {
        std::error_code ec;
        const fs::path target = fs::weakly_canonical(full, ec);
        if (ec) {
            // A link loop (a.nix → b.nix → a.nix) or a dangling chain: unreadable, not outside.
            file.error = "symbolic link cannot be resolved: " + ec.message();
            return file;
        }
        if (!isInside(target)) {
            file.outsideRepository = true;
            file.error = "symbolic link to " + fs::read_symlink(full, ec).string() +
                         " leads outside the repository; not read";
            return file;
        }
        fd = ::open(target.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    }
    if (fd < 0) {
        file.error = osError(errno);
        return file;
    }
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        file.error = osError(errno);
        ::close(fd);
        return file;
    }
    if (S_ISDIR(st.st_mode)) {
        file.error = osError(EISDIR);
        ::close(fd);
        return file;
    }
    if (!S_ISREG(st.st_mode)) {
        file.error = std::string("not a regular file (") +
                     (S_ISFIFO(st.st_mode)   ? "a named pipe"
                      : S_ISSOCK(st.st_mode) ? "a socket"
                                             : "a device") +
                     "); not read";
        ::close(fd);
        return file;
    }
    const auto size = static_cast<uint64_t>(st.st_size);
    if (size > maxBytes) {
        file.oversized = true;
        file.error = "file is " + mebibytes(size) + ", over the " + mebibytes(maxBytes) + " limit";
        ::close(fd);
        return file;
    }
    file.bytes.resize(size);
    size_t done = 0;
    while (done < size) {
        const ssize_t n = ::read(fd, file.bytes.data() + done, size - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            file.error = osError(errno);
            file.bytes.clear();
            ::close(fd);
            return file;
        }
        if (n == 0)
            break; // truncated while reading: use what is there
        done += static_cast<size_t>(n);
    }
    file.bytes.resize(done);
    ::close(fd);
    return file;
}

} // namespace rg

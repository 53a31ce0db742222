// Where an output path really leads, for the writers that replace a file (common/output_file.h) and
// those that append to one (common/csv.h CsvAppender): a symbolic link is followed to the end of its
// chain (the file written is its target: the link itself is kept), and the end is a regular file,
// nothing yet, or something else -- a character or block device (/dev/null, /dev/stdout's terminal),
// a FIFO or a socket -- which is written through as it is, never replaced or truncated by a rename.
// POSIX (lstat, readlink), header-only.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "common/problem.h"

namespace arlab {

struct OutputTarget {
  std::string path;      // the file to write: the path given, or the end of its chain of links
  bool exists = false;   // something is at `path`
  bool regular = false;  // ... and it is a regular file
  // A device, FIFO or socket: written through (opened and written), never renamed over.
  bool special() const { return exists && !regular; }
};

// The links a chain may hold before it is taken for a loop (Linux's own limit, MAXSYMLINKS = 40).
constexpr int kMaxSymlinkHops = 40;

// Follows `path` through its symbolic links; throws InvalidArgument for a loop, a link that cannot be
// read, or a file that cannot be examined (e.g. a directory on the way without permission). What is
// at the end is asked of the system (stat), which also follows the kernel's own links: /dev/stdout is
// /proc/self/fd/1, a link to "pipe:[N]" or a terminal that no path names. A regular file at the end
// is named by its real path (realpath), to be replaced there; anything else is written through the
// path as given. Only a link to nothing yet is followed by reading its text, to the file to make.
inline OutputTarget resolve_output_target(const std::string& path) {
  namespace fs = std::filesystem;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) return OutputTarget{path, true, false};
    char* real = ::realpath(path.c_str(), nullptr);
    if (real == nullptr) throw InvalidArgument("output " + path + ": cannot resolve its links: " + std::strerror(errno));
    const std::string resolved(real);
    std::free(real);
    return OutputTarget{resolved, true, true};
  }
  if (errno == ELOOP)
    throw InvalidArgument("output " + path + ": too many symbolic links in a chain (a loop?)");
  if (errno != ENOENT) throw InvalidArgument("output " + path + ": cannot examine it: " + std::strerror(errno));
  // Nothing there, or a link (chain) to a file that does not exist yet: the path to make.
  std::string p = path;
  for (int hop = 0; hop <= kMaxSymlinkHops; ++hop) {
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return OutputTarget{p, false, false};
    std::error_code ec;
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) throw InvalidArgument("output " + path + ": cannot read the link " + p + ": " + ec.message());
    p = next.is_absolute() ? next.string() : (fs::path(p).parent_path() / next).string();
  }
  throw InvalidArgument("output " + path + ": more than " + std::to_string(kMaxSymlinkHops) +
                        " symbolic links in a chain (a loop?)");
}

}  // namespace arlab

// Whole-file outputs that never lose a user's data (issues 11, 22): an output path is checked before
// any work (not empty, its directory exists, not a directory, not one of the command's inputs), and
// the file is written to a temporary file in the same directory and renamed over the target, so a
// reader never sees half a file and a failure (a full disk, a size limit) leaves the target as it
// was. An existing target is replaced only when it holds the same schema (an earlier output of the
// same kind): a measurement file never turns into a calibration. A symbolic link is followed: its
// target is replaced atomically and the link kept; a path that leads to a device (/dev/null,
// /dev/stdout), a FIFO or a socket is written through, never replaced (common/output_target.h).
// POSIX (mkstemp, fsync, rename), header-only.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "common/csv.h"
#include "common/output_target.h"
#include "common/problem.h"

namespace arlab {

// Throws InvalidArgument when `path` cannot be the output `what` names (e.g. "--out"): an empty
// path, a directory, a missing parent directory, or the same file (same device and inode, through
// any link) as one of `inputs` (empty entries are ignored).
inline void check_output_path(const std::string& path, const std::vector<std::string>& inputs,
                              const std::string& what) {
  namespace fs = std::filesystem;
  if (path.empty()) throw InvalidArgument(what + ": empty path");
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InvalidArgument(what + " " + path + ": is a directory");
  const OutputTarget target = resolve_output_target(path);
  const fs::path parent = fs::path(target.path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw InvalidArgument(what + " " + path + ": directory '" + parent.string() + "' does not exist" +
                          (target.path != path ? " (the symbolic link leads to " + target.path + ")" : ""));
  for (const std::string& in : inputs) {
    if (in.empty()) continue;
    if (fs::exists(path, ec) && fs::exists(in, ec) && fs::equivalent(path, in, ec))
      throw InvalidArgument(what + " " + path + " is the input " + in +
                            " (the same file): refusing to overwrite an input; choose another output path");
  }
}

// Throws InvalidArgument when an existing, non-blank `path` does not start with `header`: it holds
// another schema (or is no CSV of ours), and replacing it would lose it.
inline void check_replaceable(const std::string& path, const std::vector<std::string>& header) {
  const CsvFileStart start = inspect_csv_file(path);
  if (!start.exists || start.blank) return;
  const std::string diff = header_difference(csv_split(start.first_line), header);
  if (!diff.empty())
    throw InvalidArgument(path + " exists and holds another schema (its header: " + diff +
                          "); refusing to replace it: choose another output path, or remove the file first");
}

namespace detail {
// The permission bits a new file gets here (0666 less the process's umask), read without changing it.
inline mode_t new_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return static_cast<mode_t>(0666) & ~mask;
}

[[noreturn]] inline void throw_write_error(const std::string& path, const std::string& step, int err) {
  throw InvalidArgument("cannot write " + path + ": " + step + ": " + std::strerror(err));
}
}  // namespace detail

// Writes `content` to a device, FIFO or socket as it is (opened for writing, never replaced).
inline void write_through(const std::string& path, const std::string& shown, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) detail::throw_write_error(shown, "cannot open " + path + " for writing", errno);
  int err = 0;
  for (size_t done = 0; err == 0 && done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) err = errno;
    else done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) detail::throw_write_error(shown, "writing to " + path, err);
}

// Writes `content` to `path` through a temporary file in the same directory that is flushed to disk
// and renamed over `path` (atomic on POSIX file systems). The file keeps an existing target's
// permissions. A symbolic link is followed (its target replaced, the link kept); a device, FIFO or
// socket is written through. Throws InvalidArgument with the system's reason (e.g. "Permission
// denied"); on any failure the target is as it was and no temporary file is left.
inline void write_file_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  if (path.empty()) throw InvalidArgument("output: empty path");
  const OutputTarget resolved = resolve_output_target(path);
  if (resolved.special()) return write_through(resolved.path, path, content);
  const fs::path target(resolved.path);
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string temp = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) detail::throw_write_error(path, "cannot create a temporary file in '" + dir.string() + "'", errno);
  struct stat existing {};
  const mode_t mode =
      ::stat(resolved.path.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : detail::new_file_mode();
  int err = ::fchmod(fd, mode) == 0 ? 0 : errno;
  for (size_t done = 0; err == 0 && done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) err = errno;
    else done += static_cast<size_t>(n);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(temp.c_str(), resolved.path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(temp.c_str());
    detail::throw_write_error(path, "writing through " + temp, err);
  }
}

// The folder an output goes to, made (with its missing parents) for one command and removed again
// -- each folder it made, while still empty -- unless the command keeps it (keep(), once its output
// is written): a command that fails after making its folder leaves nothing behind.
class MadeFolders {
 public:
  explicit MadeFolders(const std::string& folder) {
    namespace fs = std::filesystem;
    if (folder.empty()) return;  // the working directory: nothing to make
    std::vector<fs::path> missing;
    for (fs::path p = folder; !p.empty() && !fs::exists(p); p = p.parent_path()) {
      missing.push_back(p);
      if (p == p.parent_path()) break;
    }
    fs::create_directories(folder);
    made_.assign(missing.begin(), missing.end());  // innermost first: the order they are removed in
  }
  MadeFolders(const MadeFolders&) = delete;
  MadeFolders& operator=(const MadeFolders&) = delete;
  void keep() { made_.clear(); }
  ~MadeFolders() {
    std::error_code ec;
    for (const std::filesystem::path& p : made_) std::filesystem::remove(p, ec);  // an empty folder only
  }

 private:
  std::vector<std::filesystem::path> made_;
};

// A whole CSV output: checks that an existing `path` holds this `header`'s schema (never replaces
// another), then writes the header and the rows `write_rows` streams, atomically.
inline void write_csv_file(const std::string& path, const std::vector<std::string>& header,
                           const std::function<void(std::ostream&)>& write_rows) {
  check_replaceable(path, header);
  std::ostringstream text;
  text << csv_join(header) << '\n';
  write_rows(text);
  write_file_atomically(path, text.str());
}

}  // namespace arlab

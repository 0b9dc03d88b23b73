#include "assay/core/output_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <utility>

#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"

namespace assay {

namespace {

std::string folder_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

[[noreturn]] void fail_errno(const std::string& path, int code) {
  fail("cannot write {}: {}", path, std::strerror(code));
}

// The file a path leads to once symbolic links in its last part are followed (the path itself
// when it is no link). Writing there keeps the link a link; renaming over the link would replace
// it by a file.
std::string resolve_links(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::string link(4096, '\0');
    const ssize_t n = ::readlink(p.c_str(), link.data(), link.size());
    if (n < 0 || static_cast<std::size_t>(n) >= link.size()) return p;  // rename reports it
    link.resize(static_cast<std::size_t>(n));
    const std::filesystem::path to(link);
    p = to.is_absolute() ? link : (std::filesystem::path(p).parent_path() / to).string();
  }
  fail_errno(path, ELOOP);
}

const char* kind_of(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

// "standard output" / "standard error" when `st` is the file one of them is redirected to.
const char* is_standard_stream(const struct stat& st) {
  static constexpr std::pair<int, const char*> kStreams[] = {{STDOUT_FILENO, "standard output"},
                                                             {STDERR_FILENO, "standard error"}};
  for (const auto& [fd, name] : kStreams) {
    struct stat stream {};
    if (::fstat(fd, &stream) == 0 && S_ISREG(stream.st_mode) && stream.st_dev == st.st_dev &&
        stream.st_ino == st.st_ino) {
      return name;
    }
  }
  return nullptr;
}

// How a message names an output: given as the option's value ("--html base.csv: is ...", or
// "base.csv: is ..." without an option) or derived from it ("--out DIR: writes DIR/a.csv, which
// is ...").
struct OutputName {
  const std::string& path;
  std::string_view what;
  bool derived = false;

  std::string lead() const {
    if (derived) return fmt::format("{}: writes {}, which is", what, path);
    if (what.empty()) return fmt::format("{}: is", path);
    return fmt::format("{} {}: is", what, path);
  }
};

// Refuses an output target (`resolved`: links followed) that is a folder, exists and is not a
// regular file, or is an input of the running command. Writing to a device or FIFO through a
// rename would replace it (as root, `--json-out /dev/null` deleted /dev/null); opening a FIFO
// could block.
void refuse_target(const OutputName& name, const std::string& resolved) {
  if (name.path.empty()) fail("cannot write an output with an empty file name");
  struct stat st {};
  // A /proc/self/fd link (/dev/stdout on a pipe) leads to no path ("pipe:[123]"); stat through
  // the name itself then finds the pipe.
  if (::stat(resolved.c_str(), &st) != 0 && ::stat(name.path.c_str(), &st) != 0) {
    return;  // a new file; other failures: when writing
  }
  if (S_ISDIR(st.st_mode)) fail("cannot write {}: it is a folder", name.path);
  if (!S_ISREG(st.st_mode)) {
    fail("{} {}, not a regular file; assay writes outputs to regular files only", name.lead(),
         kind_of(st.st_mode));
  }
  if (is_standard_stream(st)) {
    fail(
        "{} the file this command's {} goes to; renaming over it would lose what is printed "
        "there: choose another name",
        name.lead(), is_standard_stream(st));
  }
  if (const auto input = noted_input(resolved)) {
    fail("{} the input file {}{}; an output never replaces an input: choose another name",
         name.lead(), input->path, input->role.empty() ? "" : " (" + input->role + ")");
  }
}

// A write past RLIMIT_FSIZE raises SIGXFSZ, which would kill the process before the error can be
// reported; ignored, the write fails with EFBIG instead.
void report_file_size_limit_as_error() {
  std::signal(SIGXFSZ, SIG_IGN);
}

// A temporary file next to the target (`resolved`: the file a link leads to), named in messages
// as the user gave it (`shown`): closed and removed unless committed (renamed).
class Temporary {
 public:
  Temporary(const std::string& resolved, const std::string& shown)
      : name_(resolved + ".tmp-XXXXXX"), resolved_(resolved), shown_(shown) {
    fd_ = ::mkstemp(name_.data());
    if (fd_ < 0) fail_errno(shown_, errno);
  }
  ~Temporary() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(name_.c_str());
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;

  void write_all(std::string_view bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        fail_errno(shown_, errno);
      }
      done += static_cast<std::size_t>(n);
    }
  }

  // Output files are readable like any other (mkstemp creates them 0600); the bytes are on disk
  // before the rename makes them visible under the target's name.
  void finish() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(fd_, 0666 & ~mask) != 0) fail_errno(shown_, errno);
    if (::fsync(fd_) != 0) fail_errno(shown_, errno);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail_errno(shown_, errno);
  }

  int fd() const { return fd_; }
  const std::string& resolved() const { return resolved_; }
  const std::string& shown() const { return shown_; }

  void rename_over_target() {
    if (::rename(name_.c_str(), resolved_.c_str()) != 0) fail_errno(shown_, errno);
    committed_ = true;
  }

 private:
  std::string name_, resolved_, shown_;
  int fd_ = -1;
  bool committed_ = false;
};

// The temporary of an output that may be written (refuse_target) at `path`.
Temporary checked_temporary(const std::string& path) {
  const std::string resolved = resolve_links(path);
  refuse_target(OutputName{path, {}}, resolved);
  report_file_size_limit_as_error();
  return Temporary(resolved, path);
}

// Exclusive flocks on folders, taken in the order of their device and inode so that two
// processes locking overlapping sets cannot deadlock; released when destroyed. Best effort: a
// folder that cannot be opened or locked (e.g. some network file systems) is not locked.
class FolderLocks {
 public:
  explicit FolderLocks(const std::vector<std::string>& folders) {
    std::vector<std::pair<std::pair<dev_t, ino_t>, int>> opened;
    for (const auto& folder : folders) {
      const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      struct stat st {};
      if (fd < 0) continue;
      if (::fstat(fd, &st) != 0) {
        ::close(fd);
        continue;
      }
      opened.push_back({{st.st_dev, st.st_ino}, fd});
    }
    std::sort(opened.begin(), opened.end());
    for (std::size_t i = 0; i < opened.size(); ++i) {
      if (i > 0 && opened[i].first == opened[i - 1].first) {
        ::close(opened[i].second);  // the same folder: locked once
        continue;
      }
      while (::flock(opened[i].second, LOCK_EX) != 0 && errno == EINTR) {
      }
      fds_.push_back(opened[i].second);
    }
  }
  ~FolderLocks() {
    for (const int fd : fds_) ::close(fd);  // closing releases the lock
  }
  FolderLocks(const FolderLocks&) = delete;
  FolderLocks& operator=(const FolderLocks&) = delete;

 private:
  std::vector<int> fds_;
};

}  // namespace

void write_file_atomic(const std::string& path, std::string_view bytes) {
  Temporary tmp = checked_temporary(path);
  tmp.write_all(bytes);
  tmp.finish();
  tmp.rename_over_target();
}

void write_file_atomic_with(const std::string& path, const std::function<void(int fd)>& write) {
  Temporary tmp = checked_temporary(path);
  write(tmp.fd());
  tmp.finish();
  tmp.rename_over_target();
}

void check_writable(const std::string& path, std::string_view what) {
  const std::string target = path.empty() ? path : resolve_links(path);
  refuse_target(OutputName{path, what}, target);
  std::error_code ec;
  const std::string folder = folder_of(target);
  if (!std::filesystem::is_directory(folder, ec)) {
    fail("cannot write {}: folder {} does not exist", path, folder);
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    fail("cannot write {}: {}", path, std::strerror(errno));
  }
}

void check_derived_outputs(const std::string& folder, const std::vector<std::string>& names,
                           std::string_view given_as) {
  for (const auto& name : names) {
    const std::string path = (std::filesystem::path(folder) / name).string();
    refuse_target(OutputName{path, given_as, /*derived=*/true}, resolve_links(path));
  }
}

void prepare_output_folder(const std::string& folder, bool create) {
  if (const auto input = noted_input(folder)) {
    fail("{}: is the input file {}{}; an output never replaces an input: choose another name",
         folder, input->path, input->role.empty() ? "" : " (" + input->role + ")");
  }
  std::error_code ec;
  if (create) {
    std::filesystem::create_directories(folder, ec);
    if (ec) fail("{}: cannot create directory: {}", folder, ec.message());
    return;
  }
  std::filesystem::path existing = std::filesystem::absolute(folder, ec);
  while (!std::filesystem::exists(existing, ec) && existing.has_relative_path()) {
    existing = existing.parent_path();
  }
  if (!std::filesystem::is_directory(existing, ec)) {
    fail("{}: cannot create directory: Not a directory", folder);
  }
}

void check_distinct_outputs(const std::vector<std::string>& paths,
                            const std::vector<std::string>& names) {
  ASSAY_ASSERT(paths.size() == names.size());
  // The same file however it is spelled (./a.json, dir/../a.json, a link to it).
  std::vector<std::filesystem::path> seen(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].empty()) continue;
    std::error_code ec;
    seen[i] = std::filesystem::weakly_canonical(paths[i], ec);
    if (ec) seen[i] = std::filesystem::absolute(paths[i]).lexically_normal();
    for (std::size_t j = 0; j < i; ++j) {
      if (!paths[j].empty() && seen[j] == seen[i]) {
        fail("{} and {} name the same file {}: each output needs its own file", names[j], names[i],
             paths[i]);
      }
    }
  }
}

struct OutputBatch::Staged {
  Temporary temporary;
  explicit Staged(const std::string& path) : temporary(checked_temporary(path)) {}
};

OutputBatch::OutputBatch() = default;
OutputBatch::~OutputBatch() = default;

void OutputBatch::stage(const std::string& path, std::string_view bytes) {
  auto staged = std::make_unique<Staged>(path);
  staged->temporary.write_all(bytes);
  staged->temporary.finish();
  staged_.push_back(std::move(staged));
}

void OutputBatch::commit() {
  std::vector<std::string> folders;
  for (const auto& s : staged_) folders.push_back(folder_of(s->temporary.resolved()));
  const FolderLocks locks(folders);
  // Checked again under the locks: a target may have become an input or a FIFO since staging.
  for (const auto& s : staged_) {
    refuse_target(OutputName{s->temporary.shown(), {}}, s->temporary.resolved());
  }
  for (std::size_t i = 0; i < staged_.size(); ++i) {
    try {
      staged_[i]->temporary.rename_over_target();
    } catch (const Error&) {
      for (std::size_t j = 0; j < i; ++j) ::unlink(staged_[j]->temporary.resolved().c_str());
      throw;
    }
  }
  staged_.clear();
}

}  // namespace assay

#include "assay/core/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

#include "assay/core/error.hpp"

namespace assay {

namespace {

std::string folder_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

[[noreturn]] void fail_errno(const std::string& path, int code) {
  fail("cannot write {}: {}", path, std::strerror(code));
}

void check_not_folder(const std::string& path) {
  if (path.empty()) fail("cannot write an output with an empty file name");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail("cannot write {}: it is a folder", path);
}

// A write past RLIMIT_FSIZE raises SIGXFSZ, which would kill the process before the error can be
// reported; ignored, the write fails with EFBIG instead.
void report_file_size_limit_as_error() {
  std::signal(SIGXFSZ, SIG_IGN);
}

// A temporary file next to the target: closed and removed unless committed (renamed).
class Temporary {
 public:
  explicit Temporary(const std::string& target) : name_(target + ".tmp-XXXXXX") {
    fd_ = ::mkstemp(name_.data());
    if (fd_ < 0) fail_errno(target, errno);
  }
  ~Temporary() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(name_.c_str());
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;

  void write_all(std::string_view bytes, const std::string& target) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        fail_errno(target, errno);
      }
      done += static_cast<std::size_t>(n);
    }
  }

  // Output files are readable like any other (mkstemp creates them 0600); the bytes are on disk
  // before the rename makes them visible under the target's name.
  void finish(const std::string& target) {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(fd_, 0666 & ~mask) != 0) fail_errno(target, errno);
    if (::fsync(fd_) != 0) fail_errno(target, errno);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail_errno(target, errno);
  }

  int fd() const { return fd_; }

  void rename_over(const std::string& target) {
    if (::rename(name_.c_str(), target.c_str()) != 0) fail_errno(target, errno);
    committed_ = true;
  }

 private:
  std::string name_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace

void write_file_atomic(const std::string& path, std::string_view bytes) {
  check_not_folder(path);
  report_file_size_limit_as_error();
  Temporary tmp(path);
  tmp.write_all(bytes, path);
  tmp.finish(path);
  tmp.rename_over(path);
}

void write_file_atomic_with(const std::string& path, const std::function<void(int fd)>& write) {
  check_not_folder(path);
  report_file_size_limit_as_error();
  Temporary tmp(path);
  write(tmp.fd());
  tmp.finish(path);
  tmp.rename_over(path);
}

void check_writable(const std::string& path) {
  check_not_folder(path);
  std::error_code ec;
  const std::string folder = folder_of(path);
  if (!std::filesystem::is_directory(folder, ec)) {
    fail("cannot write {}: folder {} does not exist", path, folder);
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    fail("cannot write {}: {}", path, std::strerror(errno));
  }
}

void prepare_output_folder(const std::string& folder, bool create) {
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
  std::string target;
  Temporary temporary;
  explicit Staged(const std::string& path) : target(path), temporary(path) {}
};

OutputBatch::OutputBatch() = default;
OutputBatch::~OutputBatch() = default;

void OutputBatch::stage(const std::string& path, std::string_view bytes) {
  check_not_folder(path);
  report_file_size_limit_as_error();
  auto staged = std::make_unique<Staged>(path);
  staged->temporary.write_all(bytes, path);
  staged->temporary.finish(path);
  staged_.push_back(std::move(staged));
}

void OutputBatch::commit() {
  for (std::size_t i = 0; i < staged_.size(); ++i) {
    try {
      staged_[i]->temporary.rename_over(staged_[i]->target);
    } catch (const Error&) {
      for (std::size_t j = 0; j < i; ++j) ::unlink(staged_[j]->target.c_str());
      throw;
    }
  }
  staged_.clear();
}

}  // namespace assay

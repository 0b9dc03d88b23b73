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

  // Output files are readable like any other (mkstemp creates them 0600).
  void commit(const std::string& target) {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(fd_, 0666 & ~mask) != 0) fail_errno(target, errno);
    if (::fsync(fd_) != 0) fail_errno(target, errno);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail_errno(target, errno);
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
  if (path.empty()) fail("cannot write an output with an empty file name");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail("cannot write {}: it is a folder", path);
  // A write past RLIMIT_FSIZE raises SIGXFSZ, which would kill the process before the error can
  // be reported; ignored, the write fails with EFBIG instead.
  std::signal(SIGXFSZ, SIG_IGN);
  Temporary tmp(path);
  tmp.write_all(bytes, path);
  tmp.commit(path);
}

void check_writable(const std::string& path) {
  if (path.empty()) fail("cannot write an output with an empty file name");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail("cannot write {}: it is a folder", path);
  const std::string folder = folder_of(path);
  if (!std::filesystem::is_directory(folder, ec)) {
    fail("cannot write {}: folder {} does not exist", path, folder);
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    fail("cannot write {}: {}", path, std::strerror(errno));
  }
}

}  // namespace assay

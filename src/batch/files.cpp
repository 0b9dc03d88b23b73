#include "files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "system.hpp"

namespace assay::batch::detail {
namespace fs = std::filesystem;
namespace {

// 1-based line and column of byte offset `at` of `text`.
Location location_of(const std::string& text, std::size_t at, const fs::path& path) {
  at = std::min(at, text.size());
  const auto line = 1 + std::count(text.begin(), text.begin() + std::ptrdiff_t(at), '\n');
  const std::size_t line_start = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
  const std::size_t column = at - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
  return Location{path.string(), static_cast<std::int64_t>(line),
                  static_cast<std::int64_t>(column)};
}

// Where `token` first occurs in `text` outside JSON strings (npos if nowhere).
std::size_t find_outside_strings(const std::string& text, const std::string& token) {
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (text.compare(i, token.size(), token) == 0) {
      return i;
    }
  }
  return std::string::npos;
}

// A number nlohmann could not hold (out_of_range.406: "number overflow parsing '1e400'").
[[noreturn]] void number_out_of_range(const std::string& text, const fs::path& path,
                                      const std::string& what) {
  const auto open = what.find('\''), close = what.rfind('\'');
  const std::string token =
      open != std::string::npos && close > open ? what.substr(open + 1, close - open - 1) : "";
  const std::size_t at = token.empty() ? std::string::npos : find_outside_strings(text, token);
  const Location where =
      at == std::string::npos ? Location{path.string(), 0, 0} : location_of(text, at, path);
  fail_at(where, "expected a number within the range of a double, found {}",
          token.empty() ? std::string("a number beyond it") : token);
}

}  // namespace

std::string read_file(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail("{}: expected a file, found a folder", path.string());
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot read: {}", path.string(), std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail("{}: cannot read: {}", path.string(), std::strerror(errno));
  return text.str();
}

Json parse_json_text(const std::string& text, const fs::path& path) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // nlohmann's byte count: the offending byte is the last one read.
    const std::size_t at = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    std::string found;
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      found = "an empty file";
    } else if (at >= text.size()) {
      found = "the end of the file (truncated JSON)";
    } else {
      const std::size_t end = text.find_first_of("\r\n", at);  // the rest of that line
      found = quote_found(std::string_view(text).substr(at, std::min<std::size_t>(end - at, 40)));
    }
    fail_at(location_of(text, at, path), "expected JSON, found {}", found);
  } catch (const Json::out_of_range& e) {
    number_out_of_range(text, path, e.what());
  } catch (const Json::exception& e) {
    fail("{}: expected JSON, found text nlohmann::json refuses ({})", path.string(), e.what());
  }
}

Json parse_json_file(const fs::path& path) {
  return parse_json_text(read_file(path), path);
}

std::string random_token() {
  static thread_local std::mt19937_64 engine = [] {
    std::random_device device;
    std::seed_seq seq{
        device(), device(), static_cast<unsigned>(::getpid()),
        static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count())};
    return std::mt19937_64(seq);
  }();
  return fmt::format("{:016x}", engine());
}

bool create_exclusive(const fs::path& path, const std::string& text) {
  const fs::path temp =
      path.parent_path() / fmt::format(".{}.{}.{}.{}.tmp", path.filename().string(), host_name(),
                                       ::getpid(), random_token());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail("{}: cannot create: {}", temp.string(), std::strerror(errno));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      fail("{}: cannot write: {}", temp.string(), std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  const int rc = ::link(temp.c_str(), path.c_str());
  const int err = errno;
  struct stat st {};
  // NFS: a retransmitted link() can report EEXIST for the link it made; the count tells.
  const bool linked = rc == 0 || (::stat(temp.c_str(), &st) == 0 && st.st_nlink == 2);
  ::unlink(temp.c_str());
  if (linked) return true;
  if (err == EEXIST) return false;
  fail("{}: cannot create: {}", path.string(), std::strerror(err));
}

fs::path set_aside(const fs::path& path) {
  std::string stamp = utc_now();
  std::replace(stamp.begin(), stamp.end(), ':', '-');  // file names without colons
  fs::path target = path.string() + ".damaged-" + stamp;
  std::error_code ec;
  for (int k = 2; fs::exists(target, ec); ++k) {
    target = path.string() + ".damaged-" + stamp + "-" + std::to_string(k);
  }
  fs::rename(path, target, ec);
  if (ec) {
    fail("{}: cannot move the damaged file aside to {}: {}", path.string(), target.string(),
         ec.message());
  }
  return target;
}

}  // namespace assay::batch::detail

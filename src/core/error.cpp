#include "assay/core/error.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

namespace assay {
namespace {

/// Length of the well-formed UTF-8 sequence at p (a byte >= 0x80), or 0 if it is ill-formed:
/// overlong forms, surrogates and code points above U+10FFFF are refused.
std::size_t utf8_length(const unsigned char* p, const unsigned char* end) {
  const unsigned char c = *p;
  if (c < 0x80) return 1;
  std::size_t length = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (static_cast<std::size_t>(end - p) < length || p[1] < lo || p[1] > hi) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (p[k] < 0x80 || p[k] > 0xBF) return 0;
  }
  return length;
}

}  // namespace

std::string Location::to_string() const {
  // A file name with a newline, NUL or bytes that are not UTF-8 is shown quoted and escaped, so
  // that a message stays one line of text.
  bool plain = invalid_utf8_at(file) == std::string_view::npos;
  for (const char c : file) plain = plain && static_cast<unsigned char>(c) >= 0x20 && c != 0x7F;
  std::string out = plain ? file : quote_found(file);
  if (line > 0) {
    out += fmt::format(":{}", line);
    if (column > 0) out += fmt::format(":{}", column);
  }
  return out;
}

Error::Error(const std::string& message) : std::runtime_error(message), message_(message) {}

Error::Error(Location where, const std::string& message)
    // A location without a file (a table built in memory) adds nothing to the message.
    : std::runtime_error(where.file.empty() ? message : where.to_string() + ": " + message),
      message_(message),
      location_(std::move(where)) {}

std::size_t invalid_utf8_at(std::string_view text) {
  const auto* begin = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = begin + text.size();
  const auto* p = begin;
  while (p < end) {
    if (p + 8 <= end) {  // ASCII runs eight bytes at a time
      std::uint64_t x;
      std::memcpy(&x, p, 8);
      if ((x & 0x8080808080808080ULL) == 0) {
        p += 8;
        continue;
      }
    }
    const std::size_t length = utf8_length(p, end);
    if (length == 0) return static_cast<std::size_t>(p - begin);
    p += length;
  }
  return std::string_view::npos;
}

void check_utf8_name(const std::string& path) {
  const std::size_t at = invalid_utf8_at(path);
  if (at == std::string_view::npos) return;
  fail("{}: expected a UTF-8 file name, found byte 0x{:02X} at byte {}", quote_found(path),
       static_cast<unsigned char>(path[at]), at + 1);
}

std::string quote_found(std::string_view text) {
  constexpr std::size_t kMaxShown = 40;  // characters
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  std::string out = "\"";
  for (std::size_t shown = 0; p < end; ++shown) {
    if (shown == kMaxShown) {
      out += "...";
      break;
    }
    const unsigned char c = *p;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += fmt::format("\\x{:02x}", c);
        } else if (c >= 0x80) {
          // A whole UTF-8 character is shown as it is; a stray byte as \xE9.
          const std::size_t length = utf8_length(p, end);
          if (length == 0) {
            out += fmt::format("\\x{:02X}", c);
          } else {
            out.append(reinterpret_cast<const char*>(p), length);
            p += length;
            continue;
          }
        } else {
          out += static_cast<char>(c);
        }
    }
    ++p;
  }
  out += "\"";
  return out;
}

std::size_t allocatable_bytes() {
  std::size_t available = std::numeric_limits<std::size_t>::max();
  if (std::FILE* meminfo = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    unsigned long long kb = 0;
    while (std::fgets(line, sizeof line, meminfo)) {
      if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
        available = static_cast<std::size_t>(kb) * 1024;
        break;
      }
    }
    std::fclose(meminfo);
  }
  // Address space already in use counts against ulimit -v.
  std::size_t in_use = 0;
  if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
    unsigned long long pages = 0;
    if (std::fscanf(statm, "%llu", &pages) == 1) {
      in_use = static_cast<std::size_t>(pages) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    }
    std::fclose(statm);
  }
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit limit {};
    if (::getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
      const auto cap = static_cast<std::size_t>(limit.rlim_cur);
      available = std::min(available, cap > in_use ? cap - in_use : 0);
    }
  }
  return available;
}

void check_memory(std::size_t bytes, std::string_view what) {
  const std::size_t available = allocatable_bytes();
  if (bytes <= available) return;
  fail("needs {:.1f} GB for {}, more than the {:.1f} GB this process can allocate", bytes / 1e9,
       what, available / 1e9);
}

namespace detail {
void assertion_failed(const char* condition, const char* file, int line) {
  throw std::logic_error(fmt::format("assay internal error: {} failed at {}:{} (please report)",
                                     condition, file, line));
}
}  // namespace detail

}  // namespace assay

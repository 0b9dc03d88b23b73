// assay::Error — the one exception type for the caller's mistakes (bad input, bad parameters).
//
// Messages read like a compiler's: with a location, what() is "file:line:col: message" (1-based
// line and column; line 0 means "the whole file", column 0 "the whole line"); without one, the
// message names what was expected and what was found, with values. Our own bugs use
// ASSAY_ASSERT, which throws std::logic_error and is never caught as bad input.
//
// Example:
//   try {
//     fail_at(Location{"data.csv", 7, 12}, "expected a number, found {}", quote_found("abc"));
//   } catch (const Error& e) {
//     e.what();               // data.csv:7:12: expected a number, found "abc"
//     e.message();            // expected a number, found "abc"
//     e.location()->line;     // 7
//   }
//   fail("threshold must be in [0, 1], found {}", 1.5);
//       // throws: threshold must be in [0, 1], found 1.5
//       // (no location: the message alone)
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace assay {

/// Where in an input file something was found. line/column are 1-based; 0 = not applicable.
struct Location {
  std::string file;
  std::int64_t line = 0;
  std::int64_t column = 0;

  /// "file:line:col", "file:line" or "file", dropping the parts that are 0.
  std::string to_string() const;
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
  Error(Location where, const std::string& message);

  /// The message without the location prefix.
  const std::string& message() const { return message_; }
  const std::optional<Location>& location() const { return location_; }

 private:
  std::string message_;
  std::optional<Location> location_;
};

/// Throws assay::Error with a fmt-formatted message.
template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

/// Throws assay::Error at a location with a fmt-formatted message.
template <typename... Args>
[[noreturn]] void fail_at(Location where, fmt::format_string<Args...> format, Args&&... args) {
  throw Error(std::move(where), fmt::format(format, std::forward<Args>(args)...));
}

/// Quotes a found value for messages: "abc" with quotes, backslashes, control characters (NUL,
/// newlines: \n, \x00) and bytes that are not UTF-8 (\xE9) escaped, cut at 40 characters ("...").
/// Whatever the input, the result is one line of valid UTF-8.
std::string quote_found(std::string_view text);

/// The offset of the first byte of `text` that is not part of well-formed UTF-8, or npos.
std::size_t invalid_utf8_at(std::string_view text);

/// Refuses a file name that is not UTF-8 (it would end up in JSON and HTML outputs):
/// `"caf\xE9.csv": expected a UTF-8 file name, found byte 0xE9 at byte 4`.
void check_utf8_name(const std::string& path);

/// Bytes this process can still allocate: the machine's available memory (MemAvailable), less
/// when an address-space or data limit (ulimit -v / -d) leaves less room.
std::size_t allocatable_bytes();

/// Refuses, before allocating, a buffer that cannot fit: throws assay::Error "needs 1.7 GB for
/// <what>, more than the 1.0 GB this process can allocate" when bytes > allocatable_bytes().
void check_memory(std::size_t bytes, std::string_view what);

namespace detail {
[[noreturn]] void assertion_failed(const char* condition, const char* file, int line);
}  // namespace detail

}  // namespace assay

/// Checks an invariant of our own code (not the caller's input); throws std::logic_error.
#define ASSAY_ASSERT(condition)                                                          \
  do {                                                                                   \
    if (!(condition)) ::assay::detail::assertion_failed(#condition, __FILE__, __LINE__); \
  } while (0)

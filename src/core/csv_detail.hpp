// Private to the CSV files (csv.cpp parses, csv_files.cpp reads files and streams, finds cells
// again and writes): a problem found at a byte, the text with its locations, and the RFC 4180
// field reader both passes and cell_location use.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "assay/core/error.hpp"

namespace assay::csv_detail {

/// A problem found at `at` (nullptr = none yet).
struct Problem {
  const char* at = nullptr;
  std::string message;   // for a missing value: what was expected ("expected a number")
  bool missing = false;  // an empty cell or NA: "found ..." and a hint are added when reported
};

/// The file, with everything needed to turn a pointer into a location.
struct Text {
  const char* begin;  // after a byte order mark
  const char* end;
  const std::string& name;
  char delimiter = ',';

  Location locate(const char* at) const {
    const std::int64_t line = 1 + std::count(begin, at, '\n');
    const char* line_start = at;
    while (line_start > begin && line_start[-1] != '\n') --line_start;
    return Location{name, line, static_cast<std::int64_t>(at - line_start) + 1};
  }
  [[noreturn]] void fail(const Problem& p) const {
    throw Error(locate(p.at), p.missing ? missing_message(p) : p.message);
  }

 private:
  /// "expected a number, found an empty cell" / "... found a missing value "NA"", and a hint
  /// when the whole row is separators (spreadsheets write such rows for formatted empty cells).
  std::string missing_message(const Problem& p) const {
    const char* line_start = p.at;
    while (line_start > begin && line_start[-1] != '\n') --line_start;
    const char* line_end =
        static_cast<const char*>(std::memchr(p.at, '\n', static_cast<std::size_t>(end - p.at)));
    if (!line_end) line_end = end;
    const char* cell_end = p.at;
    while (cell_end < line_end && *cell_end != delimiter && *cell_end != '\r') ++cell_end;
    std::string_view cell(p.at, static_cast<std::size_t>(cell_end - p.at));
    while (!cell.empty() && is_blank_char(cell.front())) cell.remove_prefix(1);
    while (!cell.empty() && is_blank_char(cell.back())) cell.remove_suffix(1);
    std::string message =
        p.message + ", found " +
        (cell.empty() || cell.front() == '"' ? std::string("an empty cell")
                                             : "a missing value " + quote_found(cell));
    const bool separators_only = std::all_of(line_start, line_end, [&](char c) {
      return c == delimiter || is_blank_char(c) || c == '\r';
    });
    if (separators_only) {
      message +=
          " (the row holds only separators, as spreadsheets write for rows that are formatted "
          "but empty; delete such rows)";
    }
    return message;
  }
  static bool is_blank_char(char c) { return c == ' ' || c == '\t'; }
};

/// True if `q` ends a field: a delimiter, LF, CRLF, a final CR, or the end of the text.
inline bool is_field_end(const char* q, const char* e, char delimiter) {
  return q == e || *q == delimiter || *q == '\n' || (*q == '\r' && (q + 1 == e || q[1] == '\n'));
}

/// End of an unquoted field starting at f (before a delimiter, LF or CRLF).
inline const char* unquoted_end(const char* f, const char* e, char delimiter) {
  const char* p = f;
  while (p < e && *p != delimiter && *p != '\n') ++p;
  if (p > f && p[-1] == '\r' && (p == e || *p == '\n')) --p;
  return p;
}

/// Skips blank lines (and comment lines when enabled) at a record start.
inline const char* skip_blank_lines(const char* p, const char* e, bool comments) {
  while (p < e) {
    if (*p == '\n') {
      ++p;
    } else if (*p == '\r' && (p + 1 == e || p[1] == '\n')) {
      p += (p + 1 == e) ? 1 : 2;
    } else if (comments && *p == '#') {
      const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(e - p));
      p = nl ? static_cast<const char*>(nl) + 1 : e;
    } else {
      break;
    }
  }
  return p;
}

/// RFC 4180 field reader for files that may hold quotes (one thread).
class FieldReader {
 public:
  FieldReader(const char* p, const char* e, char delimiter) : p_(p), e_(e), delim_(delimiter) {}

  const char* position() const { return p_; }
  void seek(const char* p) { p_ = p; }

  /// Reads one field: start (its first byte) and content; returns false at the end of the
  /// record. Sets `problem` (and returns false) for an unterminated quote or junk after one.
  bool next(const char*& start, std::string_view& cell, Problem& problem) {
    start = p_;
    if (p_ < e_ && *p_ == '"') {
      const char* run = ++p_;
      bool escaped = false;
      scratch_.clear();
      for (;;) {
        const void* found = std::memchr(p_, '"', static_cast<std::size_t>(e_ - p_));
        if (!found) {
          problem = {start,
                     "unterminated quoted field (no closing quote before the end of the file)"};
          return false;
        }
        const char* q = static_cast<const char*>(found);
        if (q + 1 < e_ && q[1] == '"') {
          scratch_.append(run, q + 1);
          escaped = true;
          p_ = run = q + 2;
          continue;
        }
        if (escaped) {
          scratch_.append(run, q);
          cell = scratch_;
        } else {
          cell = std::string_view(run, static_cast<std::size_t>(q - run));
        }
        p_ = q + 1;
        break;
      }
      if (!is_field_end(p_, e_, delim_)) {
        problem = {p_, fmt::format("expected a delimiter or the end of the line after a closing "
                                   "quote, found {}",
                                   quote_found(std::string_view(p_, 1)))};
        return false;
      }
    } else {
      const char* q = unquoted_end(p_, e_, delim_);
      cell = std::string_view(p_, static_cast<std::size_t>(q - p_));
      p_ = q;
    }
    if (p_ == e_) return false;
    if (*p_ == delim_) {
      ++p_;
      return true;
    }
    if (*p_ == '\r') ++p_;
    if (p_ < e_) ++p_;  // '\n'
    return false;
  }

  /// Skips blank and comment lines; false at the end of the text.
  bool at_record(bool comments) {
    p_ = skip_blank_lines(p_, e_, comments);
    return p_ < e_;
  }

  /// After the last expected field of `line` was followed by more: counts all fields.
  std::size_t count_rest(std::size_t so_far) {
    const char* start;
    std::string_view cell;
    Problem ignored;
    std::size_t found = so_far;
    for (;;) {
      ++found;
      if (!next(start, cell, ignored)) break;
    }
    return found;
  }

 private:
  const char* p_;
  const char* e_;
  char delim_;
  std::string scratch_;
};

/// The message for a NUL byte: never text; what usually puts one in a "CSV".
inline constexpr const char* kNulMessage =
    "expected text, found a NUL byte (0x00): binary data, or UTF-16 text (convert it with iconv "
    "-f UTF-16 -t UTF-8), or an endless device such as /dev/zero";

/// Refuses UTF-16 text by its byte order mark (Excel's "Unicode Text" writes UTF-16 LE).
void check_not_utf16(std::string_view bytes, const std::string& name);

}  // namespace assay::csv_detail

// CSV parser (files and streams are read, cells found again and tables written in
// csv_files.cpp). Two passes over a memory-mapped file:
//  1. numbers: every column not forced categorical is parsed as doubles straight into the output
//     vectors, remembering per column the first cell that is not a number and the first empty
//     cell. Files without quotes are cut at newlines into chunks parsed in parallel (each chunk
//     writes its own rows); files with quotes are parsed by one thread, since a newline may sit
//     inside a quoted field.
//  2. text: columns that turned out categorical are read again (one thread) into codes.
// Each chunk stops at its first definite problem; the earliest chunk's problem is the one a
// one-thread parse would meet first, so messages do not depend on the thread count.
#include "assay/core/csv.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <string_view>
#include <unordered_map>

#include <fmt/ranges.h>

#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/options.hpp"
#include "assay/core/output_file.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "core/csv_detail.hpp"
#include "core/names.hpp"

namespace assay {

using namespace csv_detail;  // csv_detail.hpp

namespace {

enum class Role { automatic, numeric, categorical };

/// What pass 1 learned about one column in one chunk.
struct ColumnScan {
  const char* first_text = nullptr;  // first cell that is not a number
  const char* first_empty = nullptr;
};

struct ChunkResult {
  std::size_t rows = 0;
  Problem problem;
  std::vector<ColumnScan> columns;
};

struct Context {
  char delimiter;
  char decimal;
  bool allow_missing;
  bool comments;
  std::size_t n_columns;
  std::vector<Role> roles;
};

inline bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

/// Number of '\n' in [b, e), eight bytes at a time (std::count is not vectorized at -O2).
std::size_t count_newlines(const char* b, const char* e) {
  constexpr std::uint64_t kOnes7 = 0x7f7f7f7f7f7f7f7fULL;
  constexpr std::uint64_t kNewlines = 0x0a0a0a0a0a0a0a0aULL;
  std::size_t n = 0;
  while (b + 8 <= e) {
    std::uint64_t x;
    std::memcpy(&x, b, 8);
    x ^= kNewlines;  // bytes that were '\n' are now 0
    const std::uint64_t zero_high = ~(((x & kOnes7) + kOnes7) | x | kOnes7);
    n += static_cast<std::size_t>(((zero_high >> 7) * 0x0101010101010101ULL) >>
                                  56);  // no popcnt at -O2
    b += 8;
  }
  return n + static_cast<std::size_t>(std::count(b, e, '\n'));
}

/// True when [b, e) is an integer literal (optional sign, digits) whose value a double cannot
/// hold exactly: an id such as 9007199254740993 (2^53 + 1) would read as 9007199254740992.
bool is_inexact_integer(const char* b, const char* e, double v) {
  if (!(std::abs(v) >= 9007199254740992.0) || std::isinf(v)) return false;  // 2^53: all exact
  while (b < e && is_blank(*b)) ++b;
  while (e > b && is_blank(e[-1])) --e;
  if (b < e && (*b == '+' || *b == '-')) ++b;
  while (b < e && *b == '0') ++b;
  if (b == e) return false;
  for (const char* q = b; q < e; ++q) {
    if (*q < '0' || *q > '9') return false;
  }
  return fmt::format("{:.0f}", std::abs(v)) != std::string_view(b, static_cast<std::size_t>(e - b));
}

/// Sizes `v` to n doubles. Large buffers first ask for transparent huge pages: zeroing and
/// faulting in 80 MB of 4 KiB pages otherwise costs as much as a third of the parse.
void resize_output(std::vector<double>& v, std::size_t n) {
  v.reserve(n);
  const std::size_t bytes = n * sizeof(double);
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  if (bytes >= 4 * kHuge) {
    const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
    const std::uintptr_t b = (begin + kHuge - 1) & ~(kHuge - 1);
    const std::uintptr_t e = (begin + bytes) & ~(kHuge - 1);
    if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);  // only a hint
  }
  v.resize(n);
}

enum class CellKind { number, empty, text };

/// Unquoted markers of a missing value among numbers: R's write.csv writes NA, Excel #N/A.
bool is_missing_marker(std::string_view cell) {
  return cell == "NA" || cell == "N/A" || cell == "#N/A";
}

/// A number written with a decimal comma ("0,5", "-1,25E-3"): one ',' and no '.'.
bool parse_decimal_comma(const char* b, const char* e, double& out) {
  std::string copy(b, e);
  const std::size_t comma = copy.find(',');
  if (comma == std::string::npos || copy.find_first_of(",.", comma + 1) != std::string::npos ||
      copy.find('.') < comma) {
    return false;
  }
  copy[comma] = '.';
  const char* first = copy.data();
  const char* last = first + copy.size();
  auto [q, ec] = std::from_chars(first, last, out);
  return q == last && ec == std::errc();
}

/// Reads a whole cell as a number: spaces/tabs around it and a leading '+' are accepted. With
/// `exact`, an integer a double cannot hold exactly is text (kept whole, like an id). An unquoted
/// NA marker is a missing value (empty); with `decimal` ',', "0,5" is 0.5.
CellKind parse_number(const char* b, const char* e, double& out, bool exact, char decimal = '.',
                      bool quoted = false) {
  while (b < e && is_blank(*b)) ++b;
  while (e > b && is_blank(e[-1])) --e;
  if (b == e) return CellKind::empty;
  const char* const whole = b;
  if (*b == '+') {
    ++b;
    if (b == e || *b == '-' || *b == '+') return CellKind::text;
  }
  auto [q, ec] = std::from_chars(b, e, out);
  if (q != e) {
    if (decimal == ',' && parse_decimal_comma(b, e, out)) return CellKind::number;
    const std::string_view cell(whole, static_cast<std::size_t>(e - whole));
    if (!quoted && is_missing_marker(cell)) {
      out = kNaN;
      return CellKind::empty;
    }
    return CellKind::text;
  }
  if (ec == std::errc::result_out_of_range) {
    // Overflow reads as +-inf, underflow as 0 or a subnormal, as strtod does.
    const std::string copy(b, e);
    out = std::strtod(copy.c_str(), nullptr);
  } else if (ec != std::errc()) {
    return CellKind::text;
  }
  if (exact && is_inexact_integer(b, e, out)) return CellKind::text;
  return CellKind::number;
}

/// Pass-1 handling of one cell of column c; false when it is a definite problem.
inline bool take_cell(const Context& ctx, std::size_t c, const char* start, std::string_view cell,
                      double* slot, ColumnScan& scan, Problem& problem) {
  double v;
  const bool exact = ctx.roles[c] == Role::automatic;
  const bool quoted = start != cell.data();  // the cell's text starts after its quote
  switch (parse_number(cell.data(), cell.data() + cell.size(), v, exact, ctx.decimal, quoted)) {
    case CellKind::number:
      *slot = v;
      return true;
    case CellKind::empty:
      *slot = kNaN;
      if (!scan.first_empty) scan.first_empty = start;
      if (ctx.roles[c] == Role::numeric && !ctx.allow_missing) {
        problem = {start, "expected a number", true};
        return false;
      }
      return true;
    case CellKind::text:
      if (ctx.roles[c] == Role::numeric) {
        double ignored;
        const bool comma = ctx.decimal == '.' &&
                           parse_decimal_comma(cell.data(), cell.data() + cell.size(), ignored);
        problem = {start, fmt::format("expected a number, found {}{}", quote_found(cell),
                                      comma ? " (a decimal comma: give the decimal mark, "
                                              "--decimal ',' or Python decimal=\",\")"
                                            : "")};
        return false;
      }
      scan.first_text = start;
      return true;
  }
  return true;
}

std::string field_count_message(std::size_t expected, std::size_t found) {
  return fmt::format("expected {} field{}, found {}", expected, expected == 1 ? "" : "s", found);
}

/// Pass 1 over [b, e) of a file without quotes; rows go to out[c][row].
void scan_unquoted(const Context& ctx, const char* b, const char* e, double* const* out,
                   std::int64_t* lines, std::int64_t first_line, ChunkResult& r) {
  const std::size_t n = ctx.n_columns;
  const char delim = ctx.delimiter;
  std::size_t row = 0;
  std::int64_t line_number = first_line;  // every record is one line: no quotes
  const char* p = b;
  for (;;) {
    const char* before = p;
    p = skip_blank_lines(p, e, ctx.comments);
    if (p != before) line_number += static_cast<std::int64_t>(count_newlines(before, p));
    if (p >= e) break;
    const char* line = p;
    lines[row] = line_number++;
    for (std::size_t c = 0; c < n; ++c) {
      const char* f = p;
      ColumnScan& scan = r.columns[c];
      if (ctx.roles[c] != Role::categorical && !scan.first_text) {
        double v;
        if (auto [q, ec] = std::from_chars(f, e, v);
            ec == std::errc() && q != f && is_field_end(q, e, delim) &&
            !(std::abs(v) >= 9007199254740992.0)) {  // large integers: take_cell checks them
          out[c][row] = v;
          p = q;
        } else {
          p = unquoted_end(f, e, delim);
          if (!take_cell(ctx, c, f, std::string_view(f, static_cast<std::size_t>(p - f)),
                         &out[c][row], scan, r.problem)) {
            r.rows = row;
            return;
          }
        }
      } else {
        p = unquoted_end(f, e, delim);
      }
      if (c + 1 < n) {
        if (p == e || *p != delim) {
          r.problem = {line, field_count_message(n, c + 1)};
          r.rows = row;
          return;
        }
        ++p;
      }
    }
    if (p < e && *p == delim) {
      std::size_t found = n;
      while (p < e && *p != '\n') found += (*p++ == delim);
      r.problem = {line, field_count_message(n, found)};
      r.rows = row;
      return;
    }
    if (p < e && *p == '\r') ++p;
    if (p < e) ++p;  // '\n'
    ++row;
  }
  r.rows = row;
}

/// Pass 1 over the whole body of a file with quotes.
void scan_quoted(const Context& ctx, const char* b, const char* e, double* const* out,
                 std::int64_t* lines, std::int64_t first_line, ChunkResult& r) {
  const std::size_t n = ctx.n_columns;
  FieldReader reader(b, e, ctx.delimiter);
  std::size_t row = 0;
  std::int64_t line_number = first_line;
  const char* counted = b;  // newlines before here are in line_number (quoted fields hold some)
  const char* start;
  std::string_view cell;
  while (reader.at_record(ctx.comments)) {
    const char* line = reader.position();
    line_number += static_cast<std::int64_t>(count_newlines(counted, line));
    counted = line;
    lines[row] = line_number;
    for (std::size_t c = 0;; ++c) {
      const bool more = reader.next(start, cell, r.problem);
      if (r.problem.at) {
        r.rows = row;
        return;
      }
      if (ctx.roles[c] != Role::categorical && !r.columns[c].first_text) {
        if (!take_cell(ctx, c, start, cell, &out[c][row], r.columns[c], r.problem)) {
          r.rows = row;
          return;
        }
      }
      if (c + 1 == n) {
        if (more) {
          const std::size_t found = reader.count_rest(n);
          r.problem = {line, field_count_message(n, found)};
          r.rows = row;
          return;
        }
        break;
      }
      if (!more) {
        r.problem = {line, field_count_message(n, c + 1)};
        r.rows = row;
        return;
      }
    }
    ++row;
  }
  r.rows = row;
}

/// Pass 2: codes for the categorical columns (cats[c] == nullptr for the others).
void read_categories(const Context& ctx, const Text& text, const char* b,
                     const std::vector<Column*>& cats) {
  const char* e = text.end;
  struct Dictionary {
    std::unordered_map<std::string_view, std::int32_t> index;
    std::deque<std::string> owned;  // keys of `index` point here (stable addresses)
  };
  std::vector<Dictionary> dicts(ctx.n_columns);
  FieldReader reader(b, e, ctx.delimiter);
  const char* start;
  std::string_view cell;
  Problem problem;
  while (reader.at_record(ctx.comments)) {
    for (std::size_t c = 0; c < ctx.n_columns; ++c) {
      reader.next(start, cell, problem);
      ASSAY_ASSERT(!problem.at);  // pass 1 read the same bytes without a problem
      Column* col = cats[c];
      if (!col) continue;
      if (cell.empty() && !ctx.allow_missing && (start == e || *start != '"')) {
        // A missing value, not a category named "" (that is written `""`): refused as in
        // numeric columns.
        text.fail({start, fmt::format("expected a value in text column {}", quote_found(col->name)),
                   true});
      }
      Dictionary& d = dicts[c];
      auto it = d.index.find(cell);
      if (it == d.index.end()) {
        if (col->categories.size() >
            static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
          fail("column {} has more than 2^31 distinct values", quote_found(col->name));
        }
        const std::string& key = d.owned.emplace_back(cell);
        it = d.index.emplace(key, static_cast<std::int32_t>(col->categories.size())).first;
        col->categories.push_back(key);
      }
      col->codes.push_back(it->second);
    }
  }
}

/// The first NUL byte or byte that is not UTF-8 in `piece`, or nullptr.
const char* first_bad_byte(std::string_view piece) {
  const std::size_t invalid = invalid_utf8_at(piece);
  const void* nul = std::memchr(piece.data(), '\0', std::min(invalid, piece.size()));
  if (nul) return static_cast<const char*>(nul);
  return invalid == std::string_view::npos ? nullptr : piece.data() + invalid;
}

Problem bad_byte_problem(const char* at) {
  if (*at == '\0') return {at, kNulMessage};
  return {at, fmt::format("expected UTF-8 text, found byte 0x{:02X} (Latin-1 or Windows-1252 text, "
                          "as Excel's \"CSV (Comma delimited)\" writes? save it as \"CSV UTF-8\" "
                          "or convert it with iconv -f WINDOWS-1252 -t UTF-8)",
                          static_cast<unsigned char>(*at))};
}

/// Refuses a NUL byte or bytes that are not UTF-8 before any other work (they would reach JSON
/// and HTML outputs). Checked in parallel over pieces cut after newlines (a sequence never spans
/// one).
void check_utf8(const Text& text, const CsvParams& params) {
  const std::size_t size = static_cast<std::size_t>(text.end - text.begin);
  const std::size_t step = std::max<std::size_t>(1, params.chunk_bytes);
  std::vector<const char*> cuts{text.begin};
  for (std::size_t off = step; off < size; off += step) {
    const char* at = text.begin + off;
    if (at <= cuts.back()) continue;
    const void* nl = std::memchr(at, '\n', static_cast<std::size_t>(text.end - at));
    if (!nl) break;
    cuts.push_back(static_cast<const char*>(nl) + 1);
  }
  cuts.push_back(text.end);
  std::vector<const char*> bad(cuts.size() - 1, nullptr);
  parallel_for(
      bad.size(),
      [&](std::size_t k) {
        bad[k] = first_bad_byte(
            std::string_view(cuts[k], static_cast<std::size_t>(cuts[k + 1] - cuts[k])));
      },
      params.threads);
  for (const char* at : bad) {
    if (at) text.fail(bad_byte_problem(at));
  }
}

/// Refuses the header when `at` is another common separator than the delimiter, between names:
/// the file is separated by that one (a ';'-separated file from Excel would read as one column).
void fail_if_other_separator(const Text& text, const char* at, char delimiter) {
  const char separator = *at;
  if (separator == delimiter || (separator != ',' && separator != ';' && separator != '\t')) {
    return;
  }
  const char* line_start = at;
  while (line_start > text.begin && line_start[-1] != '\n') --line_start;
  const char* line_end = at;
  while (line_end < text.end && *line_end != '\n' && *line_end != '\r') ++line_end;
  const std::string_view header(line_start, static_cast<std::size_t>(line_end - line_start));
  const std::string shown = separator == '\t' ? "a tab" : fmt::format("'{}'", separator);
  const std::string read_it = separator == ';'    ? "delimiter=\";\", decimal=\",\""
                              : separator == '\t' ? "delimiter=\"\\t\""
                                                  : "delimiter=\",\"";
  const std::string option = separator == ';'    ? "--delimiter ';' --decimal ','"
                             : separator == '\t' ? "--delimiter tab"
                                                 : "--delimiter ','";
  text.fail(
      {at, fmt::format("expected '{}' between column names, found {} in the header {}: the "
                       "file is separated by {}{}; save it separated by '{}' (Excel: \"CSV "
                       "UTF-8 (Comma delimited)\"), or say so: {} on the command line, "
                       "assay.io.read_csv(path, {}) in Python",
                       delimiter, shown, quote_found(header), shown,
                       separator == ';' ? " (Excel's CSV where the decimal mark is a comma)" : "",
                       delimiter, option, read_it)});
}

/// A header of one unquoted name holding another common separator is refused (it is a file
/// separated by that one, read as one column).
void check_header_separator(const Text& text, const char* start,
                            const std::vector<std::string>& names, char delimiter) {
  if (names.size() != 1 || *start == '"') return;
  const std::size_t at = names[0].find_first_of(",;\t");
  if (at != std::string::npos) fail_if_other_separator(text, start + at, delimiter);
}

/// The header row's column names (each once); `header` is left at the first data row.
std::vector<std::string> read_header(const Text& text, FieldReader& header,
                                     const CsvParams& params) {
  if (!header.at_record(params.comments)) {
    throw Error(Location{text.name}, "empty file, expected a header row");
  }
  std::vector<std::string> names;
  std::unordered_map<std::string, std::size_t> seen;
  const char* start;
  const char* first_start = header.position();
  std::string_view cell;
  Problem problem;
  bool more = true;
  while (more) {
    more = header.next(start, cell, problem);
    if (problem.at) {
      // "y";"p" (R's write.csv2): the quoted names show the separator.
      if (problem.at < text.end) fail_if_other_separator(text, problem.at, *params.delimiter);
      text.fail(problem);
    }
    if (const void* cr = std::memchr(cell.data(), '\r', cell.size()); cr && *start != '"') {
      text.fail({static_cast<const char*>(cr),
                 "expected LF or CRLF line ends, found a lone CR (classic Mac line ends; "
                 "convert them with tr '\\r' '\\n')"});
    }
    auto [it, inserted] = seen.try_emplace(std::string(cell), names.size());
    if (!inserted) {
      text.fail({start, fmt::format("duplicate column name {} (columns {} and {})",
                                    quote_found(cell), it->second + 1, names.size() + 1)});
    }
    names.emplace_back(cell);
  }
  check_header_separator(text, first_start, names, *params.delimiter);
  return names;
}

/// The scan context: each column's role as the parameters name it (categorical or numeric).
Context scan_context(const Text& text, const std::vector<std::string>& names,
                     const CsvParams& params) {
  Context ctx{*params.delimiter, *params.decimal, params.allow_missing,
              params.comments,   names.size(),    std::vector<Role>(names.size(), Role::automatic)};
  auto index_of = [&](const std::string& name) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      throw Error(Location{text.name}, fmt::format("no column {}; columns are: {}",
                                                   quote_found(name), join_names(names)));
    }
    return static_cast<std::size_t>(it - names.begin());
  };
  for (const std::string& name : params.categorical) ctx.roles[index_of(name)] = Role::categorical;
  for (const std::string& name : params.numeric) {
    const std::size_t c = index_of(name);
    if (ctx.roles[c] == Role::categorical) {
      fail("column {} is named both categorical and numeric", quote_found(name));
    }
    ctx.roles[c] = Role::numeric;
  }
  return ctx;
}

/// The body cut into chunks scanned in parallel, with the rows and file lines they start at.
struct ChunkLayout {
  std::vector<const char*> cuts;         // chunk k is [cuts[k], cuts[k + 1])
  std::vector<std::size_t> first_row;    // an upper bound: blank lines and comments leave gaps
  std::vector<std::int64_t> first_line;  // 1-based file line
  bool quoted = false;                   // one chunk, scanned with quote handling
  std::size_t n_chunks() const { return cuts.size() - 1; }
};

/// Chunks cut after newlines; row bounds per chunk (every row ends at a newline or at the end).
/// A quote anywhere means one chunk: a newline may then sit inside a quoted field.
ChunkLayout chunk_layout(const Text& text, const char* body, const CsvParams& params) {
  ChunkLayout layout;
  auto& cuts = layout.cuts;
  const std::size_t body_size = static_cast<std::size_t>(text.end - body);
  cuts.push_back(body);
  const std::size_t step = std::max<std::size_t>(1, params.chunk_bytes);
  for (std::size_t off = step; off < body_size; off += step) {
    const char* at = body + off;
    if (at <= cuts.back()) continue;
    const void* nl = std::memchr(at - 1, '\n', static_cast<std::size_t>(text.end - at + 1));
    if (!nl) break;
    const char* cut = static_cast<const char*>(nl) + 1;
    if (cut > cuts.back() && cut < text.end) cuts.push_back(cut);
  }
  cuts.push_back(text.end);
  std::vector<std::size_t> bound(cuts.size() - 1, 0);
  std::vector<std::size_t> newlines(cuts.size() - 1, 0);
  std::vector<char> has_quote(cuts.size() - 1, 0);
  parallel_for(
      bound.size(),
      [&](std::size_t k) {
        const char* b = cuts[k];
        const char* e = cuts[k + 1];
        newlines[k] = count_newlines(b, e);
        bound[k] = newlines[k] + ((e > b && e[-1] != '\n') ? 1 : 0);
        has_quote[k] = std::memchr(b, '"', static_cast<std::size_t>(e - b)) != nullptr;
      },
      params.threads);
  layout.quoted = std::find(has_quote.begin(), has_quote.end(), 1) != has_quote.end();
  if (layout.quoted) {
    std::size_t total = 0;
    for (std::size_t r : bound) total += r;
    cuts = {body, text.end};
    bound = {total};
  }
  const std::size_t n_chunks = layout.n_chunks();
  layout.first_row.assign(n_chunks + 1, 0);
  for (std::size_t k = 0; k < n_chunks; ++k) {
    layout.first_row[k + 1] = layout.first_row[k] + bound[k];
  }
  // The header may span lines.
  layout.first_line.assign(n_chunks, 0);
  layout.first_line[0] = 1 + static_cast<std::int64_t>(count_newlines(text.begin, body));
  for (std::size_t k = 1; k < n_chunks; ++k) {
    layout.first_line[k] = layout.first_line[k - 1] + static_cast<std::int64_t>(newlines[k - 1]);
  }
  return layout;
}

/// Refuses, before allocating, a table whose rows cannot fit: a line number and a double per
/// column that may be numeric for each of up to `rows` rows.
void check_table_memory(const Text& text, const Context& ctx, std::size_t rows) {
  std::size_t numeric = 0;
  for (const Role role : ctx.roles) numeric += role != Role::categorical;
  const double bytes = static_cast<double>(rows) * 8.0 * static_cast<double>(numeric + 1);
  if (bytes < 1e8) return;  // reading /proc/meminfo is not worth it for small tables
  try {
    check_memory(
        bytes >= 1.8e19 ? SIZE_MAX : static_cast<std::size_t>(bytes),
        fmt::format("{} rows of {} columns read as numbers (8-byte doubles)", rows, numeric));
  } catch (const Error& e) {
    throw Error(Location{text.name}, e.message());
  }
}

/// Pass 1 over every chunk in parallel: numbers into `values` (at each chunk's first row), row
/// lines into `row_lines`, and what each chunk learned about its columns.
std::vector<ChunkResult> scan_chunks(const Context& ctx, const ChunkLayout& layout,
                                     std::vector<std::vector<double>>& values,
                                     std::vector<std::int64_t>& row_lines,
                                     const CsvParams& params) {
  const std::size_t n_chunks = layout.n_chunks();
  const std::size_t rows = row_lines.size();
  parallel_for(
      ctx.n_columns,
      [&](std::size_t c) {
        if (ctx.roles[c] != Role::categorical) resize_output(values[c], rows);
      },
      params.threads);
  std::vector<ChunkResult> results(n_chunks);
  parallel_for(
      n_chunks,
      [&](std::size_t k) {
        ChunkResult& r = results[k];
        r.columns.resize(ctx.n_columns);
        std::vector<double*> out(ctx.n_columns, nullptr);
        for (std::size_t c = 0; c < ctx.n_columns; ++c) {
          if (!values[c].empty()) out[c] = values[c].data() + layout.first_row[k];
        }
        std::int64_t* lines = row_lines.data() + layout.first_row[k];
        const char* b = layout.cuts[k];
        const char* e = layout.cuts[k + 1];
        if (layout.quoted) {
          scan_quoted(ctx, b, e, out.data(), lines, layout.first_line[k], r);
        } else {
          scan_unquoted(ctx, b, e, out.data(), lines, layout.first_line[k], r);
        }
      },
      params.threads);
  return results;
}

/// The first definite problem, then column types (a column with a cell that is not a number is
/// categorical), then empty cells in numeric columns.
std::vector<ColumnKind> column_kinds(const Text& text, const Context& ctx,
                                     const std::vector<ChunkResult>& results,
                                     const CsvParams& params) {
  for (const ChunkResult& r : results) {
    if (r.problem.at) text.fail(r.problem);
  }
  std::vector<ColumnKind> kinds(ctx.n_columns, ColumnKind::numeric);
  for (std::size_t c = 0; c < ctx.n_columns; ++c) {
    bool has_text = ctx.roles[c] == Role::categorical;
    for (const ChunkResult& r : results) has_text = has_text || r.columns[c].first_text;
    kinds[c] = has_text ? ColumnKind::categorical : ColumnKind::numeric;
  }
  if (!params.allow_missing) {
    for (const ChunkResult& r : results) {
      const char* first = nullptr;
      for (std::size_t c = 0; c < ctx.n_columns; ++c) {
        const char* at = r.columns[c].first_empty;
        if (kinds[c] == ColumnKind::numeric && at && (!first || at < first)) first = at;
      }
      if (first) text.fail({first, "expected a number", true});
    }
  }
  return kinds;
}

/// Closes the gaps left by blank lines and comments (rows were bounded, not counted); returns
/// the number of rows.
std::size_t close_gaps(const ChunkLayout& layout, const std::vector<ChunkResult>& results,
                       const std::vector<ColumnKind>& kinds,
                       std::vector<std::vector<double>>& values,
                       std::vector<std::int64_t>& row_lines) {
  std::size_t n_rows = 0;
  for (std::size_t k = 0; k < layout.n_chunks(); ++k) {
    const std::size_t rows = results[k].rows;
    if (n_rows != layout.first_row[k]) {
      std::memmove(row_lines.data() + n_rows, row_lines.data() + layout.first_row[k],
                   rows * sizeof(std::int64_t));
      for (std::size_t c = 0; c < kinds.size(); ++c) {
        if (kinds[c] == ColumnKind::numeric) {
          std::memmove(values[c].data() + n_rows, values[c].data() + layout.first_row[k],
                       rows * sizeof(double));
        }
      }
    }
    n_rows += rows;
  }
  return n_rows;
}

/// The header's separators outside quotes: the first record after blank (and comment) lines.
struct HeaderSeparators {
  std::size_t commas = 0, semicolons = 0, tabs = 0;
};

HeaderSeparators header_separators(const char* p, const char* e, bool comments) {
  HeaderSeparators found;
  bool quoted = false;
  for (p = skip_blank_lines(p, e, comments); p < e && (quoted || *p != '\n'); ++p) {
    if (*p == '"') quoted = !quoted;
    if (quoted) continue;
    found.commas += *p == ',';
    found.semicolons += *p == ';';
    found.tabs += *p == '\t';
  }
  return found;
}

std::string separator_shown(char separator) {
  return separator == '\t' ? "a tab" : fmt::format("'{}'", separator);
}

/// The delimiter and decimal mark to read with. Detection (no delimiter given): a header with no
/// ',' outside quotes but ';' or tabs (one of them only) is read with that separator, and a note
/// says so; ';' brings decimal ',' (Excel's and R's write.csv2 dialect) unless a decimal is given.
/// A header with both ';' and tabs stays ',' and is refused as one column naming the first.
CsvParams resolve_dialect(const Text& text, const CsvParams& params) {
  CsvParams resolved = params;
  char detected = 0;
  if (!params.delimiter) {
    const HeaderSeparators h = header_separators(text.begin, text.end, params.comments);
    if (h.commas == 0 && (h.semicolons > 0) != (h.tabs > 0)) detected = h.semicolons ? ';' : '\t';
  }
  resolved.delimiter = detected ? detected : params.delimiter.value_or(',');
  resolved.decimal = params.decimal.value_or(detected == ';' ? ',' : '.');
  if (detected) {
    const bool tab = detected == '\t';
    warn(WarningKind::note,
         fmt::format("{}: columns separated by {} (detected from the header){}; give the "
                     "delimiter to say so (CLI: --delimiter {}; Python: delimiter=\"{}\")",
                     text.name, separator_shown(detected),
                     detected == ';' && !params.decimal ? ", numbers with a decimal comma" : "",
                     tab ? "tab" : "';'", tab ? "\\t" : ";"));
  }
  return resolved;
}

Table parse(const Text& whole, const CsvParams& given) {
  const CsvParams params = resolve_dialect(whole, given);
  const Text text{whole.begin, whole.end, whole.name, *params.delimiter};
  const char d = *params.delimiter;
  if (std::isalnum(static_cast<unsigned char>(d)) || std::strchr(".+-\"\r\n", d) != nullptr ||
      d == '\0') {
    fail("delimiter {} is not allowed (it could be part of a number or a quote)",
         quote_found(std::string_view(&d, 1)));
  }
  const char decimal = *params.decimal;
  if (decimal != '.' && decimal != ',') {
    fail("decimal must be '.' or ',', found {}", quote_found(std::string_view(&decimal, 1)));
  }
  if (decimal == d) {
    fail(
        "decimal ',' needs another delimiter (the CSV dialect with a decimal comma separates "
        "fields by ';')");
  }
  if (text.begin == text.end) {
    throw Error(Location{text.name}, "empty file, expected a header row");
  }
  check_utf8(text, params);

  FieldReader header(text.begin, text.end, d);
  const std::vector<std::string> names = read_header(text, header, params);
  Table table(text.name);
  const char* body = header.position();
  const Context ctx = scan_context(text, names, params);

  const ChunkLayout layout = chunk_layout(text, body, params);
  check_table_memory(text, ctx, layout.first_row.back());
  std::vector<std::int64_t> row_lines(layout.first_row.back());
  std::vector<std::vector<double>> values(ctx.n_columns);
  const std::vector<ChunkResult> results = scan_chunks(ctx, layout, values, row_lines, params);
  const std::vector<ColumnKind> kinds = column_kinds(text, ctx, results, params);
  const std::size_t n_rows = close_gaps(layout, results, kinds, values, row_lines);

  std::vector<Column> columns(ctx.n_columns);
  std::vector<Column*> cats(ctx.n_columns, nullptr);
  bool any_categorical = false;
  for (std::size_t c = 0; c < ctx.n_columns; ++c) {
    columns[c].name = names[c];
    columns[c].kind = kinds[c];
    if (kinds[c] == ColumnKind::numeric) {
      values[c].resize(n_rows);
      columns[c].values = std::move(values[c]);
    } else {
      std::vector<double>().swap(values[c]);
      columns[c].codes.reserve(n_rows);
      cats[c] = &columns[c];
      any_categorical = true;
    }
  }
  if (any_categorical) read_categories(ctx, text, body, cats);
  for (Column& col : columns) table.add_column(std::move(col));
  row_lines.resize(n_rows);
  table.set_row_lines(std::move(row_lines), d);
  return table;
}

}  // namespace

namespace csv_detail {

/// Refuses UTF-16 text by its byte order mark (Excel's "Unicode Text" writes UTF-16 LE).
void check_not_utf16(std::string_view bytes, const std::string& name) {
  if (bytes.substr(0, 2) == "\xFF\xFE" || bytes.substr(0, 2) == "\xFE\xFF") {
    fail_at(Location{name, 1, 1},
            "expected UTF-8 text, found a UTF-16 byte order mark (0x{:02X} 0x{:02X}): the file is "
            "UTF-16 text, as Excel's \"Unicode Text\" writes; save it as \"CSV UTF-8\" or convert "
            "it with iconv -f UTF-16 -t UTF-8",
            static_cast<unsigned char>(bytes[0]), static_cast<unsigned char>(bytes[1]));
  }
}

}  // namespace csv_detail

Table parse_csv(std::string_view text, const std::string& name, const CsvParams& params) {
  check_not_utf16(text, name);
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const Text t{text.data(), text.data() + text.size(), name, params.delimiter.value_or(',')};
  return parse(t, params);
}

namespace {
// "what: " before a message about an option's value, nothing when the caller adds the name.
std::string prefix(std::string_view what) {
  return what.empty() ? std::string() : std::string(what) + ": ";
}
}  // namespace

std::optional<char> parse_delimiter(std::string_view text, std::string_view what) {
  if (text == "auto") return std::nullopt;
  if (text == "tab" || text == "\\t" || text == "\t") return '\t';
  const bool allowed = text.size() == 1 && !std::isalnum(static_cast<unsigned char>(text[0])) &&
                       std::strchr(".+-\"\r\n", text[0]) == nullptr && text[0] != '\0';
  if (!allowed) {
    fail("{}expected one character such as ',' ';' '|', tab or auto, found {}", prefix(what),
         quote_found(text));
  }
  return text[0];
}

std::optional<char> parse_decimal(std::string_view text, std::string_view what) {
  if (text == "auto") return std::nullopt;
  if (text != "." && text != ",") {
    fail("{}expected '.', ',' or auto, found {}", prefix(what), quote_found(text));
  }
  return text[0];
}

}  // namespace assay

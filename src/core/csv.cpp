// CSV reader. Two passes over a memory-mapped file:
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
#include "assay/core/output_file.hpp"
#include "assay/core/thread_pool.hpp"

namespace assay {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

enum class Role { automatic, numeric, categorical };

/// A problem found at `at` (nullptr = none yet).
struct Problem {
  const char* at = nullptr;
  std::string message;
};

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

/// The file, with everything needed to turn a pointer into a location.
struct Text {
  const char* begin;  // after a byte order mark
  const char* end;
  const std::string& name;

  Location locate(const char* at) const {
    const std::int64_t line = 1 + std::count(begin, at, '\n');
    const char* line_start = at;
    while (line_start > begin && line_start[-1] != '\n') --line_start;
    return Location{name, line, static_cast<std::int64_t>(at - line_start) + 1};
  }
  [[noreturn]] void fail(const Problem& p) const { throw Error(locate(p.at), p.message); }
};

struct Context {
  char delimiter;
  bool allow_missing;
  bool comments;
  std::size_t n_columns;
  std::vector<Role> roles;
};

inline bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

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

/// Reads a whole cell as a number: spaces/tabs around it and a leading '+' are accepted.
CellKind parse_number(const char* b, const char* e, double& out) {
  while (b < e && is_blank(*b)) ++b;
  while (e > b && is_blank(e[-1])) --e;
  if (b == e) return CellKind::empty;
  if (*b == '+') {
    ++b;
    if (b == e || *b == '-' || *b == '+') return CellKind::text;
  }
  auto [q, ec] = std::from_chars(b, e, out);
  if (q != e) return CellKind::text;
  if (ec == std::errc::result_out_of_range) {
    // Overflow reads as +-inf, underflow as 0 or a subnormal, as strtod does.
    const std::string copy(b, e);
    out = std::strtod(copy.c_str(), nullptr);
  } else if (ec != std::errc()) {
    return CellKind::text;
  }
  return CellKind::number;
}

/// Pass-1 handling of one cell of column c; false when it is a definite problem.
inline bool take_cell(const Context& ctx, std::size_t c, const char* start, std::string_view cell,
                      double* slot, ColumnScan& scan, Problem& problem) {
  double v;
  switch (parse_number(cell.data(), cell.data() + cell.size(), v)) {
    case CellKind::number:
      *slot = v;
      return true;
    case CellKind::empty:
      *slot = kNaN;
      if (!scan.first_empty) scan.first_empty = start;
      if (ctx.roles[c] == Role::numeric && !ctx.allow_missing) {
        problem = {start, "expected a number, found an empty cell"};
        return false;
      }
      return true;
    case CellKind::text:
      if (ctx.roles[c] == Role::numeric) {
        problem = {start, fmt::format("expected a number, found {}", quote_found(cell))};
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
                   ChunkResult& r) {
  const std::size_t n = ctx.n_columns;
  const char delim = ctx.delimiter;
  std::size_t row = 0;
  const char* p = b;
  for (;;) {
    p = skip_blank_lines(p, e, ctx.comments);
    if (p >= e) break;
    const char* line = p;
    for (std::size_t c = 0; c < n; ++c) {
      const char* f = p;
      ColumnScan& scan = r.columns[c];
      if (ctx.roles[c] != Role::categorical && !scan.first_text) {
        double v;
        if (auto [q, ec] = std::from_chars(f, e, v);
            ec == std::errc() && q != f && is_field_end(q, e, delim)) {
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

/// Pass 1 over the whole body of a file with quotes.
void scan_quoted(const Context& ctx, const char* b, const char* e, double* const* out,
                 ChunkResult& r) {
  const std::size_t n = ctx.n_columns;
  FieldReader reader(b, e, ctx.delimiter);
  std::size_t row = 0;
  const char* start;
  std::string_view cell;
  while (reader.at_record(ctx.comments)) {
    const char* line = reader.position();
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
void read_categories(const Context& ctx, const char* b, const char* e,
                     const std::vector<Column*>& cats) {
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

Table parse(const Text& text, const CsvParams& params) {
  const char d = params.delimiter;
  if (std::isalnum(static_cast<unsigned char>(d)) || std::strchr(".+-\"\r\n", d) != nullptr ||
      d == '\0') {
    fail("delimiter {} is not allowed (it could be part of a number or a quote)",
         quote_found(std::string_view(&d, 1)));
  }
  if (text.begin == text.end) {
    throw Error(Location{text.name}, "empty file, expected a header row");
  }

  // Header.
  FieldReader header(text.begin, text.end, d);
  if (!header.at_record(params.comments)) {
    throw Error(Location{text.name}, "empty file, expected a header row");
  }
  Table table(text.name);
  std::vector<std::string> names;
  {
    std::unordered_map<std::string, std::size_t> seen;
    const char* start;
    std::string_view cell;
    Problem problem;
    bool more = true;
    while (more) {
      more = header.next(start, cell, problem);
      if (problem.at) text.fail(problem);
      auto [it, inserted] = seen.try_emplace(std::string(cell), names.size());
      if (!inserted) {
        text.fail({start, fmt::format("duplicate column name {} (columns {} and {})",
                                      quote_found(cell), it->second + 1, names.size() + 1)});
      }
      names.emplace_back(cell);
    }
  }
  const char* body = header.position();

  Context ctx{d, params.allow_missing, params.comments, names.size(),
              std::vector<Role>(names.size(), Role::automatic)};
  auto index_of = [&](const std::string& name) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      throw Error(Location{text.name}, fmt::format("no column {}; columns are: {}",
                                                   quote_found(name), fmt::join(names, ", ")));
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

  // Chunks cut after newlines; row bounds per chunk (every row ends at a newline or at the
  // end). A quote anywhere means one chunk: a newline may then sit inside a quoted field.
  const std::size_t body_size = static_cast<std::size_t>(text.end - body);
  std::vector<const char*> cuts{body};
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
  std::vector<char> has_quote(cuts.size() - 1, 0);
  parallel_for(
      bound.size(),
      [&](std::size_t k) {
        const char* b = cuts[k];
        const char* e = cuts[k + 1];
        bound[k] = count_newlines(b, e) + ((e > b && e[-1] != '\n') ? 1 : 0);
        has_quote[k] = std::memchr(b, '"', static_cast<std::size_t>(e - b)) != nullptr;
      },
      params.threads);
  const bool quoted = std::find(has_quote.begin(), has_quote.end(), 1) != has_quote.end();
  if (quoted) {
    std::size_t total = 0;
    for (std::size_t r : bound) total += r;
    cuts = {body, text.end};
    bound = {total};
  }
  const std::size_t n_chunks = cuts.size() - 1;
  std::vector<std::size_t> first_row(n_chunks + 1, 0);
  for (std::size_t k = 0; k < n_chunks; ++k) first_row[k + 1] = first_row[k] + bound[k];
  const std::size_t max_rows = first_row[n_chunks];
  std::vector<std::vector<double>> values(ctx.n_columns);
  parallel_for(
      ctx.n_columns,
      [&](std::size_t c) {
        if (ctx.roles[c] != Role::categorical) resize_output(values[c], max_rows);
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
          if (!values[c].empty()) out[c] = values[c].data() + first_row[k];
        }
        if (quoted) {
          scan_quoted(ctx, cuts[k], cuts[k + 1], out.data(), r);
        } else {
          scan_unquoted(ctx, cuts[k], cuts[k + 1], out.data(), r);
        }
      },
      params.threads);

  // The first definite problem, then column types, then empty cells in numeric columns.
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
      if (first) text.fail({first, "expected a number, found an empty cell"});
    }
  }

  // Close the gaps left by blank lines and comments (rows were bounded, not counted).
  std::size_t n_rows = 0;
  for (std::size_t k = 0; k < n_chunks; ++k) {
    const std::size_t rows = results[k].rows;
    if (n_rows != first_row[k]) {
      for (std::size_t c = 0; c < ctx.n_columns; ++c) {
        if (kinds[c] == ColumnKind::numeric) {
          std::memmove(values[c].data() + n_rows, values[c].data() + first_row[k],
                       rows * sizeof(double));
        }
      }
    }
    n_rows += rows;
  }

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
  if (any_categorical) read_categories(ctx, body, text.end, cats);
  for (Column& col : columns) table.add_column(std::move(col));
  return table;
}

/// A read-only memory map of a whole file (or nothing for an empty file).
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(Location{path}, fmt::format("cannot open: {}", std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      throw Error(Location{path}, fmt::format("cannot open: {}", std::strerror(err)));
    }
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      throw Error(Location{path}, fmt::format("cannot open: {}", std::strerror(EISDIR)));
    }
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (p == MAP_FAILED) {
        const int err = errno;
        ::close(fd);
        throw Error(Location{path}, fmt::format("cannot read: {}", std::strerror(err)));
      }
      data_ = static_cast<const char*>(p);
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view view() const { return {data_ ? data_ : "", size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace

Table parse_csv(std::string_view text, const std::string& name, const CsvParams& params) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const Text t{text.data(), text.data() + text.size(), name};
  return parse(t, params);
}

Table read_csv(const std::string& path, const CsvParams& params) {
  const MappedFile file(path);
  return parse_csv(file.view(), path, params);
}

namespace {

bool needs_quotes(const std::string& cell) {
  return cell.find_first_of(",\"\r\n") != std::string::npos;
}

void append_cell(std::string& out, const std::string& cell) {
  if (!needs_quotes(cell)) {
    out += cell;
    return;
  }
  out += '"';
  for (char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void append_number(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v > 0 ? "Inf" : "-Inf";
  } else {
    out += fmt::format("{}", v);
  }
}

}  // namespace

std::string format_csv(const Table& table) {
  std::string out;
  const auto& columns = table.columns();
  for (std::size_t j = 0; j < columns.size(); ++j) {
    if (j) out += ',';
    append_cell(out, columns[j].name);
  }
  out += '\n';
  for (std::size_t i = 0; i < table.n_rows(); ++i) {
    for (std::size_t j = 0; j < columns.size(); ++j) {
      if (j) out += ',';
      const Column& c = columns[j];
      if (c.is_numeric()) {
        append_number(out, c.values[i]);
      } else {
        append_cell(out, c.categories[static_cast<std::size_t>(c.codes[i])]);
      }
    }
    out += '\n';
  }
  return out;
}

void write_csv(const Table& table, const std::string& path) {
  write_file_atomic(path, format_csv(table));
}

}  // namespace assay

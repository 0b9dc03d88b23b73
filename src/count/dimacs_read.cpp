// Reading DIMACS CNF (cnf.hpp: parse_dimacs, read_dimacs_file, parse_projection): a streaming
// reader, so that a file is never held whole. A gzip bomb of comments costs reading time, not
// memory; clauses and XORs are kept, and every growth of them is checked against the memory the
// process can still allocate before it is made.
//
// What it accepts, and why (the formats that model counters and their users write):
// - comments anywhere, also before the header: ApproxMC, GANAK and CryptoMiniSat read `c ind`,
//   `c p show` and `c t` lines wherever they stand, and CBMC-made files (QuantifyML's formulas)
//   carry their projection in front of `p cnf`;
// - a projection list that does not end in 0 on its line continues on the next line of the same
//   kind (`c ind 1 2 3` / `c ind 4 5 0`); one still open at the end of the file is an error;
// - `p cnf V C` with any blanks (spaces, tabs, CR of Windows line ends), `p pcnf V C P` with `vp
//   ... 0` lines (the Model Counting Competition 2020's projected format), `c t mc` / `c t pmc`
//   (MCC 2021+), XOR lines `x1 -2 0` (CryptoMiniSat), SATLIB's trailing `%` and `0`, no final
//   newline;
// - a different problem is refused where it is declared: weights (`c p weight`, `c t wmc` /
//   `pwmc`, `p wcnf`, Cachet's `w` lines, miniC2D's `c weights`) and quantifiers (QDIMACS `e` /
//   `a` lines): counting their models unweighted or unquantified would be a silent wrong answer.
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/progress.hpp"
#include "assay/count/cnf.hpp"

namespace assay::count {
namespace {

// ------------------------------------------------------------------ bytes in chunks

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// The next chunk of bytes; empty at the end.
  virtual std::string_view next() = 0;
};

class TextSource final : public ByteSource {
 public:
  explicit TextSource(std::string_view text) : text_(text) {}
  std::string_view next() override { return std::exchange(text_, std::string_view()); }

 private:
  std::string_view text_;
};

struct GzCloser {
  void operator()(gzFile_s* f) const {
    if (f) gzclose(f);
  }
};

// A file, inflated when it is gzip-compressed (zlib passes plain files through), with a
// progress bar over the bytes of the file (compressed bytes for a .gz).
class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::string& path) : path_(path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) fail("{}: is a folder, expected a file", path);
    file_.reset(gzopen(path.c_str(), "rb"));
    if (!file_) fail("cannot open {}: {}", path, std::strerror(errno ? errno : ENOENT));
    gzbuffer(file_.get(), 1u << 20);
    const auto size = std::filesystem::file_size(path, ec);
    progress_.emplace("count: reading " + path, ec ? 0 : static_cast<std::uint64_t>(size));
  }

  std::string_view next() override {
    const int got = gzread(file_.get(), buffer_.data(), static_cast<unsigned>(buffer_.size()));
    if (got < 0) {
      int code = 0;
      const char* message = gzerror(file_.get(), &code);
      fail("{}: corrupt compressed data (zlib: {})", path_, message ? message : "unknown");
    }
    if (got == 0) {
      int code = 0;
      gzerror(file_.get(), &code);
      if (code == Z_BUF_ERROR) fail("{}: truncated: the compressed data end early", path_);
      progress_->finish();
      return {};
    }
    const auto offset = static_cast<std::uint64_t>(std::max<z_off_t>(gzoffset(file_.get()), 0));
    progress_->advance(offset - std::exchange(reported_, offset));
    return {buffer_.data(), static_cast<std::size_t>(got)};
  }

 private:
  std::string path_;
  std::unique_ptr<gzFile_s, GzCloser> file_;
  std::vector<char> buffer_ = std::vector<char>(1 << 20);
  std::optional<Progress> progress_;
  std::uint64_t reported_ = 0;
};

// ------------------------------------------------------------------ tokens

// Where a token starts: 1-based line and column (bytes).
struct Pos {
  std::int64_t line = 0;
  std::int64_t column = 0;
};

// A token keeps its first kKeep bytes (messages quote at most 40); a longer one is never a
// valid number, so nothing is lost, and a 5 GB token costs no memory.
struct Token : Pos {
  static constexpr std::size_t kKeep = 48;
  std::array<char, kKeep> bytes{};
  std::size_t size = 0;  // bytes kept
  std::string_view text() const { return {bytes.data(), size}; }
};

// Lines and blank-separated tokens with 1-based line and column numbers, over a ByteSource.
// Tight loops over each chunk: a gigabyte-long comment or token is skipped at memory speed.
class Scanner {
 public:
  Scanner(ByteSource& source, bool commas_separate) : source_(source) {
    for (const unsigned char c : {' ', '\t', '\r', '\v', '\f'}) kind_[c] = kBlank;
    if (commas_separate) kind_[static_cast<unsigned char>(',')] = kBlank;
    kind_[static_cast<unsigned char>('\n')] = kNewline;
  }

  /// The next token on this line, or false at the end of the line (or of the file).
  bool next_on_line(Token& t) {
    for (;;) {
      if (pos_ == chunk_.size() && !refill()) return false;
      const char* p = chunk_.data() + pos_;
      const char* end = chunk_.data() + chunk_.size();
      const char* q = p;
      while (q < end && kind_[static_cast<unsigned char>(*q)] == kBlank) ++q;
      column_ += q - p;
      pos_ = static_cast<std::size_t>(q - chunk_.data());
      if (q == end) continue;
      if (*q == '\n') return false;
      read_token(t);
      return true;
    }
  }
  /// The first token of the next line that has one; false at the end of the file.
  bool next_line(Token& t) {
    for (;;) {
      if (next_on_line(t)) return true;
      if (pos_ == chunk_.size()) return false;  // next_on_line refilled: the end of the file
      ++pos_;                                   // the newline
      ++line_;
      column_ = 1;
    }
  }
  /// Skips to the start of the next line.
  void skip_line() {
    for (;;) {
      if (pos_ == chunk_.size() && !refill()) return;
      const void* nl = std::memchr(chunk_.data() + pos_, '\n', chunk_.size() - pos_);
      if (nl) {
        pos_ = static_cast<std::size_t>(static_cast<const char*>(nl) - chunk_.data()) + 1;
        ++line_;
        column_ = 1;
        return;
      }
      pos_ = chunk_.size();
    }
  }

 private:
  enum : std::uint8_t { kOther = 0, kBlank = 1, kNewline = 2 };

  bool refill() {
    chunk_ = source_.next();
    pos_ = 0;
    return !chunk_.empty();
  }
  void read_token(Token& t) {
    t.size = 0;
    t.line = line_;
    t.column = column_;
    for (;;) {
      if (pos_ == chunk_.size() && !refill()) return;
      const char* p = chunk_.data() + pos_;
      const char* end = chunk_.data() + chunk_.size();
      const char* q = p;
      while (q < end && kind_[static_cast<unsigned char>(*q)] == kOther) ++q;
      const auto n = static_cast<std::size_t>(q - p);
      const std::size_t keep = std::min(n, Token::kKeep - t.size);
      std::memcpy(t.bytes.data() + t.size, p, keep);
      t.size += keep;
      column_ += static_cast<std::int64_t>(n);
      pos_ += n;
      if (q < end) return;
    }
  }

  ByteSource& source_;
  std::array<std::uint8_t, 256> kind_{};
  std::string_view chunk_;
  std::size_t pos_ = 0;
  std::int64_t line_ = 1;
  std::int64_t column_ = 1;
};

std::optional<std::int64_t> to_integer(std::string_view text) {
  std::int64_t value = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin != end && *begin == '+') ++begin;
  const auto r = std::from_chars(begin, end, value);
  if (begin == end || r.ec != std::errc() || r.ptr != end) return std::nullopt;
  return value;
}

// ------------------------------------------------------------------ memory

// Bytes the reader may still allocate before it asks the system again: checks are cheap, and
// the reader fails with a located message where a vector would have thrown bad_alloc.
class MemoryBudget {
 public:
  void need(std::size_t bytes, const Location& where, std::string_view what) {
    if (bytes > left_) left_ = allocatable_bytes();
    if (bytes > left_) {
      fail_at(where, "needs {} for {}, more than the {} this process can allocate",
              size_text(bytes), what, size_text(left_));
    }
    left_ -= bytes;
  }

 private:
  static std::string size_text(std::size_t bytes) {
    const double b = static_cast<double>(bytes);
    return b >= 1e9 ? fmt::format("{:.1f} GB", b / 1e9) : fmt::format("{:.0f} MB", b / 1e6);
  }

  std::size_t left_ = 0;
};

// ------------------------------------------------------------------ the reader

enum ProjectionKind : std::uint8_t { kInd = 1, kShow = 2, kVp = 4 };

const char* kind_name(ProjectionKind kind) {
  return kind == kInd ? "c ind" : kind == kShow ? "c p show" : "vp";
}

// The problem a `c t` line declares (MCC 2021+).
enum class Declared { none, mc, pmc };

class DimacsReader {
 public:
  DimacsReader(ByteSource& source, const std::string& file, DimacsNotes* notes)
      : scan_(source, false), file_(file), notes_(notes ? notes : &own_notes_) {}

  Cnf run() {
    Token first;
    while (!done_ && scan_.next_line(first)) {
      last_ = first;
      line(first);
    }
    finish();
    return std::move(cnf_);
  }

 private:
  Location at(const Pos& t) const { return {file_, t.line, t.column}; }

  bool next_on_line(Token& t) {
    if (!scan_.next_on_line(t)) return false;
    last_ = t;
    return true;
  }

  void line(const Token& first) {
    const std::string_view t = first.text();
    if (t[0] == 'c') return comment(first);
    if (t == "%") {  // SATLIB files end with "%" and a stray "0"
      done_ = true;
      return;
    }
    if (t == "p") return header(first);
    if (t == "w") refuse_weights(first, "Cachet's \"w\" weight lines");
    if (t == "e" || t == "a") {
      fail_at(at(first),
              "a quantifier line (QDIMACS \"{}\"): quantified formulas are a different problem; "
              "assay counts the models of a plain CNF",
              t);
    }
    if (!header_seen_) {
      fail_at(at(first), "expected a \"p cnf <variables> <clauses>\" header, found {}",
              quote_found(t));
    }
    if (t == "vp") return projection(kVp, first);
    if (t[0] == 'x') return xor_line(first);
    literal(first);
    Token next;
    while (next_on_line(next)) literal(next);
  }

  [[noreturn]] void refuse_weights(const Token& where, std::string_view what) const {
    fail_at(at(where),
            "weighted model counting ({}) is not supported: assay counts models, each of weight "
            "1; remove the weights to count the models",
            what);
  }

  // ---------------------------------------------------------------- comments

  void comment(const Token& first) {
    Token word;
    if (first.text() == "c" && next_on_line(word)) {
      const std::string_view w = word.text();
      if (w == "ind") return projection(kInd, first);
      if (w == "weights") refuse_weights(first, "miniC2D's \"c weights\" line");
      Token sub;
      if (w == "p" && next_on_line(sub)) {
        if (sub.text() == "show") return projection(kShow, first);
        if (sub.text() == "weight") refuse_weights(first, "\"c p weight\" lines");
      }
      if (w == "t" && next_on_line(sub)) declared_type(first, sub);
    }
    scan_.skip_line();
  }

  // `c t mc` / `c t pmc` name the problem; the weighted ones are refused. Any other word after
  // `c t` is an ordinary comment (CBMC names variables in comments).
  void declared_type(const Token& line_start, const Token& type) {
    const std::string_view t = type.text();
    if (t == "wmc" || t == "pwmc" || t == "wpmc") {
      refuse_weights(type, fmt::format("\"c t {}\"", t));
    }
    if (t != "mc" && t != "pmc") return;
    declared_ = t == "mc" ? Declared::mc : Declared::pmc;
    declared_at_ = line_start;
  }

  // The variables of one projection line, up to its 0; without a 0 the list goes on at the
  // next line of the same kind.
  void projection(ProjectionKind kind, const Token& line_start) {
    cnf_.has_projection = true;
    if (!first_projection_) first_projection_ = line_start;
    Token t;
    while (next_on_line(t)) {
      const std::int64_t v = integer(t, "a variable");
      if (v == 0) {
        open_list_[kind].reset();
        Token extra;
        if (next_on_line(extra)) {
          fail_at(at(extra), "expected the end of the projection line after 0, found {}",
                  quote_found(extra.text()));
        }
        return;
      }
      project(v, kind, t);
    }
    open_list_[kind] = last_;
  }

  void project(std::int64_t v, ProjectionKind kind, const Token& t) {
    const std::int64_t top = header_seen_ ? cnf_.n_vars : kMaxCnfVariables;
    if (v < 1 || v > top) {
      if (header_seen_) fail_at(at(t), "projected variable {} out of range [1, {}]", v, top);
      fail_at(at(t), "projected variable {} out of range [1, {}] (a CNF has at most {} variables)",
              v, top, top);
    }
    const auto index = static_cast<std::size_t>(v);
    if (index >= projected_kinds_.size()) projected_kinds_.resize(index + 1, 0);
    auto& mark = projected_kinds_[index];
    if (mark & kind) {
      fail_at(at(t), "projected variable {} is listed twice in \"{}\" lines", v, kind_name(kind));
    }
    if (mark == 0) cnf_.projection.push_back(static_cast<Var>(v));
    mark = static_cast<std::uint8_t>(mark | kind);
    if (kind == kVp) ++vp_listed_;
    if (!header_seen_ && v > largest_early_) {
      largest_early_ = v;
      largest_early_at_ = t;
    }
  }

  // ---------------------------------------------------------------- the header

  void header(const Token& p) {
    if (header_seen_) fail_at(at(p), "a second \"p\" header");
    std::vector<Token> toks{p};
    Token t;
    while (toks.size() <= 5 && next_on_line(t)) toks.push_back(t);
    const std::string_view kind = toks.size() > 1 ? toks[1].text() : std::string_view();
    if (kind == "wcnf" || kind == "wpcnf") {
      fail_at(at(p),
              "expected \"p cnf <variables> <clauses>\", found {}: a weighted formula (weighted "
              "MaxSAT, or weighted model counting) is a different problem; assay counts the "
              "models of an unweighted CNF",
              quote_found(joined(toks)));
    }
    const bool projected = kind == "pcnf";
    if (toks.size() != (projected ? 5u : 4u) || (kind != "cnf" && !projected)) {
      fail_at(at(p), "expected \"p cnf <variables> <clauses>\", found {}",
              quote_found(joined(toks)));
    }
    set_sizes(toks, projected);
  }

  static std::string joined(const std::vector<Token>& toks) {
    std::string found;
    for (const Token& t : toks) {
      if (!found.empty()) found += ' ';  // separate appends: GCC 12 warns falsely (-Wrestrict)
      found += t.text();
    }
    return found;
  }

  void set_sizes(const std::vector<Token>& toks, bool projected) {
    const std::int64_t v = integer(toks[2], "the number of variables");
    const std::int64_t c = integer(toks[3], "the number of clauses");
    // Checked before the per-variable tables (here and in the counters) are sized by it.
    if (v < 0 || v > kMaxCnfVariables) {
      fail_at(at(toks[2]), "the number of variables must lie in [0, {}], found {}",
              kMaxCnfVariables, v);
    }
    if (c < 0) fail_at(at(toks[3]), "the number of clauses must be >= 0, found {}", c);
    if (projected) {
      declared_projected_ = integer(toks[4], "the number of projected variables");
      if (*declared_projected_ < 0 || *declared_projected_ > v) {
        fail_at(at(toks[4]), "the number of projected variables must lie in [0, {}], found {}", v,
                *declared_projected_);
      }
    }
    if (largest_early_ > v) {
      fail_at(at(largest_early_at_),
              "projected variable {} out of range [1, {}] (the header declares {} variables)",
              largest_early_, v, v);
    }
    header_seen_ = true;
    header_at_ = toks[0];
    cnf_.n_vars = static_cast<std::int32_t>(v);
    declared_clauses_ = c;
    seen_.assign(static_cast<std::size_t>(v) + 1, 0);
  }

  std::int64_t integer(const Token& t, const char* what) const {
    const auto value = to_integer(t.text());
    if (!value) fail_at(at(t), "expected {} (an integer), found {}", what, quote_found(t.text()));
    return *value;
  }

  // ---------------------------------------------------------------- clauses

  // Literals go straight into cnf_.literals; a repeated literal is dropped at once and a
  // clause with v and -v stops being stored, so one clause never holds more than n_vars
  // literals, whatever the file repeats.
  void literal(const Token& t) {
    const std::int64_t lit = integer(t, "a literal");
    if (lit == 0) return end_clause();
    const std::int64_t v = lit < 0 ? -lit : lit;
    if (v > cnf_.n_vars) {
      fail_at(at(t), "variable {} out of range [1, {}] (the header declares {} variables)", v,
              cnf_.n_vars, cnf_.n_vars);
    }
    if (!open_) clause_at_ = t;
    open_ = t;
    if (++clause_raw_ > raw_cap()) {
      fail_at(at(clause_at_),
              "the clause begun here has more than {} literals over {} variables: it repeats "
              "literals without end (a damaged file?)",
              raw_cap(), cnf_.n_vars);
    }
    if (tautology_) return;
    auto& mark = seen_[static_cast<std::size_t>(v)];
    const std::int8_t sign = lit > 0 ? 1 : -1;
    if (mark == sign) {
      ++notes_->duplicate_literals;
      return;
    }
    if (mark == -sign) {
      tautology_ = true;
      return;
    }
    mark = sign;
    if (cnf_.literals.size() == std::numeric_limits<std::uint32_t>::max()) {
      fail_at(at(t), "more than {} literals in all: too large a formula to count",
              cnf_.literals.size());
    }
    grow(cnf_.literals, at(clause_at_), "the clauses", "literals");
    cnf_.literals.push_back(static_cast<Var>(lit));
  }

  // A clause or XOR line may repeat literals (they are dropped), but not this often: a gzip
  // bomb of "1 1 1 ..." would otherwise keep the reader busy for minutes.
  std::uint64_t raw_cap() const { return 4 * static_cast<std::uint64_t>(cnf_.n_vars) + (1u << 20); }

  // Doubles v's capacity when it is full, once the memory is known to be there.
  template <class T>
  void grow(std::vector<T>& v, const Location& where, std::string_view what,
            std::string_view items) {
    if (v.size() < v.capacity()) return;
    const std::size_t want = std::max<std::size_t>(1024, v.capacity() * 2);
    budget_.need(want * sizeof(T), where,
                 fmt::format("{} ({} {} read so far)", what, v.size(), items));
    v.reserve(want);
  }

  void end_clause() {
    ++clauses_read_;
    const std::size_t begin = cnf_.starts.back();
    for (std::size_t i = begin; i < cnf_.literals.size(); ++i) {
      seen_[static_cast<std::size_t>(std::abs(cnf_.literals[i]))] = 0;
    }
    if (tautology_) {
      ++notes_->tautologies;
      cnf_.literals.resize(begin);
    } else {
      grow(cnf_.starts, at(open_ ? *open_ : *last_), "the clause table", "clauses");
      cnf_.starts.push_back(static_cast<std::uint32_t>(cnf_.literals.size()));
    }
    tautology_ = false;
    clause_raw_ = 0;
    open_.reset();
  }

  // ---------------------------------------------------------------- XOR lines

  void xor_line(const Token& first) {
    if (open_) {
      fail_at(at(first), "expected 0 to end the clause begun at {}:{}, found an XOR line",
              clause_at_.line, clause_at_.column);
    }
    Token t = first;
    bool have = first.text() != "x";
    if (have) {  // "x1": the first literal is glued to the x
      std::copy(t.bytes.begin() + 1, t.bytes.begin() + static_cast<std::ptrdiff_t>(t.size),
                t.bytes.begin());
      t.size -= 1;
      t.column += 1;
    }
    XorConstraint x;
    std::vector<Var> touched;  // distinct variables: bounded by n_vars, whatever the line repeats
    if (xor_parity_.size() != seen_.size()) xor_parity_.assign(seen_.size(), 0);
    std::uint64_t raw = 0;
    for (; have || next_on_line(t); have = false) {
      if (++raw > raw_cap()) {
        fail_at(at(first),
                "the XOR line has more than {} literals over {} variables: it repeats literals "
                "without end (a damaged file?)",
                raw_cap(), cnf_.n_vars);
      }
      const std::int64_t lit = integer(t, "a literal");
      if (lit == 0) {
        Token extra;
        if (next_on_line(extra)) {
          fail_at(at(extra), "expected the end of the XOR line after 0, found {}",
                  quote_found(extra.text()));
        }
        return store_xor(std::move(x), touched, first);
      }
      const std::int64_t v = lit < 0 ? -lit : lit;
      if (v > cnf_.n_vars) fail_at(at(t), "variable {} out of range [1, {}]", v, cnf_.n_vars);
      if (lit < 0) x.rhs = !x.rhs;
      auto& parity = xor_parity_[static_cast<std::size_t>(v)];  // 0 unseen, 1 odd, 2 even
      if (parity == 0) touched.push_back(static_cast<Var>(v));
      parity = parity == 1 ? 2 : 1;
    }
    fail_at(at(*last_), "expected 0 at the end of the XOR line, found end of line");
  }

  // x ^ x = 0: a variable listed an even number of times cancels out.
  void store_xor(XorConstraint x, const std::vector<Var>& touched, const Token& first) {
    for (const Var v : touched) {
      auto& parity = xor_parity_[static_cast<std::size_t>(v)];
      if (parity == 1) x.vars.push_back(v);
      parity = 0;
    }
    std::sort(x.vars.begin(), x.vars.end());
    ++xors_read_;
    if (x.vars.empty() && !x.rhs) return;  // 0 = 0: holds everywhere, like a tautology
    budget_.need(x.vars.size() * sizeof(Var) + sizeof(XorConstraint), at(first),
                 fmt::format("the XOR lines read so far ({} lines)", cnf_.xors.size()));
    cnf_.xors.push_back(std::move(x));
  }

  // ---------------------------------------------------------------- the end

  void finish() {
    if (!header_seen_) {
      if (last_) {
        fail_at(at(*last_), "expected a \"p cnf <variables> <clauses>\" header, found end of file");
      }
      fail_at(Location{file_, 0, 0},
              "empty file: expected a \"p cnf <variables> <clauses>\" header");
    }
    if (open_) fail_at(at(*open_), "expected 0 at the end of the clause, found end of file");
    for (const ProjectionKind kind : {kInd, kShow, kVp}) {
      if (const auto& open = open_list_[kind]) {
        fail_at(at(*open), "expected 0 to end the \"{}\" projection list, found end of file",
                kind_name(kind));
      }
    }
    check_counts();
    check_declared_type();
    std::sort(cnf_.projection.begin(), cnf_.projection.end());
  }

  void check_counts() const {
    const auto declared = declared_clauses_;
    if (clauses_read_ != declared && clauses_read_ + xors_read_ != declared) {
      fail_at(at(header_at_), "the header declares {} clauses, found {}{}", declared, clauses_read_,
              xors_read_ ? fmt::format(" and {} XOR lines", xors_read_) : "");
    }
    if (declared_projected_ && *declared_projected_ != vp_listed_) {
      fail_at(at(header_at_),
              "the header declares {} projected variables, the \"vp\" lines list {}",
              *declared_projected_, vp_listed_);
    }
  }

  void check_declared_type() const {
    if (declared_ == Declared::mc && first_projection_) {
      fail_at(at(*first_projection_),
              "a projection line in a file whose \"c t mc\" line ({}:{}) declares a count of "
              "every variable; \"c t pmc\" declares a projected count",
              declared_at_.line, declared_at_.column);
    }
    if (declared_ == Declared::pmc && !cnf_.has_projection) {
      fail_at(at(declared_at_),
              "\"c t pmc\" declares a projected count, but the file has no projection line "
              "(\"c p show <variables> 0\")");
    }
  }

  Scanner scan_;
  std::string file_;
  DimacsNotes own_notes_;
  DimacsNotes* notes_;
  MemoryBudget budget_;
  Cnf cnf_;
  bool done_ = false;
  std::optional<Pos> last_;  // the latest token read
  // the header
  bool header_seen_ = false;
  Pos header_at_;
  std::int64_t declared_clauses_ = 0;
  std::optional<std::int64_t> declared_projected_;  // p pcnf's third number
  Declared declared_ = Declared::none;
  Pos declared_at_;
  // clauses and XORs
  std::int64_t clauses_read_ = 0;
  std::int64_t xors_read_ = 0;
  std::optional<Pos> open_;               // the latest literal of an unfinished clause
  Pos clause_at_;                         // the first literal of the clause being read
  bool tautology_ = false;                // the clause being read holds some v and -v
  std::uint64_t clause_raw_ = 0;          // literals read in it, repeats included
  std::vector<std::int8_t> seen_;         // sign of each variable in the clause being read
  std::vector<std::uint8_t> xor_parity_;  // per variable, in the XOR line being read
  // projections
  std::vector<std::uint8_t> projected_kinds_;          // ProjectionKind bits per variable
  std::array<std::optional<Pos>, kVp + 1> open_list_;  // a list of that kind not ended by 0
  std::optional<Pos> first_projection_;
  std::int64_t vp_listed_ = 0;
  std::int64_t largest_early_ = 0;  // the largest variable projected before the header
  Pos largest_early_at_;
};

std::vector<Var> projection_of(ByteSource& source, std::int32_t n_vars, const std::string& file) {
  Scanner scan(source, /*commas_separate=*/true);
  std::vector<Var> out;
  std::vector<bool> seen(static_cast<std::size_t>(n_vars) + 1, false);
  bool ended = false;
  Token t;
  while (scan.next_line(t)) {
    const Location where{file, t.line, t.column};
    const auto v = to_integer(t.text());
    if (!v) fail_at(where, "expected a variable (an integer), found {}", quote_found(t.text()));
    if (ended) {
      fail_at(where, "expected the end of the file after 0, found {}", quote_found(t.text()));
    }
    if (*v == 0) {
      ended = true;
      continue;
    }
    if (*v < 0 || *v > n_vars) {
      fail_at(where, "projected variable {} out of range [1, {}]", *v, n_vars);
    }
    if (seen[static_cast<std::size_t>(*v)]) {
      fail_at(where, "projected variable {} is listed twice", *v);
    }
    seen[static_cast<std::size_t>(*v)] = true;
    out.push_back(static_cast<Var>(*v));
  }
  if (out.empty()) fail_at(Location{file, 0, 0}, "the projection file lists no variable");
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Cnf parse_dimacs(std::string_view text, const std::string& file, DimacsNotes* notes) {
  TextSource source(text);
  return DimacsReader(source, file, notes).run();
}

Cnf read_dimacs_file(const std::string& path, DimacsNotes* notes) {
  note_input(path, "a DIMACS CNF file");
  FileSource source(path);
  return DimacsReader(source, path, notes).run();
}

std::vector<Var> parse_projection(std::string_view text, std::int32_t n_vars,
                                  const std::string& file) {
  TextSource source(text);
  return projection_of(source, n_vars, file);
}

void read_projection_file(Cnf& f, const std::string& path) {
  note_input(path, "a projection file");
  FileSource source(path);
  f.projection = projection_of(source, f.n_vars, path);
  f.has_projection = true;
}

}  // namespace assay::count

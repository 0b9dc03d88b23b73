#include "assay/count/cnf.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/output_file.hpp"

namespace assay::count {

void Cnf::add_clause(std::span<const Var> clause) {
  literals.insert(literals.end(), clause.begin(), clause.end());
  starts.push_back(static_cast<std::uint32_t>(literals.size()));
}

std::vector<Var> Cnf::projected() const {
  if (has_projection) return projection;
  std::vector<Var> all(static_cast<std::size_t>(n_vars));
  for (Var v = 1; v <= n_vars; ++v) all[static_cast<std::size_t>(v - 1)] = v;
  return all;
}

void Cnf::set_projection(std::vector<Var> vars) {
  std::sort(vars.begin(), vars.end());
  vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
  projection = std::move(vars);
  has_projection = true;
}

namespace {

// ------------------------------------------------------------------ reading

struct Token {
  std::string_view text;
  std::int64_t line = 0;
  std::int64_t column = 0;
};

// Splits one line into white-space separated tokens with their 1-based columns.
std::vector<Token> tokens_of(std::string_view line, std::int64_t line_no) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i == line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    out.push_back({line.substr(start, i - start), line_no, static_cast<std::int64_t>(start + 1)});
  }
  return out;
}

class DimacsReader {
 public:
  DimacsReader(std::string_view text, const std::string& file, DimacsNotes* notes)
      : text_(text), file_(file), notes_(notes ? notes : &own_notes_) {}

  Cnf run() {
    std::size_t pos = 0;
    std::int64_t line_no = 0;
    while (pos <= text_.size() && !done_) {
      const std::size_t end = std::min(text_.find('\n', pos), text_.size());
      ++line_no;
      line(text_.substr(pos, end - pos), line_no);
      if (end == text_.size()) break;
      pos = end + 1;
    }
    finish();
    return std::move(cnf_);
  }

 private:
  Location at(const Token& t) const { return {file_, t.line, t.column}; }

  void line(std::string_view text, std::int64_t line_no) {
    const auto toks = tokens_of(text, line_no);
    if (toks.empty()) return;
    last_ = toks.back();
    const std::string_view first = toks[0].text;
    if (first[0] == 'c') {
      comment(toks);
      return;
    }
    if (first == "%") {  // SATLIB files end with "%" and a stray "0"
      done_ = true;
      return;
    }
    if (first == "p") {
      header(toks);
      return;
    }
    if (!header_seen_) {
      fail_at(at(toks[0]), "expected a \"p cnf <variables> <clauses>\" header, found {}",
              quote_found(first));
    }
    if (first[0] == 'x') {
      xor_line(toks);
      return;
    }
    for (const Token& t : toks) literal(t);
  }

  void comment(const std::vector<Token>& toks) {
    // "c ind v.. 0" (ApproxMC) and "c p show v.. 0" (GANAK, d4) declare the projection.
    // A file may carry both kinds with the same list (assay writes both); a variable repeated
    // within one kind is an error.
    std::size_t from = 0;
    std::uint8_t kind = 0;
    if (toks.size() >= 2 && toks[0].text == "c" && toks[1].text == "ind") {
      from = 2;
      kind = 1;
    } else if (toks.size() >= 3 && toks[0].text == "c" && toks[1].text == "p" &&
               toks[2].text == "show") {
      from = 3;
      kind = 2;
    } else {
      return;
    }
    if (!header_seen_) {
      fail_at(at(toks[0]), "a projection line must come after the \"p cnf\" header");
    }
    cnf_.has_projection = true;
    for (std::size_t i = from; i < toks.size(); ++i) {
      const std::int64_t v = integer(toks[i], "a variable");
      if (v == 0) {
        if (i + 1 < toks.size()) {
          fail_at(at(toks[i + 1]), "expected the end of the projection line after 0, found {}",
                  quote_found(toks[i + 1].text));
        }
        return;
      }
      if (v < 0 || v > cnf_.n_vars) {
        fail_at(at(toks[i]), "projected variable {} out of range [1, {}]", v, cnf_.n_vars);
      }
      auto& mark = seen_in_projection_[static_cast<std::size_t>(v)];
      if (mark & kind) fail_at(at(toks[i]), "projected variable {} is listed twice", v);
      if (mark == 0) cnf_.projection.push_back(static_cast<Var>(v));
      mark = static_cast<std::uint8_t>(mark | kind);
    }
    fail_at(at(toks.back()), "expected 0 at the end of the projection line, found end of line");
  }

  void header(const std::vector<Token>& toks) {
    if (header_seen_) fail_at(at(toks[0]), "a second \"p\" header");
    if (toks.size() != 4 || toks[1].text != "cnf") {
      std::string found;
      for (const Token& t : toks) {
        if (!found.empty()) found += ' ';  // separate appends: GCC 12 warns falsely (-Wrestrict)
        found += t.text;
      }
      fail_at(at(toks[0]), "expected \"p cnf <variables> <clauses>\", found {}",
              quote_found(found));
    }
    const std::int64_t v = integer(toks[2], "the number of variables");
    const std::int64_t c = integer(toks[3], "the number of clauses");
    // Checked before the per-variable tables (here and in the counters) are sized by it.
    if (v < 0 || v > kMaxCnfVariables) {
      fail_at(at(toks[2]), "the number of variables must lie in [0, {}], found {}",
              kMaxCnfVariables, v);
    }
    if (c < 0) fail_at(at(toks[3]), "the number of clauses must be >= 0, found {}", c);
    header_seen_ = true;
    header_at_ = toks[0];
    cnf_.n_vars = static_cast<std::int32_t>(v);
    declared_clauses_ = c;
    seen_.assign(static_cast<std::size_t>(v) + 1, 0);
    seen_in_projection_.assign(static_cast<std::size_t>(v) + 1, 0);
  }

  std::int64_t integer(const Token& t, const char* what) const {
    std::int64_t value = 0;
    const char* begin = t.text.data();
    const char* end = begin + t.text.size();
    if (*begin == '+') ++begin;
    const auto r = std::from_chars(begin, end, value);
    if (r.ec != std::errc() || r.ptr != end || begin == end) {
      fail_at(at(t), "expected {} (an integer), found {}", what, quote_found(t.text));
    }
    return value;
  }

  void literal(const Token& t) {
    const std::int64_t lit = integer(t, "a literal");
    if (lit == 0) {
      end_clause();
      return;
    }
    const std::int64_t v = lit < 0 ? -lit : lit;
    if (v > cnf_.n_vars) {
      fail_at(at(t), "variable {} out of range [1, {}] (the header declares {} variables)", v,
              cnf_.n_vars, cnf_.n_vars);
    }
    clause_.push_back(static_cast<Var>(lit));
    open_ = t;
  }

  // Normalises the clause (duplicate literals removed, tautologies dropped) and stores it.
  void end_clause() {
    ++clauses_read_;
    bool tautology = false;
    std::size_t kept = 0;
    for (const Var lit : clause_) {
      auto& mark = seen_[static_cast<std::size_t>(std::abs(lit))];
      const std::int8_t sign = lit > 0 ? 1 : -1;
      if (mark == sign) {
        ++notes_->duplicate_literals;
        continue;
      }
      if (mark == -sign) tautology = true;
      mark = sign;
      clause_[kept++] = lit;
    }
    clause_.resize(kept);
    for (const Var lit : clause_) seen_[static_cast<std::size_t>(std::abs(lit))] = 0;
    if (tautology) {
      ++notes_->tautologies;
    } else {
      cnf_.add_clause(clause_);
    }
    clause_.clear();
    open_.reset();
  }

  void xor_line(const std::vector<Token>& toks) {
    if (open_) {
      fail_at(at(toks[0]), "expected 0 to end the clause begun at {}:{}, found an XOR line",
              open_->line, open_->column);
    }
    std::vector<Token> rest = toks;
    if (rest[0].text == "x") {
      rest.erase(rest.begin());
    } else {
      rest[0].text.remove_prefix(1);
      rest[0].column += 1;
    }
    XorConstraint x;
    bool ended = false;
    for (std::size_t i = 0; i < rest.size(); ++i) {
      const std::int64_t lit = integer(rest[i], "a literal");
      if (lit == 0) {
        if (i + 1 < rest.size()) {
          fail_at(at(rest[i + 1]), "expected the end of the XOR line after 0, found {}",
                  quote_found(rest[i + 1].text));
        }
        ended = true;
        break;
      }
      const std::int64_t v = lit < 0 ? -lit : lit;
      if (v > cnf_.n_vars) {
        fail_at(at(rest[i]), "variable {} out of range [1, {}]", v, cnf_.n_vars);
      }
      if (lit < 0) x.rhs = !x.rhs;
      x.vars.push_back(static_cast<Var>(v));
    }
    if (!ended) {
      fail_at(at(toks.back()), "expected 0 at the end of the XOR line, found end of line");
    }
    // x ^ x = 0: a variable listed twice cancels out.
    std::sort(x.vars.begin(), x.vars.end());
    std::vector<Var> kept;
    for (std::size_t i = 0; i < x.vars.size(); ++i) {
      if (i + 1 < x.vars.size() && x.vars[i] == x.vars[i + 1]) {
        ++i;
        continue;
      }
      kept.push_back(x.vars[i]);
    }
    x.vars = std::move(kept);
    ++xors_read_;
    cnf_.xors.push_back(std::move(x));
  }

  void finish() {
    if (!header_seen_) {
      if (last_) {
        fail_at(at(*last_), "expected a \"p cnf <variables> <clauses>\" header, found end of file");
      }
      fail_at(Location{file_, 0, 0},
              "empty file: expected a \"p cnf <variables> <clauses>\" header");
    }
    if (open_) {
      fail_at(at(*open_), "expected 0 at the end of the clause, found end of file");
    }
    const auto declared = declared_clauses_;
    if (clauses_read_ != declared && clauses_read_ + xors_read_ != declared) {
      fail_at(at(header_at_), "the header declares {} clauses, found {}{}", declared, clauses_read_,
              xors_read_ ? fmt::format(" and {} XOR lines", xors_read_) : "");
    }
    std::sort(cnf_.projection.begin(), cnf_.projection.end());
  }

  std::string_view text_;
  std::string file_;
  DimacsNotes own_notes_;
  DimacsNotes* notes_;
  Cnf cnf_;
  bool header_seen_ = false;
  bool done_ = false;
  Token header_at_;
  std::int64_t declared_clauses_ = 0;
  std::int64_t clauses_read_ = 0;
  std::int64_t xors_read_ = 0;
  std::vector<Var> clause_;
  std::optional<Token> open_;  // the latest literal of an unfinished clause
  std::optional<Token> last_;
  std::vector<std::int8_t> seen_;
  std::vector<std::uint8_t> seen_in_projection_;  // bit 1: "c ind", bit 2: "c p show"
};

struct GzCloser {
  void operator()(gzFile_s* f) const {
    if (f) gzclose(f);
  }
};

// The whole file, inflated when it is gzip-compressed (zlib reads plain files unchanged).
std::string read_maybe_gzip(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail("{}: is a folder, expected a file", path);
  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) fail("cannot open {}: {}", path, std::strerror(errno ? errno : ENOENT));
  gzbuffer(file.get(), 1u << 18);
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    const int got = gzread(file.get(), buffer, sizeof buffer);
    if (got < 0) {
      int code = 0;
      const char* message = gzerror(file.get(), &code);
      fail("{}: corrupt compressed data (zlib: {})", path, message ? message : "unknown");
    }
    if (got == 0) break;
    out.append(buffer, static_cast<std::size_t>(got));
  }
  int code = 0;
  gzerror(file.get(), &code);
  if (code == Z_BUF_ERROR) fail("{}: truncated: the compressed data end early", path);
  return out;
}

std::string gzip(std::string_view bytes, const std::string& path) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    fail("cannot write {}: zlib could not start", path);
  }
  std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int r = deflate(&z, Z_FINISH);
  const std::size_t used = out.size() - z.avail_out;
  deflateEnd(&z);
  if (r != Z_STREAM_END) fail("cannot write {}: compression failed", path);
  out.resize(used);
  return out;
}

}  // namespace

Cnf parse_dimacs(std::string_view text, const std::string& file, DimacsNotes* notes) {
  return DimacsReader(text, file, notes).run();
}

Cnf read_dimacs_file(const std::string& path, DimacsNotes* notes) {
  note_input(path, "a DIMACS CNF file");
  const std::string text = read_maybe_gzip(path);
  return parse_dimacs(text, path, notes);
}

std::vector<Var> parse_projection(std::string_view text, std::int32_t n_vars,
                                  const std::string& file) {
  std::vector<Var> out;
  std::vector<bool> seen(static_cast<std::size_t>(n_vars) + 1, false);
  std::int64_t line = 1, column = 1;
  std::size_t i = 0;
  bool ended = false;
  while (i < text.size()) {
    const char ch = text[i];
    if (ch == '\n') {
      ++line;
      column = 1;
      ++i;
      continue;
    }
    if (ch == ' ' || ch == '\t' || ch == '\r' || ch == ',') {
      ++column;
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && text[i] != ',' && text[i] != ' ' && text[i] != '\t' &&
           text[i] != '\r' && text[i] != '\n') {
      ++i;
    }
    const std::string_view tok = text.substr(start, i - start);
    const Location where{file, line, column};
    column += static_cast<std::int64_t>(tok.size());
    std::int64_t v = 0;
    const auto r = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (r.ec != std::errc() || r.ptr != tok.data() + tok.size()) {
      fail_at(where, "expected a variable (an integer), found {}", quote_found(tok));
    }
    if (ended) fail_at(where, "expected the end of the file after 0, found {}", quote_found(tok));
    if (v == 0) {
      ended = true;
      continue;
    }
    if (v < 0 || v > n_vars) {
      fail_at(where, "projected variable {} out of range [1, {}]", v, n_vars);
    }
    if (seen[static_cast<std::size_t>(v)]) {
      fail_at(where, "projected variable {} is listed twice", v);
    }
    seen[static_cast<std::size_t>(v)] = true;
    out.push_back(static_cast<Var>(v));
  }
  if (out.empty()) fail_at(Location{file, 0, 0}, "the projection file lists no variable");
  std::sort(out.begin(), out.end());
  return out;
}

void read_projection_file(Cnf& f, const std::string& path) {
  note_input(path, "a projection file");
  const std::string text = read_maybe_gzip(path);
  f.projection = parse_projection(text, f.n_vars, path);
  f.has_projection = true;
}

std::string write_dimacs(const Cnf& f, bool xor_lines) {
  if (!xor_lines && !f.xors.empty()) {
    fail("the formula has {} XOR constraints; expand them before writing plain DIMACS",
         f.xors.size());
  }
  std::string out;
  out.reserve(f.literals.size() * 6 + f.n_clauses() * 2 + 64);
  for (const auto& c : f.comments) out += "c " + c + "\n";
  const std::size_t n = f.n_clauses() + (xor_lines ? f.xors.size() : 0);
  out += fmt::format("p cnf {} {}\n", f.n_vars, n);
  char buf[16];
  for (std::size_t i = 0; i < f.n_clauses(); ++i) {
    for (const Var lit : f.clause(i)) {
      const auto r = std::to_chars(buf, buf + sizeof buf, lit);
      out.append(buf, r.ptr);
      out += ' ';
    }
    out += "0\n";
  }
  if (xor_lines) {
    for (const auto& x : f.xors) {
      out += 'x';
      for (std::size_t i = 0; i < x.vars.size(); ++i) {
        // The right-hand side is carried by the sign of the first variable: "x-1 2 0" is
        // not(x1) ^ x2 = 1, i.e. x1 ^ x2 = 0.
        const Var lit = (i == 0 && !x.rhs) ? -x.vars[i] : x.vars[i];
        out += fmt::format("{} ", lit);
      }
      out += "0\n";
    }
  }
  if (f.has_projection) {
    std::string list;
    for (const Var v : f.projection) list += fmt::format("{} ", v);
    out += "c p show " + list + "0\n";
    out += "c ind " + list + "0\n";
  }
  return out;
}

void write_dimacs_file(const Cnf& f, const std::string& path, bool xor_lines) {
  const std::string text = write_dimacs(f, xor_lines);
  const bool compress = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  write_file_atomic(path, compress ? gzip(text, path) : text);
}

void expand_xors(Cnf& f) {
  if (f.xors.empty()) return;
  if (!f.has_projection) f.set_projection(f.projected());
  for (const auto& x : f.xors) {
    if (x.vars.empty()) {
      if (x.rhs) f.add_clause(std::span<const Var>());  // 0 = 1: unsatisfiable
      continue;
    }
    // acc = vars[0] ^ ... ^ vars[i], one fresh variable per step.
    Var acc = x.vars[0];
    for (std::size_t i = 1; i < x.vars.size(); ++i) {
      const Var b = x.vars[i];
      const Var t = f.new_var();
      f.add_clause({-t, acc, b});
      f.add_clause({-t, -acc, -b});
      f.add_clause({t, -acc, b});
      f.add_clause({t, acc, -b});
      acc = t;
    }
    f.add_clause({x.rhs ? acc : -acc});
  }
  f.xors.clear();
}

}  // namespace assay::count

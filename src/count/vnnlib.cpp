// VNN-LIB: S-expressions -> DNF of linear atoms -> boxes and unsafe conditions.
#include "assay/count/vnnlib.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "assay/core/error.hpp"
#include "input_file.hpp"

namespace assay::count {

namespace {

constexpr std::size_t kMaxDisjuncts = 100000;
// Bounds on the comparisons read (atoms kept sparse) and on all disjuncts' comparisons together
// (each becomes one index, or one dense LinearAtom in the result), so that a small file cannot
// demand gigabytes.
constexpr std::size_t kMaxAtoms = 10000000;
constexpr std::size_t kMaxAtomRefs = 20000000;
constexpr int kMaxNesting = 1000;

struct Sexp {
  bool atom = false;
  std::string text;
  std::vector<Sexp> kids;
  Location where;
};

class Lexer {
 public:
  Lexer(const std::string& text, const std::string& file) : s_(text), file_(file) {}

  std::vector<Sexp> all() {
    std::vector<Sexp> out;
    if (s_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;  // a UTF-8 byte order mark
    while (true) {
      skip();
      if (pos_ >= s_.size()) return out;
      out.push_back(one());
    }
  }

 private:
  Location here() const { return {file_, line_, col_}; }

  void advance() {
    if (s_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  void skip() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ';') {
        while (pos_ < s_.size() && s_[pos_] != '\n') advance();
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        advance();
      } else {
        return;
      }
    }
  }

  Sexp one() {
    skip();
    Sexp e;
    e.where = here();
    if (pos_ >= s_.size()) fail_at(here(), "expected an expression, found end of file");
    if (s_[pos_] == ')') fail_at(here(), "expected an expression, found ')'");
    if (s_[pos_] == '(') {
      // Bounded, so that this and every recursive pass over the lists stay within the stack.
      if (++depth_ > kMaxNesting) {
        fail_at(here(), "expected lists nested at most {} levels deep, found deeper nesting",
                kMaxNesting);
      }
      advance();
      while (true) {
        skip();
        if (pos_ >= s_.size()) {
          fail_at(here(), "expected ')' to close the '(' at {}:{}, found end of file", e.where.line,
                  e.where.column);
        }
        if (s_[pos_] == ')') {
          advance();
          --depth_;
          return e;
        }
        e.kids.push_back(one());
      }
    }
    e.atom = true;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '(' || c == ')' || c == ';' || std::isspace(static_cast<unsigned char>(c))) break;
      e.text += c;
      advance();
    }
    return e;
  }

  const std::string& s_;
  std::string file_;
  std::size_t pos_ = 0;
  std::int64_t line_ = 1, col_ = 1;
  int depth_ = 0;
};

std::string describe(const Sexp& e) {
  if (e.atom) return quote_found(e.text);
  if (e.kids.empty()) return "()";
  return e.kids[0].atom ? "(" + e.kids[0].text + " ...)" : "a list";
}

// The S-expression as written (one line, cut at about 60 characters), for messages.
std::string sexp_text(const Sexp& e) {
  if (e.atom) return e.text;
  std::string out = "(";
  for (std::size_t i = 0; i < e.kids.size() && out.size() < 60; ++i) {
    if (i > 0) out += ' ';
    out += sexp_text(e.kids[i]);
  }
  if (out.size() > 60) out = out.substr(0, 57) + "...";
  return out + ")";
}

// Coefficients of X (or Y), stored sparsely: the listed entries (ascending index) and one value
// shared by every unlisted index. That shared value is always +0 or -0; it is kept (rather than
// assumed +0) so that dense() is bit-identical to doing the same arithmetic on dense vectors.
// Dense vectors made every atom cost O(inputs), and copying them across disjuncts O(inputs^2).
struct Coeffs {
  std::vector<std::pair<std::size_t, double>> at;
  double rest = 0.0;

  static Coeffs unit(std::size_t i) { return Coeffs{{{i, 1.0}}, 0.0}; }
  bool zero() const {
    return std::all_of(at.begin(), at.end(), [](const auto& e) { return e.second == 0; });
  }
  void scale(double k) {
    for (auto& e : at) e.second *= k;
    rest *= k;
  }
  // *this += sign * b, merging the two index lists.
  void add(const Coeffs& b, double sign) {
    std::vector<std::pair<std::size_t, double>> out;
    out.reserve(at.size() + b.at.size());
    std::size_t i = 0, j = 0;
    while (i < at.size() || j < b.at.size()) {
      if (j == b.at.size() || (i < at.size() && at[i].first < b.at[j].first)) {
        out.emplace_back(at[i].first, at[i].second + sign * b.rest);
        ++i;
      } else if (i == at.size() || b.at[j].first < at[i].first) {
        out.emplace_back(b.at[j].first, rest + sign * b.at[j].second);
        ++j;
      } else {
        out.emplace_back(at[i].first, at[i].second + sign * b.at[j].second);
        ++i, ++j;
      }
    }
    at = std::move(out);
    rest += sign * b.rest;
  }
  std::vector<double> dense(std::size_t n) const {
    std::vector<double> v(n, rest);
    for (const auto& [i, value] : at) v[i] = value;
    return v;
  }
};

// A linear term: coefficients of X and Y and a constant.
struct Term {
  Coeffs x, y;
  double c = 0.0;
  bool constant() const { return x.zero() && y.zero(); }
};

// sum y Y + sum x X + constant <= 0 (strict: < 0), sparse until it lands in a VnnRegion.
struct Atom {
  Term t;
  bool strict = false;
};

// Conjunctions hold indices into Elaborator::atoms_, so that copying one is cheap.
using Conj = std::vector<std::uint32_t>;
using Dnf = std::vector<Conj>;

class Elaborator {
 public:
  explicit Elaborator(std::string file) : file_(std::move(file)) {}

  VnnProperty run(const std::vector<Sexp>& top) {
    for (const auto& e : top) declare(e);
    check_declarations(top);
    Dnf all{Conj{}};
    for (const auto& e : top) {
      if (head(e) != "assert") continue;
      if (e.kids.size() != 2)
        fail_at(e.where, "expected (assert FORMULA), found {} operands", e.kids.size() - 1);
      all = conjoin(std::move(all), formula(e.kids[1], true), e.where);
    }
    return regions(all);
  }

 private:
  static std::string head(const Sexp& e) {
    return (!e.atom && !e.kids.empty() && e.kids[0].atom) ? e.kids[0].text : "";
  }

  // SMT-LIB commands that say nothing about the property.
  static bool is_command(const std::string& h) {
    return h == "check-sat" || h == "get-model" || h == "set-logic" || h == "set-info" ||
           h == "set-option" || h == "exit";
  }

  // X_i / Y_j: returns (is_output, index).
  static std::optional<std::pair<bool, std::size_t>> var_name(const std::string& s) {
    if (s.size() < 3 || (s[0] != 'X' && s[0] != 'Y') || s[1] != '_') return std::nullopt;
    std::size_t idx = 0;
    for (std::size_t i = 2; i < s.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
      if (idx > 100000000) return std::nullopt;
      idx = idx * 10 + static_cast<std::size_t>(s[i] - '0');
    }
    return std::make_pair(s[0] == 'Y', idx);
  }

  void declare(const Sexp& e) {
    const std::string h = head(e);
    if (h == "assert" || is_command(h)) return;
    if (h != "declare-const") {
      fail_at(e.where, "expected (declare-const ...) or (assert ...), found {}", describe(e));
    }
    if (e.kids.size() != 3 || !e.kids[1].atom || !e.kids[2].atom) {
      fail_at(e.where, "expected (declare-const NAME SORT)");
    }
    const auto v = var_name(e.kids[1].text);
    if (!v) {
      fail_at(e.kids[1].where, "expected a variable named X_i (input) or Y_j (output), found {}",
              quote_found(e.kids[1].text));
    }
    const std::string& sort = e.kids[2].text;
    if (sort != "Real" && !(sort == "Int" && !v->first)) {
      fail_at(e.kids[2].where, "expected sort Real{}, found {}", v->first ? "" : " or Int",
              quote_found(sort));
    }
    auto& decl = v->first ? outputs_ : inputs_;
    if (decl.count(v->second)) {
      fail_at(e.kids[1].where, "{} is declared twice", e.kids[1].text);
    }
    decl[v->second] = e.where;
    if (!v->first) (sort == "Int" ? n_int_ : n_real_)++;
  }

  void check_declarations(const std::vector<Sexp>& top) {
    auto contiguous = [&](const std::map<std::size_t, Location>& d, char letter) {
      std::size_t i = 0;
      for (const auto& [idx, where] : d) {
        if (idx != i) fail_at(where, "{}_{} is declared but {}_{} is not", letter, idx, letter, i);
        ++i;
      }
    };
    contiguous(inputs_, 'X');
    contiguous(outputs_, 'Y');
    const Location whole{file_, 0, 0};
    if (inputs_.empty()) fail_at(whole, "no input declared (expected (declare-const X_0 Real))");
    if (outputs_.empty()) fail_at(whole, "no output declared (expected (declare-const Y_0 Real))");
    if (n_int_ && n_real_) fail_at(whole, "inputs mix Int and Real; declare them all alike");
    nx_ = inputs_.size();
    ny_ = outputs_.size();
    if (std::none_of(top.begin(), top.end(), [](const Sexp& e) { return head(e) == "assert"; })) {
      fail_at(whole, "no assert (expected the input bounds and the unsafe condition)");
    }
  }

  Term term(const Sexp& e) {
    Term t;
    if (e.atom) {
      if (const auto v = var_name(e.text)) {
        auto& decl = v->first ? outputs_ : inputs_;
        if (!decl.count(v->second)) fail_at(e.where, "{} is not declared", e.text);
        (v->first ? t.y : t.x) = Coeffs::unit(v->second);
        return t;
      }
      t.c = number(e);
      return t;
    }
    const std::string h = head(e);
    if (h == "+" || h == "-") {
      if (e.kids.size() < 2) fail_at(e.where, "expected operands of {}", h);
      Term acc = term(e.kids[1]);
      if (h == "-" && e.kids.size() == 2) return scaled(acc, -1.0);
      for (std::size_t i = 2; i < e.kids.size(); ++i) add(acc, term(e.kids[i]), h == "-" ? -1 : 1);
      return acc;
    }
    if (h == "*") {
      if (e.kids.size() < 3) fail_at(e.where, "expected (* a b ...)");
      Term acc = term(e.kids[1]);
      for (std::size_t i = 2; i < e.kids.size(); ++i) {
        const Term b = term(e.kids[i]);
        if (acc.constant()) {
          acc = scaled(b, acc.c);
        } else if (b.constant()) {
          acc = scaled(acc, b.c);
        } else {
          fail_at(e.where, "expected a linear term, found a product of two variables");
        }
      }
      return acc;
    }
    fail_at(e.where, "expected a number, a variable or (+ - *) of them, found {}", describe(e));
  }

  static Term scaled(Term t, double k) {
    t.x.scale(k);
    t.y.scale(k);
    t.c *= k;
    return t;
  }
  static void add(Term& a, const Term& b, double sign) {
    a.x.add(b.x, sign);
    a.y.add(b.y, sign);
    a.c += sign * b.c;
  }

  static double number(const Sexp& e) {
    const std::string& s = e.text;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    const bool numeric = !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) ||
                                        s[0] == '-' || s[0] == '+' || s[0] == '.');
    if (!numeric || end != s.c_str() + s.size() || !std::isfinite(v)) {
      fail_at(e.where, "expected a number or a variable X_i / Y_j, found {}", quote_found(s));
    }
    return v;
  }

  // A formula in DNF; `positive` = false for formulas under an odd number of `not`s.
  Dnf formula(const Sexp& e, bool positive) {
    const std::string h = head(e);
    if (e.atom) {
      if (e.text == "true" || e.text == "false") {
        return (e.text == "true") == positive ? Dnf{Conj{}} : Dnf{};
      }
      fail_at(e.where, "expected a formula (and, or, not, <=, >=, <, >, =), found {}",
              quote_found(e.text));
    }
    if (h == "not") {
      if (e.kids.size() != 2) fail_at(e.where, "expected (not FORMULA)");
      return formula(e.kids[1], !positive);
    }
    if (h == "and" || h == "or") {
      const bool conj = (h == "and") == positive;
      Dnf acc = conj ? Dnf{Conj{}} : Dnf{};
      for (std::size_t i = 1; i < e.kids.size(); ++i) {
        Dnf f = formula(e.kids[i], positive);
        if (conj) {
          acc = conjoin(std::move(acc), f, e.where);
        } else {
          for (auto& c : f) acc.push_back(std::move(c));
          check_size(acc.size(), e.where);
        }
      }
      return acc;
    }
    if (h == "<=" || h == ">=" || h == "<" || h == ">" || h == "=") return comparison(e, positive);
    fail_at(e.where, "expected a formula (and, or, not, <=, >=, <, >, =), found {}", describe(e));
  }

  Dnf comparison(const Sexp& e, bool positive) {
    const std::string h = head(e);
    if (e.kids.size() != 3) {
      fail_at(e.where, "expected ({} a b) with two operands, found {}", h, e.kids.size() - 1);
    }
    Term d = term(e.kids[1]);
    add(d, term(e.kids[2]), -1.0);  // d = a - b
    if (d.constant()) return constant_comparison(e, h, d.c, positive);
    auto atom = [&](double sign, bool strict) {
      check_atom_count(e.where);
      atoms_.push_back(Atom{scaled(d, sign), strict});
      return static_cast<std::uint32_t>(atoms_.size() - 1);
    };
    // a <= b: d <= 0; a >= b: -d <= 0; a < b: d < 0; a > b: -d < 0; negations flip.
    if (h == "=") {
      if (positive) return {Conj{atom(1, false), atom(-1, false)}};
      return {Conj{atom(1, true)}, Conj{atom(-1, true)}};
    }
    const bool le = h == "<=" || h == "<";
    const bool strict = h == "<" || h == ">";
    if (positive) return {Conj{atom(le ? 1 : -1, strict)}};
    return {Conj{atom(le ? -1 : 1, !strict)}};
  }

  // A comparison of constants is true or false outright; the first false one is remembered so
  // that asserts left without any input box can name it.
  Dnf constant_comparison(const Sexp& e, const std::string& h, double d, bool positive) {
    const bool holds = h == "<="   ? d <= 0
                       : h == ">=" ? d >= 0
                       : h == "<"  ? d < 0
                       : h == ">"  ? d > 0
                                   : d == 0;
    if (holds == positive) return {Conj{}};
    if (!always_false_) always_false_ = std::pair{e.where, sexp_text(e)};
    return {};
  }

  void check_size(std::size_t n, const Location& where) const {
    if (n > kMaxDisjuncts) {
      fail_at(where, "the property expands to more than {} disjuncts", kMaxDisjuncts);
    }
  }

  void check_atom_count(const Location& where) const {
    if (atoms_.size() >= kMaxAtoms) {
      fail_at(where, "the property has more than {} comparisons", kMaxAtoms);
    }
  }

  static std::size_t atom_refs(const Dnf& d) {
    std::size_t n = 0;
    for (const auto& c : d) n += c.size();
    return n;
  }

  // a AND b, each conjunction of a followed by each of b (a's first: the order atoms keep).
  Dnf conjoin(Dnf a, const Dnf& b, const Location& where) const {
    check_size(a.size() * b.size(), where);
    // Bounded, since the result holds every atom of a b.size() times and every atom of b
    // a.size() times (the sizes are at most kMaxDisjuncts, so the products do not overflow).
    if (atom_refs(a) * b.size() + atom_refs(b) * a.size() > kMaxAtomRefs) {
      fail_at(where, "the property expands to more than {} comparisons over all disjuncts",
              kMaxAtomRefs);
    }
    if (b.size() == 1) {  // the common case (an assert of one conjunction): extend in place
      for (auto& ca : a) ca.insert(ca.end(), b[0].begin(), b[0].end());
      return a;
    }
    Dnf out;
    out.reserve(a.size() * b.size());
    for (const auto& ca : a) {
      for (const auto& cb : b) {
        Conj c = ca;
        c.insert(c.end(), cb.begin(), cb.end());
        out.push_back(std::move(c));
      }
    }
    return out;
  }

  // --- disjuncts -> boxes ---------------------------------------------------------------
  struct Split {
    std::vector<double> lo, hi;
    std::vector<LinearAtom> rest;
    bool empty = false;
    std::size_t empty_var = 0;
  };

  Split split(const Conj& c) const {
    Split s;
    const double inf = std::numeric_limits<double>::infinity();
    s.lo.assign(nx_, -inf);
    s.hi.assign(nx_, inf);
    for (const std::uint32_t index : c) {
      const Atom& a = atoms_[index];
      std::size_t nonzero = 0, var = 0;
      double k = 0.0;
      for (const auto& [i, value] : a.t.x.at) {
        if (value != 0) ++nonzero, var = i, k = value;
      }
      if (!a.t.y.zero() || nonzero > 1) {
        s.rest.push_back(LinearAtom{a.t.y.dense(ny_), a.t.x.dense(nx_), a.t.c, a.strict});
        continue;
      }
      if (nonzero == 0) {  // a constant comparison
        if (a.strict ? !(a.t.c < 0) : !(a.t.c <= 0)) s.empty = true;
        continue;
      }
      // k x + c <= 0 (or < 0): a bound on x.
      const double bound = -a.t.c / k;
      const bool strict_int = a.strict && n_int_;
      if (k > 0) {
        const double b = strict_int ? std::ceil(bound) - 1 : bound;
        s.hi[var] = std::min(s.hi[var], n_int_ ? std::floor(b) : b);
      } else {
        const double b = strict_int ? std::floor(bound) + 1 : bound;
        s.lo[var] = std::max(s.lo[var], n_int_ ? std::ceil(b) : b);
      }
    }
    for (std::size_t i = 0; i < nx_ && !s.empty; ++i) {
      if (s.lo[i] > s.hi[i]) {
        s.empty = true;
        s.empty_var = i;
      }
    }
    return s;
  }

  VnnProperty regions(const Dnf& all) const {
    VnnProperty p;
    p.file = file_;
    p.n_inputs = nx_;
    p.n_outputs = ny_;
    p.integer_inputs = n_int_ > 0;
    std::optional<Split> first_empty;
    // Box -> its index in p.regions; keys compare as == does (bounds are never NaN).
    std::map<std::pair<std::vector<double>, std::vector<double>>, std::size_t> index_of;
    for (const auto& c : all) {
      Split s = split(c);
      if (s.empty) {
        if (!first_empty) first_empty = s;
        continue;
      }
      check_bounded(s);
      const auto [it, added] = index_of.try_emplace({s.lo, s.hi}, p.regions.size());
      if (added) p.regions.push_back(VnnRegion{s.lo, s.hi, {}});
      p.regions[it->second].unsafe.push_back(std::move(s.rest));
    }
    if (p.regions.empty()) {
      const Location whole{file_, 0, 0};
      if (first_empty) {
        const std::size_t i = first_empty->empty_var;
        // + 0.0 prints a bound of -0 (from -c / k with c = 0) as 0.
        fail_at(whole, "the input box is empty: X_{} >= {} and X_{} <= {}", i,
                first_empty->lo[i] + 0.0, i, first_empty->hi[i] + 0.0);
      }
      if (always_false_) {
        fail_at(always_false_->first,
                "{} compares constants and is false, so the asserts admit no input box",
                always_false_->second);
      }
      fail_at(whole, "the asserts are unsatisfiable (no input box)");
    }
    check_overlaps(p);
    return p;
  }

  void check_bounded(const Split& s) const {
    for (std::size_t i = 0; i < nx_; ++i) {
      const Location& where = inputs_.at(i);
      if (!std::isfinite(s.lo[i]) || !std::isfinite(s.hi[i])) {
        fail_at(where, "X_{} has no {} bound; the input region must be a bounded box", i,
                std::isfinite(s.lo[i]) ? "upper" : "lower");
      }
    }
  }

  void check_overlaps(const VnnProperty& p) const {
    for (std::size_t a = 0; a < p.regions.size(); ++a) {
      for (std::size_t b = a + 1; b < p.regions.size(); ++b) {
        bool overlap = true;
        for (std::size_t i = 0; i < nx_ && overlap; ++i) {
          const double lo = std::max(p.regions[a].lo[i], p.regions[b].lo[i]);
          const double hi = std::min(p.regions[a].hi[i], p.regions[b].hi[i]);
          overlap = n_int_ ? lo <= hi : lo < hi;
        }
        if (overlap) {
          fail_at(Location{file_, 0, 0},
                  "input boxes {} and {} overlap; assay counts over disjoint boxes", a + 1, b + 1);
        }
      }
    }
  }

  std::string file_;
  std::vector<Atom> atoms_;  // every comparison, once per sign it is used with
  std::optional<std::pair<Location, std::string>> always_false_;
  std::map<std::size_t, Location> inputs_, outputs_;
  std::size_t n_int_ = 0, n_real_ = 0;
  std::size_t nx_ = 0, ny_ = 0;
};

bool atom_holds(const LinearAtom& a, const double* x, const double* y) {
  double s = a.constant;
  for (std::size_t j = 0; j < a.y.size(); ++j) s += a.y[j] * y[j];
  for (std::size_t i = 0; i < a.x.size(); ++i) s += a.x[i] * x[i];
  return a.strict ? s < 0 : s <= 0;
}

}  // namespace

VnnProperty parse_vnnlib(const std::string& text, const std::string& file) {
  Lexer lex(text, file);
  const auto top = lex.all();
  return Elaborator(file).run(top);
}

VnnProperty load_vnnlib(const std::string& path) {
  const std::string text = detail::read_input_file(
      path, "a VNN-LIB file", fmt::format("cannot open VNN-LIB file {}", quote_found(path)));
  return parse_vnnlib(text, path);
}

bool atoms_hold(const std::vector<LinearAtom>& atoms, const double* x, const double* y) {
  for (const auto& a : atoms) {
    if (!atom_holds(a, x, y)) return false;
  }
  return true;
}

bool unsafe_at(const VnnRegion& region, const double* x, const double* y) {
  for (const auto& c : region.unsafe) {
    if (atoms_hold(c, x, y)) return true;
  }
  return false;
}

}  // namespace assay::count

// CNF formulas with a projection, and the DIMACS files that model counters exchange.
//
// Example:
//   Cnf f;
//   const Var a = f.new_var(), b = f.new_var(), c = f.new_var();
//   f.add_clause({a, b});                  // a or b
//   f.add_clause({-a, c});                 // a => c
//   f.projection = {a, b};                 // count assignments of a and b only
//   f.has_projection = true;
//   write_dimacs_file(f, "f.cnf");         // writes "p cnf 3 2", clauses, "c p show 1 2 0"
//   Cnf g = read_dimacs_file("f.cnf");     // plain or gzip; errors are "file:line:col: ..."
//
// Layout: variables are numbered 1..n_vars as in DIMACS; a literal is +v (v true) or -v (v false).
// Clause i is literals[starts[i] .. starts[i+1]) (starts has n_clauses()+1 entries). XOR
// constraints (CryptoMiniSat's `x` lines) are kept apart: vars[0] ^ vars[1] ^ ... == rhs.
// The projection is the set of variables whose assignments are counted ("primary" variables);
// a formula without one counts assignments of every variable (has_projection == false).
// The projected model count of f is #{ assignments of the projection that extend to a model }.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace assay::count {

using Var = std::int32_t;  ///< a DIMACS variable (1-based) or literal (+v / -v)

struct XorConstraint {
  std::vector<Var> vars;  ///< distinct variables, 1-based
  bool rhs = true;        ///< the XOR of the variables equals rhs
};

/// The most variables a CNF may declare: the counters keep per-variable state (about 100-200
/// bytes each), so larger headers (and literals) are refused before anything is sized by them.
inline constexpr std::int32_t kMaxCnfVariables = 10'000'000;

struct Cnf {
  std::int32_t n_vars = 0;
  std::vector<Var> literals;             ///< every clause's literals, one after the other
  std::vector<std::uint32_t> starts{0};  ///< clause i = literals[starts[i], starts[i+1])
  std::vector<XorConstraint> xors;
  std::vector<Var> projection;        ///< sorted, distinct, 1-based
  bool has_projection = false;        ///< false: every variable is projected
  std::vector<std::string> comments;  ///< written as "c ..." lines at the top

  /// A fresh variable (n_vars + 1).
  Var new_var() { return ++n_vars; }
  void add_clause(std::span<const Var> clause);
  void add_clause(std::initializer_list<Var> clause) {
    add_clause(std::span<const Var>(clause.begin(), clause.size()));
  }
  std::size_t n_clauses() const { return starts.size() - 1; }
  std::span<const Var> clause(std::size_t i) const {
    return {literals.data() + starts[i], starts[i + 1] - starts[i]};
  }
  /// The projected variables (1..n_vars when there is no projection).
  std::vector<Var> projected() const;
  /// Sets the projection (sorted and deduplicated; has_projection = true).
  void set_projection(std::vector<Var> vars);
};

/// Problems a reader tolerates, as counters do, but that the user should hear about.
struct DimacsNotes {
  std::size_t duplicate_literals = 0;  ///< removed ("1 1 -2 0" -> "1 -2 0")
  std::size_t tautologies = 0;         ///< clauses holding v and -v: dropped
};

/// Parses DIMACS text: `p cnf V C` (or MCC 2020's `p pcnf V C P` with `vp v.. 0` lines), clauses
/// ending in 0 (several per line, or one spread over lines), comments anywhere, projections as
/// `c ind v.. 0` or `c p show v.. 0` before or after the header (one or several lines; a list
/// without its 0 continues on the next line of the same kind), MCC's `c t mc` / `c t pmc`,
/// CryptoMiniSat's XOR lines `x1 -2 3 0` (a negated literal flips the right-hand side), SATLIB's
/// trailing `%`, CR LF line ends. The text is read in chunks (see read_dimacs_file).
/// Errors name `file:line:col`: a missing or bad header, a variable out of range, a non-integer
/// token, a missing final 0, a clause count other than the header's, a projected variable out of
/// range or listed twice, a projection list left open; weights (`c p weight`, `c t wmc`, `p
/// wcnf`, `w` lines, `c weights`) and QDIMACS quantifiers (different problems); a clause repeating
/// literals more than 4 V + 2^20 times; clause tables that would outgrow the memory the process
/// can allocate (checked before each growth).
Cnf parse_dimacs(std::string_view text, const std::string& file = "<cnf>",
                 DimacsNotes* notes = nullptr);
/// Reads a .cnf file, plain or gzip-compressed (detected by its magic bytes), streaming: the file
/// is never held whole (a gzip bomb of comments costs time, not memory); a progress bar over its
/// bytes goes to the installed sink.
Cnf read_dimacs_file(const std::string& path, DimacsNotes* notes = nullptr);

/// Reads a side file of projected variables, as QuantifyML's artefacts ship them: integers
/// separated by commas and/or white space, an optional final 0. Replaces f.projection.
void read_projection_file(Cnf& f, const std::string& path);
/// Parses the same from text (`file` for messages).
std::vector<Var> parse_projection(std::string_view text, std::int32_t n_vars,
                                  const std::string& file);

/// DIMACS text: comments, `p cnf`, clauses, then XOR lines (only when `xor_lines`; otherwise an
/// XOR must have been expanded first), then `c p show ... 0` and `c ind ... 0` (GANAK and d4
/// read the first, ApproxMC the second).
std::string write_dimacs(const Cnf& f, bool xor_lines = true);
/// Writes write_dimacs(f) to `path` (".gz" suffix: gzip-compressed), atomically.
void write_dimacs_file(const Cnf& f, const std::string& path, bool xor_lines = true);

/// Replaces every XOR constraint by clauses (a chain of 3-variable XORs through fresh,
/// unprojected variables), so that counters without native XORs count the same. A formula
/// without a projection first gets one (its variables before the expansion).
void expand_xors(Cnf& f);

}  // namespace assay::count

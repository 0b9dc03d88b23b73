// VNN-LIB properties (the format of VNN-COMP, an SMT-LIB subset): input bounds and the UNSAFE
// output condition of a network, read into boxes and linear atoms.
//
//   (declare-const X_0 Real)  ...  (declare-const Y_4 Real)
//   (assert (<= X_0 0.679857769))  (assert (>= X_0 0.6))  ...      ; the input box
//   (assert (or (and (<= Y_1 Y_0)) (and (<= Y_2 Y_0))))           ; the unsafe condition
//
// Inputs are X_0..X_{n-1} and outputs Y_0..Y_{m-1}, declared `Real` (or `Int` for inputs: then
// the domain is the integer points of the box). Asserts may use and, or, not, <=, >=, <, >, =,
// and linear terms (+, -, * by a constant, numbers, variables). All asserts together are brought
// into disjunctive normal form; in each disjunct the comparisons of one X with a constant bound
// the box and the rest form the unsafe condition. Disjuncts with the same box are grouped:
//
//   VnnProperty.regions[r] = {box lo/hi, unsafe = OR over conjunctions of LinearAtom}
//
// Example:
//   VnnProperty p = parse_vnnlib(
//       "(declare-const X_0 Real) (declare-const Y_0 Real) (declare-const Y_1 Real)\n"
//       "(assert (>= X_0 0)) (assert (<= X_0 1)) (assert (<= Y_1 Y_0))\n", "p.vnnlib");
//   // p.n_inputs 1, p.n_outputs 2, one region: lo {0}, hi {1}, unsafe {{Y_1 - Y_0 <= 0}}
//   //   (one LinearAtom: y {-1, 1}, x {0}, constant 0, not strict)
//
// An input fixed by its bounds (lo == hi, as X_2 in ACAS Xu's property 4) is a constant: volumes
// are taken over the other inputs, which must be the same for every box.
// The domain is the union of the regions' boxes (they must not overlap); a point x of region r is
// unsafe when one conjunction holds at (x, network(x)). A solver's "sat" is an unsafe point (the
// property is violated), "unsat" means the property holds.
//
// Errors are "file:line:col: expected ..., found ..." for syntax, and name the variable for
// semantic problems: an unbounded or empty box, an undeclared or out-of-order variable, a
// non-linear term, overlapping boxes. The disjunctive normal form is bounded (100,000 disjuncts,
// 20,000,000 comparisons over all of them); a property beyond that is refused at the `and` or
// `assert` that crosses the bound. Atoms are kept sparse while reading, so that reading is
// linear-ish in the file (3072 inputs and 9 disjuncts: milliseconds).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace assay::count {

/// sum_j y[j] Y_j + sum_i x[i] X_i + constant <= 0 (strict: < 0).
struct LinearAtom {
  std::vector<double> y;
  std::vector<double> x;
  double constant = 0.0;
  bool strict = false;
};

/// One box of the domain and the unsafe condition on it: OR over `unsafe` of AND over atoms (an
/// empty conjunction is true: every point of the box is unsafe).
struct VnnRegion {
  std::vector<double> lo, hi;
  std::vector<std::vector<LinearAtom>> unsafe;
};

struct VnnProperty {
  std::string file;
  std::size_t n_inputs = 0;
  std::size_t n_outputs = 0;
  bool integer_inputs = false;  ///< inputs declared Int: count integer points
  std::vector<VnnRegion> regions;
};

/// Parses VNN-LIB text; `file` names it in error messages.
VnnProperty parse_vnnlib(const std::string& text, const std::string& file = "<vnnlib>");
/// Reads and parses a .vnnlib file.
VnnProperty load_vnnlib(const std::string& path);

/// True when the conjunction `atoms` holds at inputs x and outputs y (exact comparisons).
bool atoms_hold(const std::vector<LinearAtom>& atoms, const double* x, const double* y);
/// True when the region's unsafe condition holds at (x, y).
bool unsafe_at(const VnnRegion& region, const double* x, const double* y);

}  // namespace assay::count

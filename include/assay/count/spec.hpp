// Input domains and properties: the `.spec` language (docs/count.md has the full grammar).
//
//   # 4-node graphs: x[i*n+j] = edge i -> j
//   const n = 4;
//   input x[16] : bool;                       # also: int[0, 16], real[-1, 1] step 0.25
//   pred edge(i, j) = x[i*n + j];
//   pred Reflexive = forall i in 0..n-1 : edge(i, i);
//   truth 1 = Reflexive;                      # ground truth of label 1 (label 0 = its negation)
//   safety NoSelfLoopIsNeg = not edge(0, 0) => label == 0;
//   region Near = ball([0,1,0,0, 1,0,0,0, 0,0,0,0, 0,0,0,0], 1) label 1;
//   region Flip2 = hamming([0,1,0,0, 1,0,0,0, 0,0,0,0, 0,0,0,0], 2) label 1;  # <= 2 bits differ
//
// Example:
//   Spec s = parse_spec("input x[2] : bool;\ntruth 1 = x[0] and not x[1];\n", "two.spec");
//   s.domain.size().get_ui();                // 4: two boolean inputs
//   std::vector<double> x = {1, 0};
//   evaluate(s.truths[0].second, x.data(), 0, nullptr, 0);   // 1: x[0] and not x[1] holds
//   parse_spec("input x[2] : bool;\ntruth 1 = y;\n", "two.spec");
//       // throws: two.spec:2:11: unknown identifier "y"
//
// Statements end with ';'. `#` starts a comment. Expressions: integer and real literals, true,
// false, constants, inputs (`x[i]` for arrays, `t` for scalars), predicate calls, + - * / %
// (/ and % on constant integers only), comparisons (== != < <= > >=), not/and/or/=> (also !, &&,
// ||), `forall|exists|sum v in a..b : expr` with constant bounds (inclusive), `if c then a else b`,
// and the model's output: `label` (predicted label index), `score[k]`, `argmax`. Booleans count as
// 0/1 in arithmetic; numbers are never booleans.
//
// The domain: every scalar input is a grid of values lo, lo+step, ..., lo+(size-1)*step; bool is
// {0, 1}, int[lo, hi] has step 1, real[lo, hi] step s has floor((hi-lo)/s)+1 points. Scalar
// inputs are numbered in declaration order (array elements in index order); the model's feature
// j is scalar input j. Predicates are expanded at load time into ground formulas over the inputs
// (bounded quantifiers become and/or chains), so every error — unknown identifier, type mismatch,
// index out of range, unbounded domain — is reported when the spec is read, as file:line:col.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gmpxx.h>

namespace assay::count {

/// One scalar input: values lo + k*step for k in [0, size).
struct VarDomain {
  std::string name;  ///< "x[3]" or "t"
  enum class Type { boolean, integer, real } type = Type::boolean;
  double lo = 0.0;
  double step = 1.0;
  std::uint64_t size = 2;

  double value(std::uint64_t k) const { return lo + static_cast<double>(k) * step; }
};

/// Largest number of points of one input's grid.
inline constexpr double kMaxGridPoints = 9.0e15;

/// The number of points of the real grid lo, lo + step, ..., <= hi into `size`; returns why the
/// grid is unusable, or "" when it is fine: more than kMaxGridPoints points, or a step so fine
/// next to the values' magnitude that neighbouring points lo + k*step round to the same double
/// (step 1e-300 on [0, 16]; step 1e-9 near 1e10).
std::string real_grid_problem(double lo, double hi, double step, std::uint64_t& size);

/// Whether v is a point of the grid (within a millionth of a step, so that float32 copies of
/// grid values pass).
bool on_grid(const VarDomain& v, double value);
/// The domain as the spec writes it: "bool", "int[0, 15]", "real[-1, 1] step 0.25".
std::string domain_text(const VarDomain& v);

struct Domain {
  std::vector<VarDomain> vars;
  /// Number of points (exact).
  mpz_class size() const;
};

/// A ground formula: nodes in an arena; node `root` is the formula. Built by the spec parser.
struct Formula {
  enum class Op : std::uint8_t {
    constant,  // value
    var,       // index = scalar input
    label,     // the predicted label index
    argmax,    // argmax of the scores
    score,     // index = output k
    not_,
    and_,
    or_,
    add,
    sub,
    mul,
    neg,
    eq,
    ne,
    lt,
    le,
    ite  // kids: condition, then, else
  };
  struct Node {
    Op op = Op::constant;
    bool boolean = false;  ///< the node's type: boolean or numeric
    double value = 0.0;
    std::uint32_t index = 0;
    std::uint32_t first_kid = 0;
    std::uint32_t n_kids = 0;
  };
  std::vector<Node> nodes;
  std::vector<std::uint32_t> kids;
  std::uint32_t root = 0;

  bool uses_model() const;
};

/// Safety property: S = #{pre and post}, N = #{pre and not post}.
struct SafetyProperty {
  std::string name;
  Formula pre;
  Formula post;
};

/// Robustness region around `center` (one value per scalar input): with metric linf
/// (`ball(center, eps)`) the L-infinity ball of radius epsilon, clipped to the domain; with
/// metric hamming (`hamming(center, k)`, every input's domain {0, 1}) the points that differ
/// from the center in at most k = epsilon inputs, and `within` is that set as a formula.
struct RegionSpec {
  std::string name;
  std::vector<double> center;
  double epsilon = 0.0;  ///< linf: the radius; hamming: k, a whole number in [0, inputs]
  std::int32_t label = 0;
  enum class Metric { linf, hamming } metric = Metric::linf;
  Formula within;  ///< hamming: (number of inputs i with x[i] != center[i]) <= k
};

/// A named boolean predicate without parameters, usable as a ground truth (`--property NAME`).
struct NamedPredicate {
  std::string name;
  Formula formula;
};

struct Spec {
  std::string file;  ///< for messages
  Domain domain;
  /// Ground truth per label index (`truth L = expr;`), sorted by label.
  std::vector<std::pair<std::int32_t, Formula>> truths;
  std::vector<NamedPredicate> predicates;
  std::vector<SafetyProperty> safety;
  std::vector<RegionSpec> regions;
};

/// Parses spec text; `file` names it in error messages ("file:line:col: message").
Spec parse_spec(const std::string& text, const std::string& file = "<spec>");
/// Reads and parses a .spec file.
Spec load_spec(const std::string& path);

/// Evaluates a formula at a point (x: one value per scalar input); label/scores are the model's.
double evaluate(const Formula& f, const double* x, std::int32_t label, const double* scores,
                std::size_t n_scores);

}  // namespace assay::count

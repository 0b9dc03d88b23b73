// Literals of the exact counter's internal formula: variables are 0-based, and literal
// 2v is "v true", 2v+1 is "v false", so a literal's negation flips the lowest bit and literal
// indexed arrays (watch lists, values) have 2 * n_vars entries.
#pragma once

#include <cstdint>
#include <vector>

namespace assay::count::exact {

using Lit = std::uint32_t;

constexpr Lit kNoLit = 0xFFFFFFFFu;

inline Lit make_lit(std::uint32_t var, bool negated) {
  return 2 * var + (negated ? 1u : 0u);
}
inline std::uint32_t lit_var(Lit l) {
  return l >> 1;
}
inline bool lit_negated(Lit l) {
  return (l & 1u) != 0;
}
inline Lit lit_not(Lit l) {
  return l ^ 1u;
}

/// A preprocessed formula, ready for the search: compact variables 0..n_vars-1, each occurring
/// in at least one clause; clauses sorted, duplicate-free, no tautologies, none empty (unit
/// clauses remain only when the preprocessing pass was switched off).
struct Formula {
  std::uint32_t n_vars = 0;
  std::vector<std::uint8_t> projected;   ///< per variable: 1 when it is counted
  std::vector<Lit> literals;             ///< every clause's literals, one after the other
  std::vector<std::uint32_t> starts{0};  ///< clause i = literals[starts[i], starts[i+1])
  bool unsat = false;                    ///< preprocessing found the formula unsatisfiable
  /// Projected variables that no clause constrains any more: the count is multiplied by
  /// 2^free_projected.
  std::uint64_t free_projected = 0;

  std::size_t n_clauses() const { return starts.size() - 1; }
};

}  // namespace assay::count::exact

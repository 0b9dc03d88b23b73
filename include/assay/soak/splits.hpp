// SOAK train/test splits: Same/Other/All K-fold cross-validation (SOAK paper §3.1), with the
// semantics of mlr3resampling's ResamplingSameOtherSizesCV.
//
// Example:
//   SoakDesign design;                       // one entry per row
//   design.subset = subset;  design.subset_names = {"NE", "NW", "S"};   // codes 0, 1, 2
//   design.group = group;                    // optional: rows of a group never split
//   design.stratum = stratum;                // optional (default: subset x label)
//   SoakSplits splits(design, SoakSplitParams{.folds = 10});
//   for (std::size_t i = 0; i < splits.size(); ++i) {
//     const SplitInfo& s = splits.info(i);   // test subset, train subsets, fold, seed, sizes
//     auto train = splits.train_rows(i);     // sorted row indices
//     auto test = splits.test_rows(i);
//   }
//
// Definitions, for test subset σ and test fold κ (rows i with subset s_i, fold k_i):
//   Test = {k = κ, s = σ};  Same = {k ≠ κ, s = σ};  Other = {k ≠ κ, s ≠ σ};  All = {k ≠ κ}.
// With one subset only "same" exists (plain K-fold CV). The subset is never a feature.
//
// Folds (1..K), in order of precedence:
//   - given: design.fold (must be constant within each group; K = number of distinct values,
//     relabelled 1..K in increasing order); a subset without rows in some fold gets no split
//     for that (fold, subset), as mlr3 (which lists only the pairs present);
//   - no groups: within each stratum a random permutation of 1..K,1..K,… (folds 1..(m mod K)
//     get one extra row), as mlr3's ResamplingCV;
//   - groups: each group to the fold that minimises the growth of Σ_s,f (n[s,f] − n_s/K)²
//     (mlr3resampling's "RSS" rule), ties to the fold with the least overflow above the ideal,
//     then the first; groups are processed largest first, equal sizes in a seeded random order.
//   The stratum of a row is always crossed with its subset, so every subset is balanced over
//   the folds. A stratum with fewer units than K fills only folds 1..m, so when every stratum
//   of a subset is that small some of its folds stay empty: as with a given fold column, those
//   (fold, subset) pairs get no split (the constructor warns).
// Down-sampling (sizes, ratio), as mlr3resampling: for each test subset, `groups` is the
//   nominal number of train groups of each train set, floor(n_groups(subset)·(K−1)/K) for same,
//   the sum over subsets for all, all − same for other. Candidate sizes are
//   floor(min(groups)·ratio^j) for j = 1..sizes (R's as.integer; 0 is left out: an empty train
//   set) plus every full `groups` value; sizes = −1 keeps only the full size; otherwise a train
//   set gets every candidate ≤ its own full size. A down-sampled train set keeps, from each
//   (subset x stratum) stratum, the (group, stratum) units whose rank r (1-based, in a seeded
//   random order per (train set, test fold, test subset, seed)) satisfies
//   full·r/m ≤ n.train.groups (m = units of that stratum in the full train set), so strata keep
//   their proportions and smaller sets are nested in larger ones; a group with a kept unit is
//   kept whole (as mlr3). Without groups a unit is a row.
// Order of splits (mlr3resampling's iteration table): train.subsets (all, other, same), test
//   fold, test subset (subset_names order), seed, n.train.groups ascending; iteration is 1-based.
//
// Memory: O(n_rows + n_splits); train/test row lists are built on demand in O(n_rows) each
// (a down-sampled one also in O(units)), and the same i always gives the same rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "assay/core/json.hpp"
#include "assay/core/table.hpp"

namespace assay::soak {

enum class TrainSubsets { all, other, same };

/// "all", "other", "same".
const char* to_string(TrainSubsets which);

struct SoakSplitParams {
  /// K, the number of folds (>= 2). Ignored when the design has a fold column.
  int folds = 10;
  /// Train sets to build: any non-empty combination of 'S', 'O', 'A' ("SOA", "SO", "S", ...).
  std::string subsets = "SOA";
  /// Down-sampled sizes: -1 = full size only; 0 = also the smaller full sizes; j >= 1 = also
  /// min(groups)·ratio^1..j.
  int sizes = -1;
  /// Ratio between successive down-sampled sizes, in (0, 1).
  double ratio = 0.5;
  /// Repetitions of the down-sampling with different random group orders (seed column 1..seeds).
  int seeds = 1;
  /// Seed for fold assignment and down-sampling.
  std::uint64_t seed = 1;
};

/// Per-row roles; all vectors have one entry per row (or are empty where optional).
struct SoakDesign {
  /// Subset code of each row, 0..subset_names.size()-1.
  std::vector<std::int32_t> subset = {};
  /// Subset names, index = code, in the order splits are listed (sorted; see soak_design).
  std::vector<std::string> subset_names = {};
  /// Optional group code of each row (>= 0); rows of a group always share a fold.
  std::vector<std::int32_t> group = {};
  /// Optional stratum code of each row (>= 0); crossed with the subset.
  std::vector<std::int32_t> stratum = {};
  /// Optional given fold of each row (any integers; relabelled 1..K in increasing order).
  std::vector<std::int64_t> fold = {};
};

/// One row of the iteration table (without the row lists).
struct SplitInfo {
  /// 1-based, as mlr3.
  std::size_t iteration = 0;
  std::int32_t test_subset = 0;
  TrainSubsets train_subsets = TrainSubsets::same;
  /// Nominal number of train groups at full size (mlr3resampling's `groups`).
  std::int64_t groups = 0;
  /// 1..K.
  std::int32_t test_fold = 1;
  /// 1..seeds.
  std::int32_t seed = 1;
  /// Nominal number of train groups after down-sampling (== groups at full size).
  std::int64_t n_train_groups = 0;
};

class SoakSplits {
 public:
  /// Assigns folds (unless given) and lists every split. Throws assay::Error for: vectors of
  /// different lengths, codes out of range, a given fold that differs within a group, folds < 2,
  /// a subset with fewer groups (rows when there are no groups) than folds, a bad `subsets`
  /// string, sizes < -1, ratio outside (0, 1), seeds < 1. A stratum with fewer groups than folds
  /// only warns (it cannot be balanced).
  SoakSplits(SoakDesign design, const SoakSplitParams& params);

  std::size_t size() const { return splits_.size(); }
  const SplitInfo& info(std::size_t i) const { return splits_.at(i); }
  const std::vector<SplitInfo>& infos() const { return splits_; }

  /// Test rows of split i, increasing.
  std::vector<std::uint32_t> test_rows(std::size_t i) const;
  /// Train rows of split i, increasing.
  std::vector<std::uint32_t> train_rows(std::size_t i) const;
  /// The first split whose train rows are exactly split i's (i itself when no earlier split has
  /// them): the full-size train sets of one test fold that draw on the same subsets — All for
  /// every test subset, with two subsets Same of one and Other of the other, every seed's
  /// full-size set. A down-sampled train set is its own twin. run_soak fits one model per twin.
  std::size_t train_twin(std::size_t i) const { return twins_.at(i); }

  /// The fold of every row, 1..K.
  const std::vector<std::int32_t>& folds() const { return fold_; }
  int n_folds() const { return n_folds_; }
  const SoakDesign& design() const { return design_; }
  const SoakSplitParams& params() const { return params_; }

  /// mlr3resampling's iteration table as an array with one object per split, keys in mlr3's
  /// column order: test.subset (name), train.subsets, groups, test.fold, test (row ids), train
  /// (row ids), seed, n.train.groups, iteration (row ids 1-based as in R when `one_based_rows`).
  /// Materialises every row list: O(n_rows · n_splits); for big data iterate train_rows().
  Json iteration_table(bool one_based_rows = false) const;

 private:
  SoakDesign design_;
  SoakSplitParams params_;
  int n_folds_ = 0;
  std::vector<std::int32_t> fold_;
  std::vector<SplitInfo> splits_;
  std::vector<std::size_t> twins_;  // train_twin of each split
  // Down-sampling state. A "unit" is a (group, stratum) pair (a row when there are no groups);
  // its rank in a split's random order is a hash of (seed, split key, unit), so train_rows(i) is
  // reproducible and needs no stored permutation.
  std::vector<std::int32_t> group_of_row_;    // compact group code; empty without groups
  std::vector<std::int32_t> stratum_of_row_;  // compact (subset x stratum) code
  std::vector<std::int32_t> unit_of_row_;     // empty without groups (unit = row)
  std::int32_t n_units_ = 0;
  std::int32_t n_strata_ = 0;
  std::vector<std::int32_t> unit_stratum_;  // stratum of each unit (with groups)
  std::vector<std::size_t> cell_rows_;      // rows per (fold, subset): [(fold-1)·S + subset]
};

/// Which columns of a table define the design (the CLI's --subset/--group/--fold/--strata).
struct SoakColumns {
  /// Subset column (required); numeric or string. "" = one subset (plain K-fold CV).
  std::string subset = {};
  std::string group = {};
  std::string fold = {};
  /// Strata columns; empty = the label (classification) or nothing (regression), crossed with
  /// the subset.
  std::vector<std::string> strata = {};
};

/// Builds the design from a table. Subset names are sorted (numerically when all are numbers,
/// else as strings). `default_stratum` (e.g. the class codes) is used when columns.strata is
/// empty; pass an empty vector for none. Throws assay::Error naming the file for a missing column,
/// a NaN/non-integer in a numeric group or fold column, or a fold column that is not constant
/// within a group (naming the file's group and fold values and 1-based data rows).
SoakDesign soak_design(const Table& table, const SoakColumns& columns,
                       std::span<const std::int32_t> default_stratum);

}  // namespace assay::soak

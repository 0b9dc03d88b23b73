// Multilabel ranking metrics (coverage error, label ranking average precision, ranking loss) and
// discounted cumulative gain, with scikit-learn 1.2.1's definitions and tie rules.
//
// Layout: row-major n x L matrices, sample i, label j at [i * L + j]: y_true is a 0/1 indicator
// (bytes; nonzero = relevant) for the multilabel metrics and graded relevance (doubles) for DCG;
// y_score holds doubles, higher = ranked first. sample_weight: empty = all 1, else n finite
// values >= 0. Scores must be finite (assay::Error naming the entry). Each function returns the
// (weighted) mean over samples.
//
// Example:
//   // two samples, three labels
//   std::vector<std::uint8_t> y = {1, 0, 0,  0, 0, 1};
//   std::vector<double> s = {0.75, 0.5, 1,  1, 0.2, 0.1};
//   double lrap = label_ranking_average_precision(y, s, 3);   // 0.41666...
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace assay::metrics {

/// Mean number of top-ranked labels needed to cover every relevant label (ties: the largest
/// rank of the tied group); 0 for a sample without relevant labels.
double coverage_error(std::span<const std::uint8_t> y_true, std::span<const double> y_score,
                      std::size_t n_labels, std::span<const double> sample_weight = {});

/// Mean over samples of the mean over relevant labels r of |{relevant j: s_j >= s_r}| /
/// |{j: s_j >= s_r}|; a sample with no or only relevant labels scores 1.
double label_ranking_average_precision(std::span<const std::uint8_t> y_true,
                                       std::span<const double> y_score, std::size_t n_labels,
                                       std::span<const double> sample_weight = {});

/// Mean over samples of the fraction of (relevant, irrelevant) label pairs ordered wrongly
/// (irrelevant score >= relevant score); 0 for a sample with no or only relevant labels.
double label_ranking_loss(std::span<const std::uint8_t> y_true, std::span<const double> y_score,
                          std::size_t n_labels, std::span<const double> sample_weight = {});

/// Options of dcg_score / ndcg_score.
struct DcgParams {
  std::optional<std::size_t> k;  ///< only the k highest-ranked labels count; default all
  double log_base = 2;           ///< discount 1 / log_base(rank + 1); ndcg ignores it (base 2)
  bool ignore_ties = false;      ///< false: tied scores share their average gain (McSherry &
                                 ///< Najork); true: ties broken arbitrarily (faster)
};

/// Per-sample discounted cumulative gain of graded relevance y_true ranked by y_score.
std::vector<double> dcg_per_sample(std::span<const double> y_true, std::span<const double> y_score,
                                   std::size_t n_labels, const DcgParams& params = {});

/// Per-sample DCG divided by the ideal DCG (0 when the ideal DCG is 0).
std::vector<double> ndcg_per_sample(std::span<const double> y_true, std::span<const double> y_score,
                                    std::size_t n_labels, const DcgParams& params = {});

/// numpy.average of per-sample values with optional sample weights.
double average_samples(const std::vector<double>& values, std::span<const double> sample_weight);

}  // namespace assay::metrics

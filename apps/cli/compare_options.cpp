#include "compare_options.hpp"

#include "assay/compare/gates.hpp"
#include "assay/core/error.hpp"
#include "assay/metrics/ranking.hpp"
#include "options.hpp"

namespace assay::cli {

void add_compare_options(CLI::App* cmd, CompareOptions& o) {
  cmd->add_option("--task", o.task,
                  "auto, binary, multiclass or regression (auto: regression when the labels "
                  "have fractions or more than 50 distinct whole values with under 10 rows "
                  "each, else by the class count)")
      ->capture_default_str();
  cmd->add_option("--baseline", o.params.baseline,
                  "the model the others are compared with (default: the first)")
      ->check(non_empty_text());
  cmd->add_option("--pairs", o.pairs, "baseline (each model vs the baseline) or all (every pair)")
      ->capture_default_str();
  cmd->add_option("--pos-label", o.params.pos_label,
                  "binary: the positive class (default: the greater label)")
      ->check(class_label());
  cmd->add_option("--threshold", o.params.threshold,
                  "binary: positive when score >= threshold (metrics not at an operating point)")
      ->capture_default_str()
      ->check(finite_number());
  cmd->add_option("--ap-method", o.ap_method,
                  "average precision: step (scikit-learn), voc07, voc_allpoint, coco101, trapezoid")
      ->capture_default_str();
  cmd->add_option("--resamples", o.params.bootstrap.n_resamples,
                  "paired bootstrap resamples (the same for every model, metric and slice; 0 = no "
                  "intervals and no bootstrap p-values; at most 1000000)")
      ->capture_default_str()
      ->check(resample_count());
  cmd->add_option("--confidence", o.params.bootstrap.confidence,
                  "confidence level of the intervals")
      ->capture_default_str()
      ->check(open_probability());
  add_seed_option(cmd, o.params.bootstrap.seed, "seed of the resamples and permutations");
  cmd->add_option("--test", o.test,
                  "p-values: auto (DeLong for roc_auc, exact McNemar for accuracy, else the paired "
                  "bootstrap), bootstrap or permutation")
      ->capture_default_str();
  cmd->add_option("--permutations", o.params.n_permutations,
                  "permutations of the paired permutation test (with --test permutation)")
      ->capture_default_str()
      ->check(resample_count());
  cmd->add_option("--correction", o.correction,
                  "multiple-comparison correction: holm, bonferroni, fdr_bh or none")
      ->capture_default_str();
  cmd->add_option("--min-slice-size", o.params.min_slice_size,
                  "warn about slices with fewer examples than this")
      ->capture_default_str()
      ->check(non_negative_integer());
  add_threads_option(cmd, o.params.bootstrap.threads,
                     "worker threads (0 = all cores; results do not depend on it)");
}

void finish_compare_params(CompareOptions& o) {
  o.params.metrics = o.metrics;
  o.params.test = compare::parse_test(o.test, "--test");
  o.params.correction = compare::parse_correction(o.correction, "--correction");
  o.params.ap.method = metrics::parse_ap_method(o.ap_method);
  o.params.all_pairs = compare::parse_pairs(o.pairs, "--pairs");
}

compare::CompareColumns compare_columns(const std::string& label,
                                        const std::vector<std::string>& models,
                                        const std::vector<std::string>& by,
                                        const std::string& weight) {
  compare::CompareColumns c;
  c.label = label;
  c.by = by;
  c.weight = weight;
  for (const auto& spec : models) {
    const auto eq = spec.find('=');
    std::string name = eq == std::string::npos ? spec : spec.substr(0, eq);
    std::string cols = eq == std::string::npos ? spec : spec.substr(eq + 1);
    if (name.empty() || cols.empty()) {
      fail("--models: expected COLUMN, NAME=COLUMN or NAME=COL1+COL2, found {}", quote_found(spec));
    }
    std::vector<std::string> list;
    std::size_t start = 0;
    while (true) {
      const auto plus = cols.find('+', start);
      list.push_back(cols.substr(start, plus - start));
      if (list.back().empty()) {
        fail("--models: expected a column name between '+', found {}", quote_found(spec));
      }
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
    c.models.push_back({name, list});
  }
  return c;
}

}  // namespace assay::cli

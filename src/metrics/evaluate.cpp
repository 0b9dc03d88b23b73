#include "assay/metrics/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>

#include <fmt/ranges.h>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/options.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/classification.hpp"
#include "assay/metrics/confusion.hpp"
#include "assay/metrics/labels.hpp"

namespace assay::metrics {
namespace {

constexpr std::size_t kMaxCurvePoints = 2000;

std::string join(const std::vector<std::string>& items, std::size_t max_items = 20) {
  const std::size_t shown = std::min(items.size(), max_items);
  std::string out = fmt::format("{}", fmt::join(items.begin(), items.begin() + shown, ", "));
  if (items.size() > max_items) out += fmt::format(", ... ({} in all)", items.size());
  return out;
}

std::string format_label(double value) {
  return fmt::format("{}", value);
}

// Passes each distinct warning on once, in order of first appearance, when it goes out of scope
// (several headline values share one undefined ratio and would repeat its warning).
class UniqueWarnings {
 public:
  /// Restores the caller's handler and passes the collected warnings on. Not done by the
  /// destructor: a handler may throw (Python with warnings as errors).
  void flush() {
    collecting_.reset();
    for (const auto& message : seen_) warn(message);
  }

 private:
  std::vector<std::string> seen_;
  std::optional<ScopedWarningHandler> collecting_{
      std::in_place, [this](const std::string& m) {
        if (std::find(seen_.begin(), seen_.end(), m) == seen_.end()) seen_.push_back(m);
      }};
};

// Keeps at most kMaxCurvePoints points of a curve for display (first and last always kept).
void thin_curve(CurveSeries& curve) {
  const std::size_t n = curve.x.size();
  if (n <= kMaxCurvePoints) return;
  std::vector<std::size_t> keep;
  for (std::size_t k = 0; k < kMaxCurvePoints; ++k) {
    keep.push_back(k * (n - 1) / (kMaxCurvePoints - 1));
  }
  auto pick = [&](std::vector<double>& v) {
    if (v.empty()) return;
    std::vector<double> out;
    out.reserve(keep.size());
    for (std::size_t i : keep) out.push_back(v[i]);
    v = std::move(out);
  };
  pick(curve.x);
  pick(curve.y);
  pick(curve.y_interpolated);
}

struct Headline {
  std::string name;
  WeightedMetric metric;
};

// scikit-learn's type_of_target: numbers that are not all whole are "continuous" (a regression
// target, or scores), never classes; reading them as classes gave one class per distinct value.
void check_whole_numbers(const Table& table, const Column& c, bool predictions) {
  for (std::size_t i = 0; i < c.values.size(); ++i) {
    const double v = c.values[i];
    if (v == std::floor(v)) continue;
    if (predictions) {
      fail_at_cell(table, i, c.name,
                   fmt::format("expected a predicted class label, found {}: the predictions are "
                               "continuous (scores or regression predictions?), not classes; "
                               "give scores with --score (Python: y_score), or --task regression "
                               "(Python: task=\"regression\") for regression metrics",
                               v));
    }
    fail_at_cell(table, i, c.name,
                 fmt::format("expected a class label, found {}: the labels are continuous (a "
                             "regression target?), not classes; for regression metrics give "
                             "--task regression (Python: task=\"regression\")",
                             v));
  }
}

}  // namespace

EvaluationInput evaluation_input(const Table& table, const EvaluateColumns& columns) {
  const Location file{table.source(), 0, 0};
  if (columns.label.empty()) fail("no label column given");
  const Column& label = table.column(columns.label);
  const Column* pred = columns.pred.empty() ? nullptr : &table.column(columns.pred);
  const std::size_t n = table.n_rows();
  if (n == 0) fail_at(file, "no data rows, expected at least one");

  EvaluationInput input;
  auto check_no_nan = [&](const Column& c) {
    for (std::size_t i = 0; i < c.values.size(); ++i) {
      if (std::isnan(c.values[i])) {
        fail_at_cell(table, i, c.name, "expected a class label, found NaN");
      }
    }
  };
  if (label.is_numeric()) {
    check_no_nan(label);
    check_whole_numbers(table, label, false);
  }
  if (pred && pred->is_numeric()) {
    check_no_nan(*pred);
    check_whole_numbers(table, *pred, true);
  }
  if (label.is_numeric() && (!pred || pred->is_numeric())) {
    auto encoded = encode_labels<double>(
        label.values, pred ? std::span<const double>(pred->values) : std::span<const double>{});
    for (double c : encoded.classes) input.classes.push_back(format_label(c));
    input.y_true = std::move(encoded.codes);
    input.y_pred = std::move(encoded.codes2);
  } else {
    // Labels as strings, sorted like np.unique sorts strings (bytewise).
    auto strings_of = [](const Column& c) {
      if (c.is_categorical()) return c.strings();
      std::vector<std::string> out;
      out.reserve(c.values.size());
      for (double v : c.values) out.push_back(format_label(v));
      return out;
    };
    const auto truth = strings_of(label);
    const auto predicted = pred ? strings_of(*pred) : std::vector<std::string>{};
    std::map<std::string, std::int32_t> code_of;
    for (const auto& s : truth) code_of.emplace(s, 0);
    for (const auto& s : predicted) code_of.emplace(s, 0);
    for (auto& [name, code] : code_of) {
      code = static_cast<std::int32_t>(input.classes.size());
      input.classes.push_back(name);
    }
    input.y_true.reserve(n);
    for (const auto& s : truth) input.y_true.push_back(code_of.at(s));
    for (const auto& s : predicted) input.y_pred.push_back(code_of.at(s));
  }

  input.n_score_columns = columns.scores.size();
  input.score_names = columns.scores;
  if (!columns.scores.empty()) {
    const std::size_t k = input.classes.size();
    const bool binary_column = columns.scores.size() == 1 && k <= 2;
    if (!binary_column && columns.scores.size() != k) {
      fail_at(file, "expected {} ({}: {}), found {} score column{}",
              k <= 2 ? "1 score column (binary) or one per class" : "one score column per class", k,
              join(input.classes), columns.scores.size(), columns.scores.size() == 1 ? "" : "s");
    }
    const std::size_t s = columns.scores.size();
    input.scores.resize(n * s);
    for (std::size_t j = 0; j < s; ++j) {
      const Column& c = table.column(columns.scores[j]);
      if (!c.is_numeric()) {
        fail_at(file, "score column \"{}\": expected numbers, found text such as {}", c.name,
                quote_found(c.categories.front()));
      }
      for (std::size_t i = 0; i < n; ++i) {
        // Checked here, where the file's line and column are known (evaluate() names the sample).
        if (!std::isfinite(c.values[i])) {
          fail_at_cell(table, i, c.name,
                       fmt::format("expected a finite score, found {}", c.values[i]));
        }
        input.scores[i * s + j] = c.values[i];
      }
    }
  }
  if (!columns.weight.empty()) {
    const Column& w = table.column(columns.weight);
    if (!w.is_numeric()) {
      fail_at(file, "weight column \"{}\": expected numbers, found text such as {}", w.name,
              quote_found(w.categories.front()));
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (!(w.values[i] >= 0) || std::isinf(w.values[i])) {
        fail_at_cell(table, i, w.name,
                     fmt::format("expected a finite weight >= 0, found {}", w.values[i]));
      }
    }
    input.weights = w.values;
  }
  return input;
}

namespace {

// Many distinct labels (a --pred column of ids) would first allocate a classes x classes
// confusion matrix and classes x samples score tables: refused up front, with their size.
void check_class_count(std::size_t k, std::size_t n, std::size_t max_classes) {
  if (max_classes == 0 || k <= max_classes) return;
  const double bytes = 8.0 * static_cast<double>(k) * static_cast<double>(k);
  fail(
      "the labels have {} classes, more than the limit of {}: evaluating them needs more than "
      "{:.1f} GB (the {} x {} confusion matrix alone, then per-class tables of {} samples); "
      "raise the limit (--max-classes {}, Python: max_classes) if that is intended",
      k, max_classes, bytes / 1e9, k, k, n, k);
}

// The first row of an n x s score matrix that is not a probability distribution (a value outside
// [0, 1], or a sum 1e-4 or more away from 1), or n when every row is one.
std::size_t first_non_probability_row(const EvaluationInput& input, std::size_t n, std::size_t s) {
  for (std::size_t i = 0; i < n; ++i) {
    double row = 0;
    for (std::size_t j = 0; j < s; ++j) {
      const double v = input.scores[i * s + j];
      if (v < 0 || v > 1) return i;
      row += v;
    }
    if (std::abs(row - 1) > 1e-4) return i;
  }
  return n;
}

// Two score columns on two classes are per-class probabilities only if every row sums to 1.
// Otherwise they are most likely two models' scores of the positive class (--score a,b), and
// reading them as per-class scores would silently evaluate the second one only: refused.
void check_two_score_columns(const EvaluationInput& input, std::size_t n) {
  const std::size_t row = first_non_probability_row(input, n, 2);
  if (row == n) return;
  auto name = [&](std::size_t j) {
    return j < input.score_names.size() ? quote_found(input.score_names[j])
                                        : fmt::format("column {}", j + 1);
  };
  fail(
      "2 score columns ({}, {}) for the 2 classes ({}) are neither one score of the positive "
      "class nor per-class probabilities: row {} holds {} and {} (sum {:.6g}, not 1). To compare "
      "two models, evaluate each on its own ({} alone, then {} alone); per-class scores must be "
      "probabilities summing to 1, in sorted class order",
      name(0), name(1), join(input.classes), row + 1, input.scores[2 * row],
      input.scores[2 * row + 1], input.scores[2 * row] + input.scores[2 * row + 1], name(0),
      name(1));
}

// Checks the input's lengths, values and classes; adds the named positive class when the data
// hold one class only. Returns the number of classes.
std::int32_t check_input(EvaluationInput& input, const EvaluateParams& params) {
  const std::size_t n = input.y_true.size();
  if (n == 0) fail("no samples to evaluate, expected at least one");
  const std::size_t s = input.n_score_columns;
  if (s == 0 && input.y_pred.empty()) fail("nothing to evaluate: give scores or predicted labels");
  if (input.scores.size() != n * s) {
    fail("scores have {} values, expected {} samples x {} columns = {}", input.scores.size(), n, s,
         n * s);
  }
  for (std::size_t i = 0; i < input.scores.size(); ++i) {
    if (!std::isfinite(input.scores[i])) {
      fail("scores contain {} at sample {}{}", input.scores[i], i / s + 1,
           s > 1 ? fmt::format(", column {}", i % s + 1) : "");
    }
  }
  if (!input.y_pred.empty()) check_same_length(n, input.y_pred.size(), "y_true", "y_pred");
  if (!std::isfinite(params.threshold))
    fail("threshold must be a finite number, found {}", params.threshold);
  // About 16 headline values share the resamples.
  check_bootstrap_params(params.bootstrap, 16, "--bootstrap (Python: n_bootstrap)");
  check_weights(input.weights, n);

  // A binary problem whose data hold one class only: the named positive class is the other.
  if (input.classes.size() == 1 && !params.pos_label.empty() &&
      params.pos_label != input.classes[0]) {
    input.classes.push_back(params.pos_label);
    if (input.classes[1] < input.classes[0]) {
      std::swap(input.classes[0], input.classes[1]);
      for (auto& c : input.y_true) c = 1 - c;
      for (auto& c : input.y_pred) c = 1 - c;
    }
  }
  const auto k = static_cast<std::int32_t>(input.classes.size());
  if (k < 2) {
    fail(
        "the labels have one class only ({}); give the positive class (--pos-label) to evaluate "
        "a binary problem",
        input.classes.empty() ? std::string("none") : quote_found(input.classes[0]));
  }
  check_class_count(static_cast<std::size_t>(k), n, params.max_classes);
  if ((s > 1 || k > 2) && s != 0 && s != static_cast<std::size_t>(k)) {
    fail("expected {} ({}), found {}",
         k > 2 ? "one score column per class" : "1 score column or one per class", k, s);
  }
  if (k == 2 && s == 2) check_two_score_columns(input, n);
  auto check_codes = [&](const std::vector<std::int32_t>& codes, const char* what) {
    for (std::size_t i = 0; i < codes.size(); ++i) {
      if (codes[i] < 0 || codes[i] >= k)
        fail("{} has code {} at index {}, expected 0..{}", what, codes[i], i, k - 1);
    }
  };
  check_codes(input.y_true, "y_true");
  check_codes(input.y_pred, "y_pred");
  return k;
}

// Everything the headline metrics read. The metrics are closures run again by every bootstrap
// resample, so this lives in evaluate()'s frame, unmoved, until the summary is done.
struct Problem {
  Problem() = default;
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  std::size_t n = 0;
  std::size_t s = 0;  // score columns
  std::int32_t k = 0;
  std::int32_t positive = 1;  // binary: code of the positive class
  std::span<const std::int32_t> y_true;
  std::vector<std::int32_t> y_pred;  // given or derived
  std::vector<double> ones;
  std::span<const double> base;                   // the weights, or all ones
  std::vector<double> binary_score;               // binary: the positive class's score
  std::vector<std::vector<double>> class_scores;  // multi-class: [class][sample]
  bool probabilities = false;
  // One-vs-rest ranking structures, sorted once (reused by every bootstrap resample).
  std::vector<std::uint8_t> is_positive;
  std::optional<RankedScores> ranked_binary;
  std::vector<std::vector<std::uint8_t>> class_truth;
  std::vector<std::optional<RankedScores>> ranked_class;
};

// Binary: the code of the positive class (the named one, else the greater label).
std::int32_t positive_code(Evaluation& ev, std::int32_t k, const EvaluateParams& params) {
  std::int32_t positive = 1;
  if (ev.binary) {
    if (!params.pos_label.empty()) {
      auto it = std::find(ev.classes.begin(), ev.classes.end(), params.pos_label);
      if (it == ev.classes.end()) {
        fail("pos_label {} is not one of the classes ({})", quote_found(params.pos_label),
             join(ev.classes));
      }
      positive = static_cast<std::int32_t>(it - ev.classes.begin());
    }
    ev.positive_class = ev.classes[positive];
  } else if (!params.pos_label.empty()) {
    warn(fmt::format("pos_label {} is ignored: the labels have {} classes",
                     quote_found(params.pos_label), k));
  }
  return positive;
}

// Scores of each class (one-vs-rest), contiguous; binary: the positive class only.
void split_scores(Problem& p, const EvaluationInput& input, bool binary) {
  if (p.s == 0) return;
  if (binary) {
    p.binary_score.resize(p.n);
    const std::size_t column = p.s == 1 ? 0 : static_cast<std::size_t>(p.positive);
    for (std::size_t i = 0; i < p.n; ++i) p.binary_score[i] = input.scores[i * p.s + column];
  } else {
    p.class_scores.assign(p.k, std::vector<double>(p.n));
    for (std::size_t i = 0; i < p.n; ++i) {
      for (std::int32_t c = 0; c < p.k; ++c) p.class_scores[c][i] = input.scores[i * p.s + c];
    }
  }
}

// The given predicted labels, else the thresholded (binary) or argmax (multi-class) scores.
void predict_labels(Problem& p, const EvaluationInput& input, const EvaluateParams& params,
                    Evaluation& ev) {
  p.y_pred = input.y_pred;
  if (!p.y_pred.empty()) {
    ev.prediction_rule = "given predictions";
  } else if (ev.binary) {
    const auto above = threshold_scores(p.binary_score, params.threshold);
    p.y_pred.resize(p.n);
    for (std::size_t i = 0; i < p.n; ++i) p.y_pred[i] = above[i] ? p.positive : 1 - p.positive;
    ev.prediction_rule = fmt::format("score >= {}", params.threshold);
  } else {
    p.y_pred = argmax_rows(input.scores, static_cast<std::size_t>(p.k));
    ev.prediction_rule = "argmax of the class scores";
  }
}

// The confusion matrix and each class's precision, recall, F1 and support.
void confusion_and_per_class(const Problem& p, const EvaluationInput& input, Evaluation& ev) {
  ev.confusion = confusion_matrix(p.y_true, p.y_pred, p.k, input.weights);
  PrfParams prf;
  const auto per_class =
      precision_recall_fscore(label_counts(p.y_true, p.y_pred, p.k, input.weights), prf);
  for (std::int32_t c = 0; c < p.k; ++c) {
    ev.per_class.push_back({ev.classes[c], per_class.precision[c], per_class.recall[c],
                            per_class.fscore[c], per_class.support[c], kNaN, kNaN});
  }
}

// Whether the scores can be read as probabilities (calibration, Brier score and log loss need
// them): all in [0, 1], and each row summing to 1 when there are several columns.
bool scores_are_probabilities(const EvaluationInput& input, std::size_t n, std::size_t s) {
  if (s == 0) return false;
  if (s > 1) return first_non_probability_row(input, n, s) == n;
  for (double v : input.scores) {
    if (v < 0 || v > 1) return false;
  }
  return true;
}

// Binary headlines after accuracy: rates of the positive class, then the score-based ones
// (ranking, and with probabilities Brier score, log loss, ECE and the reliability table).
void add_binary_headlines(Problem& p, const EvaluationInput& input, const EvaluateParams& params,
                          Evaluation& ev, std::vector<Headline>& headlines) {
  auto rate = [&p](double BinaryRates::*field) {
    return [&p, field](std::span<const double> w) {
      const auto r = binary_rates(p.y_true, p.y_pred, p.positive, w);
      return r.*field;
    };
  };
  headlines.push_back({"precision", rate(&BinaryRates::precision)});
  headlines.push_back({"recall", rate(&BinaryRates::recall)});
  headlines.push_back({"specificity", rate(&BinaryRates::specificity)});
  headlines.push_back({"F1", rate(&BinaryRates::f1)});
  headlines.push_back({"MCC", rate(&BinaryRates::mcc)});
  if (p.s == 0) return;
  const std::size_t n = p.n;
  p.is_positive.resize(n);
  for (std::size_t i = 0; i < n; ++i) p.is_positive[i] = p.y_true[i] == p.positive;
  p.ranked_binary.emplace(p.is_positive, p.binary_score);
  headlines.push_back(
      {"ROC AUC", [&p](std::span<const double> w) { return p.ranked_binary->roc_auc(w); }});
  headlines.push_back({fmt::format("average precision ({})", to_string(params.ap.method)),
                       [&p, &params](std::span<const double> w) {
                         return p.ranked_binary->average_precision(w, params.ap);
                       }});
  if (!p.probabilities) return;
  headlines.push_back({"Brier score", [&p](std::span<const double> w) {
                         return brier_score_loss(p.y_true, p.positive, p.binary_score, w);
                       }});
  // Two columns in class-code order, so the positive class may be either code.
  auto two_columns = std::make_shared<std::vector<double>>(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    (*two_columns)[2 * i + p.positive] = p.binary_score[i];
    (*two_columns)[2 * i + 1 - p.positive] = 1 - p.binary_score[i];
  }
  headlines.push_back({"log loss", [&p, two_columns](std::span<const double> w) {
                         return log_loss(p.y_true, 2, *two_columns, 2, kLogLossEps, true, w);
                       }});
  headlines.push_back({"ECE", [&p, &params](std::span<const double> w) {
                         return calibration_error_binary(p.y_true, p.positive, p.binary_score,
                                                         params.calibration, w)
                             .error;
                       }});
  ev.calibration = calibration_error_binary(p.y_true, p.positive, p.binary_score,
                                            params.calibration, input.weights);
}

// Binary: the positive class's precision-recall and ROC curves, and its AP and AUC.
void add_binary_curves(const Problem& p, const EvaluationInput& input, const EvaluateParams& params,
                       Evaluation& ev) {
  if (p.s == 0) return;
  auto pr = precision_recall_curve(p.is_positive, p.binary_score, input.weights, true);
  CurveSeries pr_series{ev.positive_class, pr.recall, pr.precision,
                        interpolated_precision(pr.precision, pr.recall),
                        p.ranked_binary->average_precision(p.base, params.ap)};
  auto roc = roc_curve(p.is_positive, p.binary_score, input.weights, true);
  CurveSeries roc_series{ev.positive_class, roc.fpr, roc.tpr, {}, p.ranked_binary->roc_auc(p.base)};
  ev.per_class[p.positive].roc_auc = roc_series.area;
  ev.per_class[p.positive].average_precision = pr_series.area;
  ev.pr_curves.push_back(std::move(pr_series));
  ev.roc_curves.push_back(std::move(roc_series));
}

// Multi-class headlines after accuracy: macro and weighted averages, MCC, then the score-based
// ones (one-vs-rest AUC and mAP, and with probabilities log loss, top-label ECE and its table).
void add_multiclass_headlines(Problem& p, const EvaluationInput& input,
                              const EvaluateParams& params, Evaluation& ev,
                              std::vector<Headline>& headlines) {
  const std::int32_t k = p.k;
  const std::size_t n = p.n;
  auto averaged = [&p, k](Average average, int which) {
    return [&p, k, average, which](std::span<const double> w) {
      PrfParams prf;
      prf.average = average;
      const auto r = precision_recall_fscore(label_counts(p.y_true, p.y_pred, k, w), prf);
      return which == 0 ? r.precision[0] : which == 1 ? r.recall[0] : r.fscore[0];
    };
  };
  headlines.push_back({"precision (macro)", averaged(Average::macro, 0)});
  headlines.push_back({"recall (macro)", averaged(Average::macro, 1)});
  headlines.push_back({"F1 (macro)", averaged(Average::macro, 2)});
  headlines.push_back({"F1 (weighted)", averaged(Average::weighted, 2)});
  headlines.push_back({"MCC", [&p, k](std::span<const double> w) {
                         return matthews_corrcoef(p.y_true, p.y_pred, k, w);
                       }});
  if (p.s == 0) return;
  p.class_truth.resize(k);
  p.ranked_class.resize(k);
  for (std::int32_t c = 0; c < k; ++c) {
    p.class_truth[c].resize(n);
    for (std::size_t i = 0; i < n; ++i) p.class_truth[c][i] = p.y_true[i] == c;
    p.ranked_class[c].emplace(p.class_truth[c], p.class_scores[c]);
  }
  // Means over the classes that have both positives and negatives under the weights.
  auto class_mean = [&p, &params, k, n](bool auc) {
    return [&p, &params, k, n, auc](std::span<const double> w) {
      double sum = 0;
      int count = 0;
      for (std::int32_t c = 0; c < k; ++c) {
        double pos = 0, total = 0;
        for (std::size_t i = 0; i < n; ++i) {
          total += w[i];
          if (p.class_truth[c][i]) pos += w[i];
        }
        if (pos <= 0 || (auc && pos >= total)) continue;
        sum += auc ? p.ranked_class[c]->roc_auc(w)
                   : p.ranked_class[c]->average_precision(w, params.ap);
        ++count;
      }
      return count ? sum / count : kNaN;
    };
  };
  headlines.push_back({"ROC AUC (one-vs-rest, macro)", class_mean(true)});
  headlines.push_back({fmt::format("mAP ({})", to_string(params.ap.method)), class_mean(false)});
  if (!p.probabilities) return;
  const std::size_t s = p.s;
  headlines.push_back({"log loss", [&p, &input, k, s](std::span<const double> w) {
                         return log_loss(p.y_true, k, input.scores, s, kLogLossEps, true, w);
                       }});
  headlines.push_back(
      {"ECE (top label)", [&p, &input, &params, s](std::span<const double> w) {
         return calibration_error_top_label(p.y_true, input.scores, s, params.calibration, w).error;
       }});
  ev.calibration =
      calibration_error_top_label(p.y_true, input.scores, s, params.calibration, input.weights);
}

// Multi-class: each class's one-vs-rest curves and its AP and AUC. A class without positives
// gets no curve; one without negatives no ROC curve.
void add_multiclass_curves(const Problem& p, const EvaluationInput& input,
                           const EvaluateParams& params, Evaluation& ev) {
  if (p.s == 0) return;
  for (std::int32_t c = 0; c < p.k; ++c) {
    if (ev.per_class[c].support <= 0) continue;  // no positives: no curve
    const bool has_negatives = ev.per_class[c].support < ev.total_weight;
    auto pr = precision_recall_curve(p.class_truth[c], p.class_scores[c], input.weights, true);
    CurveSeries pr_series{ev.classes[c], pr.recall, pr.precision,
                          interpolated_precision(pr.precision, pr.recall),
                          p.ranked_class[c]->average_precision(p.base, params.ap)};
    ev.per_class[c].average_precision = pr_series.area;
    ev.pr_curves.push_back(std::move(pr_series));
    if (has_negatives) {
      auto roc = roc_curve(p.class_truth[c], p.class_scores[c], input.weights, true);
      CurveSeries roc_series{
          ev.classes[c], roc.fpr, roc.tpr, {}, p.ranked_class[c]->roc_auc(p.base)};
      ev.per_class[c].roc_auc = roc_series.area;
      ev.roc_curves.push_back(std::move(roc_series));
    }
  }
}

// Scores that rank a class below chance beyond doubt: most often negated scores, the wrong
// positive class, or score columns in another order than the sorted classes.
void flag_inverted_scores(const Problem& p, Evaluation& ev) {
  if (p.s == 0) return;
  std::vector<std::string> lines;
  auto check = [&](const RankedScores& ranked, std::int32_t c) {
    const auto r = ranked.roc_auc_variance(p.base);
    if (!auc_below_chance(r.auc, r.variance)) return;
    ev.inverted_classes.push_back(ev.classes[c]);
    lines.push_back(fmt::format("ROC AUC of class {} is {:.4f} (95% DeLong upper bound {:.4f})",
                                quote_found(ev.classes[c]), r.auc,
                                r.auc + kInvertedAucZ * std::sqrt(r.variance)));
  };
  if (ev.binary) {
    check(*p.ranked_binary, p.positive);
  } else {
    for (std::int32_t c = 0; c < p.k; ++c) {
      if (p.ranked_class[c]) check(*p.ranked_class[c], c);
    }
  }
  if (lines.empty()) return;
  const std::string note = fmt::format(
      "{}: below 0.5 beyond chance, so the scores rank {} lower, not higher; they may be "
      "inverted: {}",
      fmt::join(lines, "; "), ev.binary ? "the positive class" : "these classes",
      ev.binary ? "negate them, or check which class is positive (--pos-label, Python: pos_label)"
                : "check that the score columns follow the sorted classes and that higher "
                  "means more likely");
  warn(note);
  ev.notes.push_back(note);
}

// Each headline's value on the full data, with its bootstrap interval when resamples are asked
// for (all headlines share the same resamples).
void summarise(const std::vector<Headline>& headlines, const Problem& p,
               const EvaluationInput& input, const EvaluateParams& params, Evaluation& ev) {
  std::vector<WeightedMetric> metric_fns;
  std::vector<std::string> names;
  for (const auto& h : headlines) {
    metric_fns.push_back(h.metric);
    names.push_back(h.name);
    ev.summary.push_back({h.name, h.metric(p.base), kNaN, kNaN});
  }
  if (params.bootstrap.n_resamples > 0) {
    const auto intervals = bootstrap_many(p.n, metric_fns, input.weights, params.bootstrap, names);
    for (std::size_t m = 0; m < intervals.size(); ++m) {
      ev.summary[m].low = intervals[m].low;
      ev.summary[m].high = intervals[m].high;
    }
  }
}

}  // namespace

bool auc_below_chance(double auc, double variance) {
  return auc + kInvertedAucZ * std::sqrt(variance) < 0.5;
}

Evaluation evaluate(EvaluationInput input, const EvaluateParams& params) {
  UniqueWarnings unique_warnings;
  const std::int32_t k = check_input(input, params);
  const std::size_t n = input.y_true.size();

  Evaluation ev;
  ev.params = params;
  ev.n_samples = n;
  ev.weighted = !input.weights.empty();
  ev.total_weight =
      ev.weighted ? std::accumulate(input.weights.begin(), input.weights.end(), 0.0) : double(n);
  ev.classes = input.classes;
  ev.binary = k == 2;

  Problem p;
  p.n = n;
  p.s = input.n_score_columns;
  p.k = k;
  p.y_true = input.y_true;
  p.base = input.weights;
  if (p.base.empty()) {
    p.ones.assign(n, 1.0);
    p.base = p.ones;
  }
  p.positive = positive_code(ev, k, params);
  split_scores(p, input, ev.binary);
  predict_labels(p, input, params, ev);
  confusion_and_per_class(p, input, ev);

  p.probabilities = scores_are_probabilities(input, n, p.s);
  if (p.s > 0 && !p.probabilities) {
    ev.notes.push_back(
        p.s == 1 ? "scores are not probabilities in [0, 1]: no calibration, Brier score or log loss"
                 : "score rows are not probabilities summing to 1: no calibration or log loss");
  }

  std::vector<Headline> headlines;
  headlines.push_back({"accuracy", [&p](std::span<const double> w) {
                         return accuracy_score(p.y_true, p.y_pred, p.k, {}, w);
                       }});
  headlines.push_back({"balanced accuracy", [&p](std::span<const double> w) {
                         return balanced_accuracy_score(p.y_true, p.y_pred, p.k, w);
                       }});
  if (ev.binary) {
    add_binary_headlines(p, input, params, ev, headlines);
    add_binary_curves(p, input, params, ev);
  } else {
    add_multiclass_headlines(p, input, params, ev, headlines);
    add_multiclass_curves(p, input, params, ev);
  }
  for (auto& c : ev.pr_curves) thin_curve(c);
  for (auto& c : ev.roc_curves) thin_curve(c);
  flag_inverted_scores(p, ev);

  summarise(headlines, p, input, params, ev);
  unique_warnings.flush();
  return ev;
}

void check_pos_label(std::string_view name, std::string_view label) {
  if (label.empty()) {
    fail("{}expected a class label, found an empty string",
         name.empty() ? std::string() : std::string(name) + ": ");
  }
}

}  // namespace assay::metrics

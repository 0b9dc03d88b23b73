// compare(): prepares the problem (task, metrics, pairs, groups), then runs the paired
// bootstrap, the jackknife of BCa, the tests and the corrections, and writes the conclusions.
#include "assay/compare/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "assay/compare/statistics.hpp"
#include "assay/core/error.hpp"
#include "assay/core/options.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/classification.hpp"
#include "assay/metrics/scaled_weights.hpp"
#include "compare/compare_engine.hpp"
#include "compare/model_metrics.hpp"

namespace assay::compare {
namespace {

using detail::GroupData;
using detail::ModelMetrics;
using detail::ProblemShape;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Task infer_task(const CompareInput& in) {
  if (in.task != Task::automatic) return in.task;
  if (!in.targets.empty() || in.classes.empty()) return Task::regression;
  return in.classes.size() == 2 ? Task::binary : Task::multiclass;
}

void check_model(const ModelScores& m, std::size_t n, Task task, std::size_t k) {
  if (m.n_columns == 0 || m.scores.size() != n * m.n_columns) {
    fail("model {}: expected {} values ({} examples x {} column(s)), found {}", quote_found(m.name),
         n * std::max<std::size_t>(m.n_columns, 1), n, m.n_columns, m.scores.size());
  }
  for (std::size_t i = 0; i < m.scores.size(); ++i) {
    if (!std::isfinite(m.scores[i])) {
      fail("model {}: expected finite scores, found {} at example {}", quote_found(m.name),
           m.scores[i], i / m.n_columns);
    }
  }
  const bool one = m.n_columns == 1;
  if (task == Task::multiclass && !one && m.n_columns != k) {
    fail(
        "model {}: expected 1 column of predicted classes or {} score columns (one per class), "
        "found {}",
        quote_found(m.name), k, m.n_columns);
  }
  if (task != Task::multiclass && !one) {
    fail("model {}: expected 1 score column for {} labels, found {}", quote_found(m.name),
         to_string(task), m.n_columns);
  }
  if (m.predictions) {
    for (double v : m.scores) {
      if (v < 0 || v >= static_cast<double>(k) || v != std::floor(v)) {
        fail("model {}: predicted class code {} is not one of the {} classes", quote_found(m.name),
             v, k);
      }
    }
  }
}

bool are_probabilities(const ModelScores& m, Task task) {
  if (m.predictions) return false;
  for (double v : m.scores) {
    if (v < 0 || v > 1) return false;
  }
  if (task != Task::multiclass || m.n_columns == 1) return task == Task::binary;
  for (std::size_t i = 0; i * m.n_columns < m.scores.size(); ++i) {
    double sum = 0;
    for (std::size_t c = 0; c < m.n_columns; ++c) sum += m.scores[i * m.n_columns + c];
    if (std::abs(sum - 1) > 1e-8 * static_cast<double>(m.n_columns)) return false;
  }
  return true;
}

std::vector<std::string> default_metrics(Task task, bool scores, bool probabilities) {
  switch (task) {
    case Task::binary: {
      std::vector<std::string> m = {"roc_auc", "average_precision", "f1", "accuracy"};
      if (probabilities) m.push_back("brier");
      return m;
    }
    case Task::multiclass: {
      std::vector<std::string> m = {"accuracy", "f1_macro"};
      if (scores) m.push_back("roc_auc");
      return m;
    }
    default:
      return {"mae", "rmse", "r2"};
  }
}

}  // namespace

namespace detail {
namespace {

std::string kind_of(const ModelScores& m) {
  if (m.predictions) return "predicted classes";
  return m.n_columns == 1 ? "one score column" : fmt::format("{} score columns", m.n_columns);
}

void check_labels(const CompareInput& in, Task task, std::size_t n, const CompareParams& params) {
  const std::size_t k = in.classes.size();
  if (task == Task::regression) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(in.targets[i])) {
        fail("targets: expected finite values, found {} at example {}", in.targets[i], i);
      }
    }
    return;
  }
  if (k < 2) {
    fail(
        "comparing classifiers needs two or more classes, found {} (for numeric targets, use "
        "task regression)",
        k);
  }
  if (k > params.max_classes && params.max_classes > 0) {
    fail("{} classes is more than max_classes = {}", k, params.max_classes);
  }
  if (task == Task::binary && k != 2) {
    fail("binary comparison needs exactly two classes, found {}", k);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (in.y_true[i] < 0 || static_cast<std::size_t>(in.y_true[i]) >= k) {
      fail("y_true: code {} at example {} is not one of the {} classes", in.y_true[i], i, k);
    }
  }
}

std::int32_t positive_code(const CompareInput& in, const CompareParams& params) {
  if (params.pos_label.empty()) return 1;
  auto it = std::find(in.classes.begin(), in.classes.end(), params.pos_label);
  if (it == in.classes.end()) {
    fail("pos_label {} is not one of the classes ({}, {})", quote_found(params.pos_label),
         in.classes[0], in.classes[1]);
  }
  return static_cast<std::int32_t>(it - in.classes.begin());
}

void check_models(const CompareInput& in, Problem& p) {
  for (std::size_t m = 0; m < in.models.size(); ++m) {
    const auto& model = in.models[m];
    if (model.name.empty()) fail("model {}: expected a name, found none", m + 1);
    for (std::size_t j = 0; j < m; ++j) {
      if (in.models[j].name == model.name) fail("two models are named {}", quote_found(model.name));
    }
    check_model(model, p.n, p.shape.task, in.classes.size());
    p.probabilities.push_back(are_probabilities(model, p.shape.task));
  }
}

// The canonical metric names, each checked against what every model gives.
void choose_metrics(const CompareInput& in, const CompareParams& params, Problem& p) {
  const bool scores = std::none_of(in.models.begin(), in.models.end(),
                                   [](const ModelScores& m) { return m.predictions; });
  const bool probabilities =
      std::all_of(p.probabilities.begin(), p.probabilities.end(), [](bool b) { return b; });
  if (params.metrics.empty()) p.metrics = default_metrics(p.shape.task, scores, probabilities);
  for (const auto& name : params.metrics) {
    const std::string canonical = canonical_metric(name, p.shape.task);
    if (std::find(p.metrics.begin(), p.metrics.end(), canonical) != p.metrics.end()) {
      fail("metric {} is asked for twice", quote_found(name));
    }
    p.metrics.push_back(canonical);
  }
  for (const auto& name : p.metrics) {
    for (std::size_t m = 0; m < in.models.size(); ++m) {
      if (needs_scores(name) && in.models[m].predictions) {
        fail("metric {} needs scores; model {} gives predicted classes", name,
             quote_found(in.models[m].name));
      }
      if (needs_probabilities(name) && !p.probabilities[m]) {
        fail("metric {} needs probabilities (in [0, 1]{}); model {} has other scores", name,
             p.shape.task == Task::multiclass ? ", rows summing to 1" : "",
             quote_found(in.models[m].name));
      }
    }
    p.higher_is_better.push_back(metric_higher_is_better(name));
  }
}

// Each model against the baseline, or each pair once (model = the later, baseline = the earlier).
void choose_pairs(const CompareInput& in, const CompareParams& params, Problem& p) {
  if (!params.baseline.empty()) {
    auto it = std::find_if(in.models.begin(), in.models.end(),
                           [&](const ModelScores& m) { return m.name == params.baseline; });
    if (it == in.models.end()) {
      std::string names;
      for (const auto& m : in.models) names += (names.empty() ? "" : ", ") + m.name;
      fail("baseline {} is not one of the models ({})", quote_found(params.baseline), names);
    }
    p.baseline = static_cast<std::size_t>(it - in.models.begin());
  }
  for (std::size_t a = 0; a < in.models.size(); ++a) {
    if (params.all_pairs) {
      for (std::size_t b = 0; b < a; ++b) p.pairs.push_back({a, b});
    } else if (a != p.baseline) {
      p.pairs.push_back({a, p.baseline});
    }
  }
}

// The whole data, then one group per used value of each slicing column.
void make_groups(const CompareInput& in, Problem& p) {
  p.groups.push_back({"", "", {}});
  for (const auto& column : in.slices) {
    if (column.codes.size() != p.n) {
      fail("slice column {}: expected {} values, found {}", quote_found(column.name), p.n,
           column.codes.size());
    }
    std::vector<std::vector<std::uint32_t>> members(column.values.size());
    for (std::size_t i = 0; i < p.n; ++i) {
      const auto c = column.codes[i];
      if (c < 0 || static_cast<std::size_t>(c) >= column.values.size()) {
        fail("slice column {}: code {} at example {} names no value", quote_found(column.name), c,
             i);
      }
      members[static_cast<std::size_t>(c)].push_back(static_cast<std::uint32_t>(i));
    }
    const auto used =
        std::count_if(members.begin(), members.end(), [](const auto& m) { return !m.empty(); });
    if (used < 2) {
      fail("slice column {}: expected two or more values, found {}: nothing to compare across",
           quote_found(column.name),
           used == 0 ? std::string("none") : quote_found(column.values[column.codes[0]]));
    }
    for (std::size_t v = 0; v < members.size(); ++v) {
      if (!members[v].empty()) {
        p.groups.push_back({column.name, column.values[v], std::move(members[v])});
      }
    }
  }
}

// The permutation test swaps a pair's predictions example by example: both must be the same
// kind (scores, or predicted classes) with the same columns.
void check_swappable(const CompareInput& in, const Problem& p) {
  for (const auto& [a, b] : p.pairs) {
    const auto& x = in.models[a];
    const auto& y = in.models[b];
    if (x.predictions != y.predictions || x.n_columns != y.n_columns) {
      fail(
          "test permutation: models {} and {} give different kinds of predictions ({} and {}), "
          "which cannot be swapped example by example; use test bootstrap",
          quote_found(x.name), quote_found(y.name), kind_of(x), kind_of(y));
    }
  }
}

// Every group, model and metric keeps one value per resample and per jackknife group: a slicing
// column of ids would need more memory than there is, so it is refused before any work.
void check_replicate_memory(const Problem& p, std::size_t models, const CompareParams& params) {
  const double values = static_cast<double>(p.groups.size()) * static_cast<double>(models) *
                        static_cast<double>(p.metrics.size()) *
                        static_cast<double>(params.bootstrap.n_resamples + params.jackknife_groups);
  const double bytes = 8 * values;
  if (params.bootstrap.n_resamples > 0 && bytes > static_cast<double>(allocatable_bytes())) {
    fail(
        "{} groups (the whole data and {} slices) x {} models x {} metrics x {} resamples need "
        "{:.1f} GB, more than the {:.1f} GB this process can allocate: slice by a column with "
        "fewer values, or lower the resamples",
        p.groups.size(), p.groups.size() - 1, models, p.metrics.size(),
        params.bootstrap.n_resamples, bytes / 1e9, static_cast<double>(allocatable_bytes()) / 1e9);
  }
}

}  // namespace

// Everything prepare() decides before any metric is computed.
Problem prepare(CompareInput& in, const CompareParams& params) {
  Problem p;
  p.shape.task = infer_task(in);
  p.n = p.shape.task == Task::regression ? in.targets.size() : in.y_true.size();
  if (p.n == 0) fail("compare needs at least one example, found 0");
  if (in.models.size() < 2) fail("compare needs two or more models, found {}", in.models.size());
  check_labels(in, p.shape.task, p.n, params);
  check_weights(in.weights, p.n);
  p.shape.n_classes = static_cast<std::int32_t>(in.classes.size());
  p.shape.threshold = params.threshold;
  p.shape.ap = params.ap;
  if (p.shape.task == Task::binary) p.shape.positive = positive_code(in, params);
  check_models(in, p);
  choose_metrics(in, params, p);
  choose_pairs(in, params, p);
  if (params.test == TestKind::permutation) check_swappable(in, p);
  make_groups(in, p);
  check_replicate_memory(p, in.models.size(), params);
  return p;
}

}  // namespace detail

CompareResult compare(CompareInput input, const CompareParams& params) {
  metrics::check_bootstrap_params(params.bootstrap, 1, "resamples");
  if (params.test == TestKind::permutation && params.n_permutations == 0) {
    fail("permutations: expected at least 1 with the permutation test, found 0");
  }
  check_probability("confidence", params.bootstrap.confidence);
  detail::Problem problem = detail::prepare(input, params);
  return detail::run(problem, input, params);
}

}  // namespace assay::compare

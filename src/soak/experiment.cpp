#include "assay/soak/experiment.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/error.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "assay/learners/learner.hpp"
#include "assay/metrics/ranking.hpp"

namespace assay::soak {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Every measure divided by 0: say why instead of leaving a bare NaN.
void no_test_weight(SplitScore& out, std::size_t n_test) {
  out.error_percent = out.auc = out.mse = out.mae = kNaN;
  out.failure = fmt::format("the {} test rows have total weight 0", n_test);
}

// Error measures of one split's predictions; `out` is rows x n_outputs.
void score(const learners::Dataset& data, std::span<const std::uint32_t> test,
           const std::vector<double>& out, std::size_t n_outputs, SoakResultRow& row,
           bool& auc_one_class) {
  std::vector<double> weights;
  if (!data.weights.empty()) {
    weights.resize(test.size());
    for (std::size_t r = 0; r < test.size(); ++r) weights[r] = data.weights[test[r]];
  }
  SplitScore scored;
  if (data.task == learners::TaskKind::classification) {
    ASSAY_ASSERT(n_outputs == data.n_classes());
    std::vector<std::int32_t> y(test.size()), predicted(test.size());
    std::vector<double> positive(n_outputs == 2 ? test.size() : 0);
    for (std::size_t r = 0; r < test.size(); ++r) {
      const double* p = out.data() + r * n_outputs;
      predicted[r] = static_cast<std::int32_t>(std::max_element(p, p + n_outputs) - p);  // first
      y[r] = data.y_class[test[r]];
      if (!positive.empty()) positive[r] = p[1];
    }
    scored = score_classification(y, predicted, positive, weights, data.n_classes());
  } else {
    ASSAY_ASSERT(n_outputs == 1);
    std::vector<double> y(test.size());
    for (std::size_t r = 0; r < test.size(); ++r) y[r] = data.y_value[test[r]];
    scored = score_regression(y, out, weights);
  }
  row.error_percent = scored.error_percent;
  row.auc = scored.auc;
  row.mse = scored.mse;
  row.mae = scored.mae;
  if (!scored.failure.empty()) row.failure = std::move(scored.failure);
  if (scored.auc_one_class) auc_one_class = true;
}

// The identity columns of split `split`'s row; its measures start as NA.
SoakResultRow describe_unit(const SoakTask& task, const learners::Learner& learner,
                            std::size_t split) {
  const SplitInfo& info = task.splits.info(split);
  SoakResultRow row;
  row.data = task.dataset.name;
  row.learner = learner.name();
  row.test_subset =
      task.splits.design().subset_names.at(static_cast<std::size_t>(info.test_subset));
  row.train_subsets = info.train_subsets;
  row.test_fold = info.test_fold;
  row.seed = info.seed;
  row.groups = info.groups;
  row.n_train_groups = info.n_train_groups;
  row.iteration = info.iteration;
  row.error_percent = row.auc = row.mse = row.mae = kNaN;
  row.train_seconds = row.predict_seconds = kNaN;
  return row;
}

// Predicts split `split`'s test rows (given) with `model` and scores them into `result`.
void evaluate(const SoakTask& task, const learners::Model& model,
              const std::vector<std::uint32_t>& test, SoakUnitResult& result) {
  SoakResultRow& row = result.row;
  const std::size_t k = model.n_outputs();
  std::vector<double> out(test.size() * k);
  const auto t0 = std::chrono::steady_clock::now();
  model.predict(task.dataset, test, out);
  row.predict_seconds = seconds_since(t0);
  const Json description = model.description();
  if (!description.empty()) row.hyperparameters = description.dump();
  score(task.dataset, test, out, k, row, result.auc_one_class);
}

// Fits `learner` once on the train rows that `splits` share (train twins, the first being the
// twin of all, see SoakSplits::train_twin) and scores that model on each split's test rows;
// results[j] is splits[j]'s. Every row reports the one fit's time. Row lists are built here, so
// only the fits in flight hold them.
std::vector<SoakUnitResult> run_shared_fit(const SoakTask& task, const learners::Learner& learner,
                                           std::span<const std::size_t> splits, std::uint64_t seed,
                                           int threads) {
  std::vector<SoakUnitResult> results(splits.size());
  std::vector<std::vector<std::uint32_t>> tests(splits.size());
  bool any_test = false;
  for (std::size_t j = 0; j < splits.size(); ++j) {
    results[j].row = describe_unit(task, learner, splits[j]);
    tests[j] = task.splits.test_rows(splits[j]);
    results[j].row.n_test = tests[j].size();
    any_test = any_test || !tests[j].empty();
  }
  const std::vector<std::uint32_t> train = task.splits.train_rows(splits.front());
  const auto fail_all = [&](const std::string& why) {
    for (auto& r : results) r.row.failure = r.row.n_test == 0 ? "empty test set" : why;
  };
  for (auto& r : results) r.row.n_train = train.size();
  if (train.empty()) {
    for (auto& r : results) r.row.failure = "empty train set";
    return results;
  }
  if (!any_test) {
    fail_all("empty test set");
    return results;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<learners::Model> model;
  try {
    model =
        learner.fit(task.dataset, train, learners::FitContext{.seed = seed, .threads = threads});
  } catch (const learners::LearnerFailure& e) {
    fail_all(e.message());
    return results;
  }
  const double train_seconds = seconds_since(t0);
  for (std::size_t j = 0; j < splits.size(); ++j) {
    if (tests[j].empty()) {
      results[j].row.failure = "empty test set";
      continue;
    }
    results[j].row.train_seconds = train_seconds;
    evaluate(task, *model, tests[j], results[j]);
  }
  return results;
}

// FNV-1a: a stable 64-bit number for a learner's name (std::hash may differ between builds).
std::uint64_t name_hash(const std::string& name) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

SplitScore score_classification(std::span<const std::int32_t> y,
                                std::span<const std::int32_t> predicted,
                                std::span<const double> positive_score,
                                std::span<const double> weights, std::size_t n_classes) {
  ASSAY_ASSERT(predicted.size() == y.size());
  ASSAY_ASSERT(weights.empty() || weights.size() == y.size());
  ASSAY_ASSERT(positive_score.empty() || positive_score.size() == y.size());
  const bool weighted = !weights.empty();
  auto weight = [&](std::size_t r) { return weighted ? weights[r] : 1.0; };
  SplitScore out;
  double total = 0, wrong = 0;
  for (std::size_t r = 0; r < y.size(); ++r) {
    const double w = weight(r);
    total += w;
    if (predicted[r] != y[r]) wrong += w;
  }
  out.error_percent = 100.0 * wrong / total;
  if (n_classes == 2 && !positive_score.empty()) {
    std::vector<std::uint8_t> positive(y.size());
    double w_pos = 0, w_neg = 0;
    for (std::size_t r = 0; r < y.size(); ++r) {
      positive[r] = y[r] == 1 ? 1 : 0;
      (positive[r] ? w_pos : w_neg) += weight(r);
    }
    if (w_pos > 0 && w_neg > 0) {
      out.auc = metrics::roc_auc(positive, positive_score, weights);
    } else {
      out.auc_one_class = true;  // one class in the test set: AUC undefined
    }
  }
  if (!(total > 0)) no_test_weight(out, y.size());
  return out;
}

SplitScore score_regression(std::span<const double> y, std::span<const double> predicted,
                            std::span<const double> weights) {
  ASSAY_ASSERT(predicted.size() == y.size());
  ASSAY_ASSERT(weights.empty() || weights.size() == y.size());
  SplitScore out;
  double total = 0, se = 0, ae = 0;
  for (std::size_t r = 0; r < y.size(); ++r) {
    const double w = weights.empty() ? 1.0 : weights[r];
    const double e = predicted[r] - y[r];
    total += w;
    se += w * e * e;
    ae += w * std::fabs(e);
  }
  out.mse = se / total;
  out.mae = ae / total;
  if (!(total > 0)) no_test_weight(out, y.size());
  return out;
}

SoakUnits::SoakUnits(const std::vector<SoakTask>& tasks, std::size_t n_learners)
    : first_(tasks.size() + 1, 0), n_learners_(n_learners), tasks_(&tasks) {
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    first_[t + 1] = first_[t] + n_learners * tasks[t].splits.size();
  }
}

SoakUnit SoakUnits::at(std::size_t u) const {
  ASSAY_ASSERT(u < size());
  const auto t =
      static_cast<std::size_t>(std::upper_bound(first_.begin(), first_.end(), u) - first_.begin()) -
      1;
  const std::size_t local = u - first_[t];
  const std::size_t n_splits = (*tasks_)[t].splits.size();
  return SoakUnit{.task = t, .learner = local / n_splits, .split = local % n_splits};
}

void check_soak_inputs(const std::vector<SoakTask>& tasks,
                       const std::vector<const learners::Learner*>& learners) {
  if (learners.empty()) fail("no learners given, expected at least one");
  for (std::size_t i = 0; i < learners.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (learners[i]->name() == learners[j]->name()) {
        fail("learner {} is listed twice; list each learner once",
             quote_found(learners[i]->name()));
      }
    }
  }
  for (const auto& task : tasks) {
    learners::check_dataset(task.dataset);
    const std::size_t design_rows = task.splits.design().subset.size();
    if (design_rows != task.dataset.n_rows) {
      fail("data set {}: the split design has {} rows but the data set has {}",
           quote_found(task.dataset.name), design_rows, task.dataset.n_rows);
    }
    for (const auto* learner : learners) {
      if (!learner->supports(task.dataset.task)) {
        fail("learner {} does not support {} (data set {})", quote_found(learner->name()),
             to_string(task.dataset.task), quote_found(task.dataset.name));
      }
    }
  }
}

namespace {

// The seed of the model that (task, learner) fits on split `twin`'s train rows, from (data set,
// learner name, twin split): a learner's results do not depend on which other learners run
// beside it or in which order they are listed, and equal train sets get the same model.
std::uint64_t fit_seed(std::uint64_t seed, std::size_t task, const learners::Learner& learner,
                       std::size_t twin) {
  return Rng(seed).split(task).split(name_hash(learner.name())).split(twin).next();
}

// One model's work in run_soak: the units of one (task, learner) whose splits are train twins,
// in unit order; the first unit's split is the twin of all.
struct SharedFit {
  std::size_t task = 0, learner = 0;
  std::size_t first_unit = 0;  // unit of split 0 of this (task, learner)
  std::vector<std::size_t> splits;
};

// The fits of an experiment, in the order of their first unit (mlr3's order puts the All train
// sets, the largest, first, which balances the workers' loads).
std::vector<SharedFit> list_shared_fits(const std::vector<SoakTask>& tasks,
                                        std::size_t n_learners) {
  std::vector<SharedFit> fits;
  std::size_t first_unit = 0;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const SoakSplits& splits = tasks[t].splits;
    for (std::size_t l = 0; l < n_learners; ++l, first_unit += splits.size()) {
      std::vector<std::size_t> fit_of_twin(splits.size());
      for (std::size_t i = 0; i < splits.size(); ++i) {
        const std::size_t twin = splits.train_twin(i);
        if (twin == i) {
          fit_of_twin[i] = fits.size();
          fits.push_back(
              SharedFit{.task = t, .learner = l, .first_unit = first_unit, .splits = {}});
        }
        fits[fit_of_twin[twin]].splits.push_back(i);
      }
    }
  }
  return fits;
}

}  // namespace

SoakUnitResult run_soak_unit(const std::vector<SoakTask>& tasks,
                             const std::vector<const learners::Learner*>& learners, std::size_t u,
                             std::uint64_t seed, int threads) {
  const SoakUnit unit = SoakUnits(tasks, learners.size()).at(u);
  const auto& learner = *learners[unit.learner];
  const SoakTask& task = tasks[unit.task];
  const std::size_t twin = task.splits.train_twin(unit.split);
  const std::size_t split[] = {unit.split};
  return std::move(
      run_shared_fit(task, learner, split, fit_seed(seed, unit.task, learner, twin), threads)
          .front());
}

void warn_soak_units(const std::vector<SoakTask>& tasks,
                     const std::vector<const learners::Learner*>& learners,
                     const std::vector<SoakUnitResult>& units) {
  const SoakUnits layout(tasks, learners.size());
  ASSAY_ASSERT(units.size() == layout.size());
  std::size_t begin = 0;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const std::size_t n_splits = tasks[t].splits.size();
    for (std::size_t l = 0; l < learners.size(); ++l, begin += n_splits) {
      std::size_t failed = 0, one_class = 0;
      const SoakResultRow* first_failed = nullptr;
      for (std::size_t u = begin; u < begin + n_splits; ++u) {
        if (!units[u].row.failure.empty()) {
          if (failed++ == 0) first_failed = &units[u].row;
        }
        if (units[u].auc_one_class) ++one_class;
      }
      if (failed > 0) {
        warn(fmt::format(
            "learner {} on data set {}: {} of {} splits gave NA; first: iteration {} "
            "({} train, test subset {}, fold {}): {}",
            quote_found(learners[l]->name()), quote_found(tasks[t].dataset.name), failed, n_splits,
            first_failed->iteration, to_string(first_failed->train_subsets),
            first_failed->test_subset, first_failed->test_fold, first_failed->failure));
      }
      if (one_class > 0) {
        warn(
            fmt::format("learner {} on data set {}: AUC is NaN on {} of {} splits (one class in "
                        "the test set)",
                        quote_found(learners[l]->name()), quote_found(tasks[t].dataset.name),
                        one_class, n_splits));
      }
    }
  }
}

std::vector<SoakUnitResult> run_soak_units(const std::vector<SoakTask>& tasks,
                                           const std::vector<const learners::Learner*>& learners,
                                           std::uint64_t seed, int threads,
                                           const std::string& progress_label) {
  std::vector<SoakUnitResult> units(SoakUnits(tasks, learners.size()).size());
  // One model per distinct train set: units whose splits are train twins share a fit. Threads
  // left over when there are fewer fits than workers go to the learners.
  const std::vector<SharedFit> fits = list_shared_fits(tasks, learners.size());
  const int workers = resolve_threads(threads, fits.size());
  const int total_threads = threads > 0 ? threads : default_threads();
  const int learner_threads = std::max(1, total_threads / std::max(1, workers));
  Progress progress(progress_label, units.size());
  parallel_for(
      fits.size(),
      [&](std::size_t f) {
        const SharedFit& fit = fits[f];
        const auto& learner = *learners[fit.learner];
        auto results =
            run_shared_fit(tasks[fit.task], learner, fit.splits,
                           fit_seed(seed, fit.task, learner, fit.splits[0]), learner_threads);
        for (std::size_t j = 0; j < results.size(); ++j) {
          units[fit.first_unit + fit.splits[j]] = std::move(results[j]);
        }
        progress.advance(results.size());
      },
      threads);
  progress.finish();
  return units;
}

SoakResults run_soak(const std::vector<SoakTask>& tasks,
                     const std::vector<const learners::Learner*>& learners,
                     const SoakParams& params) {
  check_soak_inputs(tasks, learners);
  std::vector<SoakUnitResult> units = run_soak_units(tasks, learners, params.seed, params.threads);
  const std::size_t n_units = units.size();
  warn_soak_units(tasks, learners, units);
  SoakResults results;
  results.rows.reserve(n_units);
  for (auto& unit : units) results.rows.push_back(std::move(unit.row));
  return results;
}

std::vector<std::unique_ptr<learners::Learner>> make_soak_learners(const SoakParams& params) {
  if (!params.learner_params.is_null() && !params.learner_params.is_object()) {
    fail("learner parameters must be a JSON object keyed by learner name, found {}",
         params.learner_params.dump());
  }
  if (params.learner_params.is_object()) {
    for (const auto& [name, value] : params.learner_params.items()) {
      if (std::find(params.learners.begin(), params.learners.end(), name) == params.learners.end())
        fail("parameters given for learner {}, which is not among the learners ({})",
             quote_found(name), fmt::join(params.learners, ", "));
    }
  }
  std::vector<std::unique_ptr<learners::Learner>> owned;
  for (const auto& name : params.learners) {
    const auto it = params.learner_params.is_object() ? params.learner_params.find(name)
                                                      : params.learner_params.end();
    owned.push_back(
        learners::make_learner(name, it != params.learner_params.end() ? *it : Json::object()));
  }
  return owned;
}

SoakResults run_soak(const std::vector<SoakTask>& tasks, const SoakParams& params) {
  const auto owned = make_soak_learners(params);
  std::vector<const learners::Learner*> learners;
  for (const auto& l : owned) learners.push_back(l.get());
  return run_soak(tasks, learners, params);
}

// ---------------------------------------------------------------------------------------------
// Tables and JSON.

namespace {

// The columns of results_table, in SoakResultRow order.
// clang-format off
constexpr const char* kColumnNames[] = {
    "data", "learner", "test.subset", "train.subsets", "test.fold", "seed", "groups",
    "n.train.groups", "iteration", "n_train", "n_test", "error_percent", "auc", "mse", "mae",
    "train_seconds", "predict_seconds", "hyperparameters", "failure"};
// clang-format on

std::string format_number(double v) {
  return fmt::format("{}", v);
}

// Cells of a table read back leniently: numbers where text is expected are formatted, and the
// NA spellings of R/pandas in a numeric column ("", "NA", "nan") read as NaN.
std::string text_cell(const Column& c, std::size_t i) {
  if (c.is_categorical()) return c.label(i);
  return std::isnan(c.values[i]) ? std::string() : format_number(c.values[i]);
}

double number_cell(const Table& table, const Column& c, std::size_t i) {
  if (c.is_numeric()) return c.values[i];
  const std::string& s = c.label(i);
  if (s.empty() || s == "NA" || s == "nan" || s == "NaN") return kNaN;
  // A numeric column with "NA" cells reads as text: its other cells are numbers.
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && end == s.data() + s.size()) return v;
  fail_in(table, fmt::format("column \"{}\", data row {}: expected a number, found {}", c.name,
                             i + 1, quote_found(s)));
}

std::int64_t integer_cell(const Table& table, const Column& c, std::size_t i) {
  const double v = number_cell(table, c, i);
  if (!std::isfinite(v) || v != std::floor(v)) {
    fail_in(table, fmt::format("column \"{}\", data row {}: expected an integer, found {}", c.name,
                               i + 1, v));
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace

Table results_table(const SoakResults& results) {
  const std::size_t n = results.rows.size();
  std::vector<std::string> data(n), learner(n), subset(n), train(n), hyper(n), failure(n);
  std::vector<std::vector<double>> num(13, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const auto& r = results.rows[i];
    data[i] = r.data;
    learner[i] = r.learner;
    subset[i] = r.test_subset;
    train[i] = to_string(r.train_subsets);
    hyper[i] = r.hyperparameters;
    failure[i] = r.failure;
    const double values[13] = {double(r.test_fold),
                               double(r.seed),
                               double(r.groups),
                               double(r.n_train_groups),
                               double(r.iteration),
                               double(r.n_train),
                               double(r.n_test),
                               r.error_percent,
                               r.auc,
                               r.mse,
                               r.mae,
                               r.train_seconds,
                               r.predict_seconds};
    for (std::size_t j = 0; j < 13; ++j) num[j][i] = values[j];
  }
  Table table;
  table.add_column(Column::categorical("data", data));
  table.add_column(Column::categorical("learner", learner));
  table.add_column(Column::categorical("test.subset", subset));
  table.add_column(Column::categorical("train.subsets", train));
  for (std::size_t j = 0; j < 13; ++j) {
    table.add_column(Column::numeric(kColumnNames[4 + j], std::move(num[j])));
  }
  table.add_column(Column::categorical("hyperparameters", hyper));
  table.add_column(Column::categorical("failure", failure));
  return table;
}

SoakResults results_from_table(const Table& table) {
  for (const char* required : {"test.subset", "train.subsets", "test.fold"}) {
    if (!table.has_column(required)) {
      fail_in(table, fmt::format("results have no column \"{}\"; columns are: {}", required,
                                 fmt::join(table.names(), ", ")));
    }
  }
  if (!table.has_column("error_percent") && !table.has_column("auc") && !table.has_column("mse") &&
      !table.has_column("mae")) {
    fail_in(table, fmt::format("results have no measure column (error_percent, auc, mse or mae); "
                               "columns are: {}",
                               fmt::join(table.names(), ", ")));
  }
  const std::size_t n = table.n_rows();
  SoakResults results;
  results.rows.resize(n);
  auto text = [&](const char* name, auto set) {
    if (const Column* c = table.find(name)) {
      for (std::size_t i = 0; i < n; ++i) set(results.rows[i], text_cell(*c, i));
    }
  };
  auto number = [&](const char* name, auto set, double missing) {
    const Column* c = table.find(name);
    for (std::size_t i = 0; i < n; ++i) {
      set(results.rows[i], c ? number_cell(table, *c, i) : missing);
    }
  };
  auto integer = [&](const char* name, auto set) {
    if (const Column* c = table.find(name)) {
      for (std::size_t i = 0; i < n; ++i) set(results.rows[i], integer_cell(table, *c, i));
    }
  };
  text("data", [](SoakResultRow& r, std::string s) { r.data = std::move(s); });
  text("learner", [](SoakResultRow& r, std::string s) { r.learner = std::move(s); });
  text("test.subset", [](SoakResultRow& r, std::string s) { r.test_subset = std::move(s); });
  const Column& train = table.column("train.subsets");
  for (std::size_t i = 0; i < n; ++i) {
    const std::string s = text_cell(train, i);
    if (s == "all") {
      results.rows[i].train_subsets = TrainSubsets::all;
    } else if (s == "other") {
      results.rows[i].train_subsets = TrainSubsets::other;
    } else if (s == "same") {
      results.rows[i].train_subsets = TrainSubsets::same;
    } else {
      fail_in(table, fmt::format("column \"train.subsets\", data row {}: expected all, other or "
                                 "same, found {}",
                                 i + 1, quote_found(s)));
    }
  }
  integer("test.fold", [](SoakResultRow& r, std::int64_t v) { r.test_fold = std::int32_t(v); });
  integer("seed", [](SoakResultRow& r, std::int64_t v) { r.seed = std::int32_t(v); });
  integer("groups", [](SoakResultRow& r, std::int64_t v) { r.groups = v; });
  integer("n.train.groups", [](SoakResultRow& r, std::int64_t v) { r.n_train_groups = v; });
  integer("iteration", [](SoakResultRow& r, std::int64_t v) { r.iteration = std::size_t(v); });
  integer("n_train", [](SoakResultRow& r, std::int64_t v) { r.n_train = std::size_t(v); });
  integer("n_test", [](SoakResultRow& r, std::int64_t v) { r.n_test = std::size_t(v); });
  number(
      "error_percent", [](SoakResultRow& r, double v) { r.error_percent = v; }, kNaN);
  number(
      "auc", [](SoakResultRow& r, double v) { r.auc = v; }, kNaN);
  number(
      "mse", [](SoakResultRow& r, double v) { r.mse = v; }, kNaN);
  number(
      "mae", [](SoakResultRow& r, double v) { r.mae = v; }, kNaN);
  number(
      "train_seconds", [](SoakResultRow& r, double v) { r.train_seconds = v; }, kNaN);
  number(
      "predict_seconds", [](SoakResultRow& r, double v) { r.predict_seconds = v; }, kNaN);
  text("hyperparameters",
       [](SoakResultRow& r, std::string s) { r.hyperparameters = std::move(s); });
  text("failure", [](SoakResultRow& r, std::string s) {
    r.failure = (s == "NA") ? std::string() : std::move(s);
  });
  return results;
}

Json results_json(const SoakResults& results) {
  auto number = [](double v) { return std::isnan(v) ? Json(nullptr) : Json(v); };
  Json columns = Json::array();
  for (const char* name : kColumnNames) columns.push_back(name);
  Json rows = Json::array();
  for (const auto& r : results.rows) {
    rows.push_back(Json::array({r.data, r.learner, r.test_subset, to_string(r.train_subsets),
                                r.test_fold, r.seed, r.groups, r.n_train_groups, r.iteration,
                                r.n_train, r.n_test, number(r.error_percent), number(r.auc),
                                number(r.mse), number(r.mae), number(r.train_seconds),
                                number(r.predict_seconds), r.hyperparameters, r.failure}));
  }
  return Json{{"columns", std::move(columns)}, {"rows", std::move(rows)}};
}

}  // namespace assay::soak

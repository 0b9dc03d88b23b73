#include "assay/soak/cv.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/error.hpp"
#include "assay/core/validate.hpp"
#include "assay/soak/tables.hpp"

namespace assay::soak {
namespace {

// Plain K-fold: the "same" train sets of a one-subset design.
SoakSplitParams split_params(const CvParams& params) {
  return SoakSplitParams{.folds = params.folds, .subsets = "S", .seed = params.seed};
}

SoakParams run_params(const CvParams& params) {
  return SoakParams{.learners = params.learners,
                    .learner_params = params.learner_params,
                    .threads = params.threads,
                    .seed = params.seed};
}

struct MeanSd {
  double mean = kNaN, sd = kNaN;
  std::size_t n = 0;
};

// Mean and SD (ddof 1) of the finite values.
MeanSd mean_sd(const std::vector<double>& values) {
  MeanSd out;
  double sum = 0;
  for (double v : values) {
    if (std::isfinite(v)) {
      sum += v;
      ++out.n;
    }
  }
  if (out.n == 0) return out;
  out.mean = sum / double(out.n);
  // Equal values (featureless on balanced folds): exactly that value and SD 0, not rounding noise.
  const auto first =
      std::find_if(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
  if (std::all_of(values.begin(), values.end(),
                  [&](double v) { return !std::isfinite(v) || v == *first; })) {
    out.mean = *first;
    if (out.n >= 2) out.sd = 0;
    return out;
  }
  if (out.n < 2) return out;
  double ss = 0;
  for (double v : values) {
    if (std::isfinite(v)) ss += (v - out.mean) * (v - out.mean);
  }
  out.sd = std::sqrt(ss / double(out.n - 1));
  return out;
}

double measure_of(const SoakResultRow& r, const std::string& measure) {
  if (measure == "error_percent") return r.error_percent;
  if (measure == "auc") return r.auc;
  if (measure == "mse") return r.mse;
  if (measure == "mae") return r.mae;
  fail("measure must be error_percent, auc, mse or mae, found {}", quote_found(measure));
}

Json number(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

}  // namespace

SoakTask cv_task(learners::Dataset data, const CvParams& params, std::vector<std::int32_t> group,
                 std::vector<std::int64_t> fold) {
  SoakDesign design;
  design.subset.assign(data.n_rows, 0);
  design.subset_names = {"full"};
  design.group = std::move(group);
  design.fold = std::move(fold);
  if (data.task == learners::TaskKind::classification) design.stratum = data.y_class;
  SoakSplits splits(std::move(design), split_params(params));
  return SoakTask{std::move(data), std::move(splits)};
}

SoakTask cv_task_from_table(const Table& table, const CvParams& params, std::string name) {
  SoakTableSpec spec;
  spec.data = params.data;
  spec.design.group = params.group;
  spec.design.fold = params.fold;
  spec.task = params.task;
  return soak_task_from_table(table, spec, split_params(params), std::move(name));
}

CvOutcome run_cv(std::vector<SoakTask> tasks, const CvParams& params) {
  CvOutcome out;
  out.tasks = std::move(tasks);
  out.results = run_soak(out.tasks, run_params(params));
  out.measure = params.task == learners::TaskKind::classification ? "error_percent" : "mse";
  out.summaries = cv_summaries(out.results, out.measure);
  return out;
}

CvOutcome cv_experiment(const std::vector<std::pair<std::string, Table>>& tables,
                        const CvParams& params) {
  if (tables.empty()) fail("cross-validation needs at least one data set (found none)");
  std::set<std::string> names;
  std::vector<SoakTask> tasks;
  for (const auto& [name, table] : tables) {
    if (!names.insert(name).second)
      fail("data set names must be unique ({} appears twice)", quote_found(name));
    tasks.push_back(cv_task_from_table(table, params, name));
  }
  return run_cv(std::move(tasks), params);
}

std::vector<CvSummary> cv_summaries(const SoakResults& results, const std::string& measure) {
  // (data, learner) pairs in order of first appearance; rows of a pair need not be adjacent.
  std::vector<CvSummary> out;
  std::vector<std::vector<const SoakResultRow*>> rows;
  for (const auto& r : results.rows) {
    std::size_t k = 0;
    while (k < out.size() && (out[k].data != r.data || out[k].learner != r.learner)) ++k;
    if (k == out.size()) {
      CvSummary summary;
      summary.data = r.data;
      summary.learner = r.learner;
      out.push_back(std::move(summary));
      rows.emplace_back();
    }
    rows[k].push_back(&r);
  }
  for (std::size_t k = 0; k < out.size(); ++k) {
    std::vector<double> m, auc, train, predict;
    for (const SoakResultRow* r : rows[k]) {
      if (!r->failure.empty()) {
        if (out[k].n_failed++ == 0) out[k].first_failure = r->failure;
        continue;
      }
      m.push_back(measure_of(*r, measure));
      auc.push_back(r->auc);
      train.push_back(r->train_seconds);
      predict.push_back(r->predict_seconds);
    }
    const MeanSd ms = mean_sd(m), a = mean_sd(auc), t = mean_sd(train), p = mean_sd(predict);
    out[k].n = ms.n;
    out[k].mean = ms.mean;
    out[k].sd = ms.sd;
    out[k].auc_mean = a.mean;
    out[k].auc_sd = a.sd;
    out[k].train_seconds_mean = t.mean;
    out[k].train_seconds_sd = t.sd;
    out[k].predict_seconds_mean = p.mean;
  }
  return out;
}

Table cv_results_table(const SoakResults& results) {
  const Table all = results_table(results);
  Table out;
  for (const char* name :
       {"data", "learner", "test.fold", "n_train", "n_test", "error_percent", "auc", "mse", "mae",
        "train_seconds", "predict_seconds", "hyperparameters", "failure"}) {
    out.add_column(all.column(name));
  }
  return out;
}

Table cv_summary_table(const CvOutcome& outcome) {
  const auto& s = outcome.summaries;
  std::vector<std::string> data, learner, measure, failure;
  std::vector<std::vector<double>> num(9);
  for (const auto& x : s) {
    data.push_back(x.data);
    learner.push_back(x.learner);
    measure.push_back(outcome.measure);
    failure.push_back(x.first_failure);
    const double v[9] = {x.mean,
                         x.sd,
                         double(x.n),
                         double(x.n_failed),
                         x.auc_mean,
                         x.auc_sd,
                         x.train_seconds_mean,
                         x.train_seconds_sd,
                         x.predict_seconds_mean};
    for (std::size_t j = 0; j < 9; ++j) num[j].push_back(v[j]);
  }
  static const char* const kNames[9] = {"mean",
                                        "sd",
                                        "n",
                                        "n_failed",
                                        "auc_mean",
                                        "auc_sd",
                                        "train_seconds_mean",
                                        "train_seconds_sd",
                                        "predict_seconds_mean"};
  Table out;
  out.add_column(Column::categorical("data", data));
  out.add_column(Column::categorical("learner", learner));
  out.add_column(Column::categorical("measure", measure));
  for (std::size_t j = 0; j < 9; ++j) out.add_column(Column::numeric(kNames[j], std::move(num[j])));
  out.add_column(Column::categorical("first_failure", failure));
  return out;
}

Json cv_json(const CvOutcome& outcome) {
  Json summaries = Json::array();
  for (const auto& x : outcome.summaries) {
    summaries.push_back({{"data", x.data},
                         {"learner", x.learner},
                         {"mean", number(x.mean)},
                         {"sd", number(x.sd)},
                         {"n", x.n},
                         {"n_failed", x.n_failed},
                         {"auc_mean", number(x.auc_mean)},
                         {"auc_sd", number(x.auc_sd)},
                         {"train_seconds_mean", number(x.train_seconds_mean)},
                         {"train_seconds_sd", number(x.train_seconds_sd)},
                         {"predict_seconds_mean", number(x.predict_seconds_mean)},
                         {"first_failure", x.first_failure}});
  }
  const Table table = cv_results_table(outcome.results);
  Json columns = Json::array(), rows = Json::array();
  for (const auto& name : table.names()) columns.push_back(name);
  for (std::size_t i = 0; i < table.n_rows(); ++i) {
    Json row = Json::array();
    for (const Column& c : table.columns()) {
      if (c.is_numeric()) {
        row.push_back(number(c.values[i]));
      } else {
        row.push_back(c.label(i));
      }
    }
    rows.push_back(std::move(row));
  }
  return Json{{"measure", outcome.measure},
              {"summaries", std::move(summaries)},
              {"results", {{"columns", std::move(columns)}, {"rows", std::move(rows)}}}};
}

std::string describe_cv(const CvOutcome& outcome, const CvParams& params) {
  std::string data;
  for (const auto& task : outcome.tasks) {
    const auto& d = task.dataset;
    const std::string target = d.task == learners::TaskKind::classification
                                   ? fmt::format("{} classes", d.n_classes())
                                   : std::string("regression");
    data +=
        fmt::format("{}{} ({} rows, {} features, {}{}; {} folds)", data.empty() ? "" : "; ", d.name,
                    d.n_rows, d.n_features, target,
                    task.splits.design().group.empty() ? "" : ", grouped", task.splits.n_folds());
  }
  const std::string learners = fmt::format("{}", fmt::join(params.learners, ", "));
  std::string learner_params;
  if (params.learner_params.is_object() && !params.learner_params.empty())
    learner_params = fmt::format(" Learner parameters: {}.", params.learner_params.dump());
  std::string folds;
  if (!params.fold.empty()) {
    folds = fmt::format("Folds given by column \"{}\"", params.fold);
  } else {
    folds = params.task == learners::TaskKind::classification
                ? "Folds random within each class (stratified)"
                : "Folds random";
    if (!params.group.empty())
      folds += fmt::format(", groups of column \"{}\" never split", params.group);
  }
  return fmt::format(
      "K-fold cross-validation (SOAK paper §4.1) on {}. Learners: {}.{} {}; seed = {}.", data,
      learners, learner_params, folds, params.seed);
}

}  // namespace assay::soak

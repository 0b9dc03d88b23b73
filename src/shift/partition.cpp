#include "assay/shift/partition.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/ranking.hpp"
#include "assay/shift/ensemble.hpp"
#include "assay/shift/regression.hpp"
#include "shift/sorted.hpp"

namespace assay::shift {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "dev_in" -> "dev", "eval-OUT" -> "eval"; "" when the name has no in/out suffix.
std::string joint_base(const std::string& name) {
  const std::string l = lower(name);
  for (const char* suffix : {"_in", "-in", "_out", "-out"}) {
    if (l.ends_with(suffix) && l.size() > std::string(suffix).size()) {
      return name.substr(0, name.size() - std::string(suffix).size());
    }
  }
  return "";
}

bool shifted_by_name(const std::string& name) {
  const std::string l = lower(name);
  return l.ends_with("out") || l.find("shift") != std::string::npos;
}

double error_of(ErrorKind kind, double y, double p) {
  switch (kind) {
    case ErrorKind::squared:
      return (y - p) * (y - p);
    case ErrorKind::absolute:
      return std::abs(y - p);
    case ErrorKind::zero_one:
      return y != p ? 1.0 : 0.0;
  }
  return kNaN;
}

struct SetDef {
  std::string name, kind;
  std::vector<std::size_t> index;
};

metrics::BootstrapResult without_replicates(metrics::BootstrapResult r) {
  r.replicates.clear();
  r.replicates.shrink_to_fit();
  return r;
}

// Evenly spaced retained fractions g/(P-1): the curve value with round(n (1 - x)) rejected.
void thin_retention(const std::vector<double>& curve, std::size_t points, std::vector<double>& x,
                    std::vector<double>& y, bool fill_x) {
  const std::size_t n = curve.size() - 1;
  const std::size_t p = std::max<std::size_t>(2, std::min(points, n + 1));
  y.clear();
  if (fill_x) x.clear();
  for (std::size_t g = 0; g < p; ++g) {
    const double frac = static_cast<double>(g) / static_cast<double>(p - 1);
    const auto retained = static_cast<std::size_t>(std::llround(frac * static_cast<double>(n)));
    if (fill_x) x.push_back(static_cast<double>(retained) / static_cast<double>(n));
    y.push_back(curve[n - retained]);
  }
}

// F1 curves are indexed by retained count k.
std::vector<double> thin_f1(const std::vector<double>& curve, const std::vector<double>& x) {
  const std::size_t n = curve.size() - 1;
  std::vector<double> y;
  for (double frac : x) {
    y.push_back(curve[static_cast<std::size_t>(std::llround(frac * static_cast<double>(n)))]);
  }
  return y;
}

}  // namespace

ErrorKind parse_error_kind(std::string_view name) {
  if (name == "squared") return ErrorKind::squared;
  if (name == "absolute") return ErrorKind::absolute;
  if (name == "zero-one" || name == "zero_one") return ErrorKind::zero_one;
  fail("unknown error {}: expected \"squared\", \"absolute\" or \"zero-one\"", quote_found(name));
}

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::squared:
      return "squared";
    case ErrorKind::absolute:
      return "absolute";
    case ErrorKind::zero_one:
      return "zero-one";
  }
  return "";
}

namespace {

// Lengths, names and values of the models, partition and shift flags, and the parameters.
void check_partition_input(const PartitionInput& input, const PartitionParams& params) {
  const std::size_t n = input.target.size();
  check_not_empty(n, "target");
  if (input.models.empty()) fail("need at least one model, found 0");
  check_finite(input.target, "target");
  std::set<std::string> names;
  for (const auto& m : input.models) {
    if (!names.insert(m.name).second) fail("model name {} is given twice", quote_found(m.name));
    const std::string predictions = "predictions of model " + quote_found(m.name);
    const std::string uncertainty = "uncertainty of model " + quote_found(m.name);
    check_same_length(m.prediction.size(), n, predictions, "target");
    check_same_length(m.uncertainty.size(), n, uncertainty, "target");
    check_finite(m.prediction, predictions);
    for (std::size_t i = 0; i < n; ++i) {
      if (std::isnan(m.uncertainty[i])) fail_non_finite(uncertainty, m.uncertainty[i], i);
    }
  }
  if (!input.partition.empty()) check_same_length(input.partition.size(), n, "partition", "target");
  if (!input.shifted.empty()) check_same_length(input.shifted.size(), n, "shifted", "target");
  if (params.acceptable && std::isnan(*params.acceptable)) {
    fail("acceptable must be a number, found nan");
  }
  if (!(params.beta > 0) || !std::isfinite(params.beta)) {
    fail("beta must be > 0, found {}", params.beta);
  }
  // Before the rows, whose bootstrap warnings are muted: RMSE, MAE, MAPE and R2 per row.
  metrics::check_bootstrap_params(params.bootstrap, 4, "--bootstrap (Python: n_resamples)");
}

SetDef all_samples(std::size_t n) {
  SetDef all{"all", "all", {}};
  all.index.resize(n);
  for (std::size_t i = 0; i < n; ++i) all.index[i] = i;
  return all;
}

// Joint sets: partition names sharing a base (dev_in, dev_out) by >= 2 partitions, in
// first-seen order of the base, appended after the first n_partitions sets.
void add_joint_sets(std::vector<SetDef>& sets, std::size_t n_partitions) {
  std::vector<std::string> bases;
  std::map<std::string, std::vector<std::size_t>> members;
  for (std::size_t s = 0; s < n_partitions; ++s) {
    const std::string base = joint_base(sets[s].name);
    if (base.empty()) continue;
    if (!members.count(base)) bases.push_back(base);
    members[base].push_back(s);
  }
  for (const auto& base : bases) {
    const auto& parts = members[base];
    if (parts.size() < 2) continue;
    SetDef joint{base + " (in+out)", "joint", {}};
    for (std::size_t s : parts) {
      joint.index.insert(joint.index.end(), sets[s].index.begin(), sets[s].index.end());
    }
    std::sort(joint.index.begin(), joint.index.end());
    sets.push_back(std::move(joint));
  }
}

// The sets to evaluate: the partitions (the Shifts 2.0 paper's canonical ones first, in its order;
// other names after, first-seen), their joint sets and all samples; without partitions all samples
// only. Sets `shifted` from the partition names when no shift flags are given.
std::vector<SetDef> evaluation_sets(const PartitionInput& input,
                                    std::vector<std::uint8_t>& shifted) {
  const std::size_t n = input.target.size();
  std::vector<SetDef> sets;
  if (input.partition.empty()) {
    sets.push_back(all_samples(n));
    return sets;
  }
  std::map<std::string, std::size_t> where;
  for (std::size_t i = 0; i < n; ++i) {
    auto [it, fresh] = where.emplace(input.partition[i], sets.size());
    if (fresh) sets.push_back({input.partition[i], "partition", {}});
    sets[it->second].index.push_back(i);
  }
  const std::vector<std::string> canonical = {"train", "dev_in", "dev_out", "eval_in", "eval_out"};
  auto rank = [&](const SetDef& s) {
    const auto it = std::find(canonical.begin(), canonical.end(), lower(s.name));
    return static_cast<std::size_t>(it - canonical.begin());
  };
  std::stable_sort(sets.begin(), sets.end(),
                   [&](const SetDef& a, const SetDef& b) { return rank(a) < rank(b); });
  const std::size_t n_partitions = sets.size();
  add_joint_sets(sets, n_partitions);
  if (n_partitions > 1) sets.push_back(all_samples(n));
  if (input.shifted.empty()) {
    for (std::size_t s = 0; s < n_partitions; ++s) {
      if (shifted_by_name(sets[s].name)) {
        for (std::size_t i : sets[s].index) shifted[i] = 1;
      }
    }
  }
  return sets;
}

// Each model's per-sample errors; an infinite one is refused (the retention curves need sums).
std::vector<std::vector<double>> model_errors(const PartitionInput& input,
                                              const PartitionParams& params) {
  const std::size_t n = input.target.size();
  std::vector<std::vector<double>> errors(input.models.size(), std::vector<double>(n));
  for (std::size_t m = 0; m < input.models.size(); ++m) {
    for (std::size_t i = 0; i < n; ++i) {
      errors[m][i] = error_of(params.error, input.target[i], input.models[m].prediction[i]);
      if (std::isinf(errors[m][i])) {
        fail(
            "model \"{}\", sample {}: the error of prediction {} for target {} overflows (more "
            "than {}); the retention curves need finite errors (try --error absolute)",
            input.models[m].name, i + 1, input.models[m].prediction[i], input.target[i],
            std::numeric_limits<double>::max());
      }
    }
  }
  return errors;
}

// How many rows had an undefined value: each kind becomes one note.
struct UndefinedCounts {
  std::size_t no_acceptable = 0, prr_undefined = 0, ood_undefined = 0;
};

// One model on one set (its samples' target y, prediction p, uncertainty u, error e, shift
// flags sh): regression metrics, retention summary and OOD AUROC. Per-set warnings (an undefined
// PRR, no acceptable sample) are muted here and counted instead.
void fill_row(PartitionRow& row, const std::vector<double>& y, const std::vector<double>& p,
              const std::vector<double>& u, const std::vector<double>& e,
              const std::vector<std::uint8_t>& sh, const PartitionParams& params,
              const RegressionParams& reg, UndefinedCounts& undefined) {
  const std::size_t k = row.n, n_shifted = row.n_shifted;
  ScopedWarningHandler mute(WarningHandler{});
  auto metrics = regression_metrics(y, p, {}, reg);
  row.rmse = without_replicates(std::move(metrics.rmse));
  row.mae = without_replicates(std::move(metrics.mae));
  row.mape = without_replicates(std::move(metrics.mape));
  row.r2 = without_replicates(std::move(metrics.r2));
  CompensatedSum total;
  for (double v : e) total.add(v);
  row.mean_error = total.value() / static_cast<double>(k);
  const double* thr = params.acceptable ? &*params.acceptable : nullptr;
  const auto summary = retention_summary(e, u, {params.convention}, thr, params.beta);
  row.r_auc = summary.prr.r_auc;
  row.prr = summary.prr.prr;
  if (std::isnan(row.prr)) ++undefined.prr_undefined;
  row.aurc = summary.risk_coverage.aurc;
  row.augrc = summary.risk_coverage.augrc;
  row.f1_auc = summary.has_f1 ? summary.f1_auc : kNaN;
  row.f1_at_95 = summary.has_f1 ? summary.f1_at_95 : kNaN;
  if (summary.has_f1 && summary.n_acceptable == 0) ++undefined.no_acceptable;
  if (n_shifted > 0 && n_shifted < k) {
    row.ood_auroc = ood_detection(sh, u).auroc;
  } else {
    row.ood_auroc = kNaN;
    ++undefined.ood_undefined;
  }
}

// One row per (set, model), sets outer.
void add_rows(const PartitionInput& input, const PartitionParams& params,
              const std::vector<SetDef>& sets, const std::vector<std::uint8_t>& shifted,
              const std::vector<std::vector<double>>& errors, UndefinedCounts& undefined,
              ShiftEvaluation& ev) {
  RegressionParams reg;
  reg.bootstrap = params.bootstrap;
  // One bar for the whole table, counting the rows' bootstrap resamples (each row's bootstrap
  // advances it); without a bootstrap it counts rows.
  const std::uint64_t steps_per_row = std::max<std::uint64_t>(params.bootstrap.n_resamples, 1);
  Progress progress("shift", sets.size() * input.models.size() * steps_per_row,
                    Progress::Nested::counted);
  for (const auto& set : sets) {
    const std::size_t k = set.index.size();
    std::vector<double> y(k), p(k), u(k), e(k);
    std::vector<std::uint8_t> sh(k);
    std::size_t n_shifted = 0;
    for (std::size_t j = 0; j < k; ++j) {
      y[j] = input.target[set.index[j]];
      sh[j] = shifted[set.index[j]];
      n_shifted += sh[j];
    }
    for (std::size_t m = 0; m < input.models.size(); ++m) {
      const auto& model = input.models[m];
      for (std::size_t j = 0; j < k; ++j) {
        p[j] = model.prediction[set.index[j]];
        u[j] = model.uncertainty[set.index[j]];
        e[j] = errors[m][set.index[j]];
      }
      PartitionRow row;
      row.set = set.name;
      row.kind = set.kind;
      row.model = model.name;
      row.n = k;
      row.n_shifted = n_shifted;
      fill_row(row, y, p, u, e, sh, params, reg, undefined);
      if (params.bootstrap.n_resamples == 0) progress.advance();
      ev.rows.push_back(std::move(row));
    }
  }
}

// One note (and warning, where the reader may act) per kind of undefined value.
void add_notes(const UndefinedCounts& undefined, const PartitionParams& params,
               ShiftEvaluation& ev) {
  if (undefined.no_acceptable > 0) {
    const std::string note = fmt::format(
        "{} row(s) have no acceptable sample (error <= {}): their F1-AUC and F1@95 are NaN",
        undefined.no_acceptable, *params.acceptable);
    warn(note);
    ev.notes.push_back(note);
  }
  if (undefined.prr_undefined > 0) {
    const std::string note = fmt::format(
        "{} row(s) have an undefined PRR (oracle and random areas equal, e.g. all errors "
        "equal): NaN",
        undefined.prr_undefined);
    warn(note);
    ev.notes.push_back(note);
  }
  if (undefined.ood_undefined > 0) {
    ev.notes.push_back(
        "OOD AUROC is shown only for sets that hold both in-domain and shifted samples");
  }
}

// Chart curves of one model on all samples (one sort by uncertainty and one by error).
ModelCurves model_curves(const ModelInput& model, const std::vector<double>& errors,
                         const PartitionParams& params) {
  ModelCurves c;
  c.model = model.name;
  const double* thr = params.acceptable ? &*params.acceptable : nullptr;
  RetentionCurves curves;
  {
    ScopedWarningHandler mute(WarningHandler{});  // no acceptable sample: noted already
    curves = retention_curves(errors, model.uncertainty, {params.convention}, thr, params.beta);
  }
  c.r_auc = curves.model.r_auc;
  thin_retention(curves.model.curve, params.curve_points, c.x, c.retention, true);
  std::vector<double> dummy;
  thin_retention(curves.oracle.curve, params.curve_points, dummy, c.oracle, false);
  thin_retention(curves.random.curve, params.curve_points, dummy, c.random, false);
  if (curves.has_f1) {
    c.f1_auc = curves.f1.f1_auc;
    c.f1 = thin_f1(curves.f1.curve, c.x);
    c.f1_oracle = thin_f1(curves.f1_oracle.curve, c.x);
    c.f1_random = thin_f1(curves.f1_random.curve, c.x);
  } else {
    c.f1_auc = kNaN;
  }
  return c;
}

}  // namespace

ShiftEvaluation evaluate_partitions(const PartitionInput& input, const PartitionParams& params) {
  check_partition_input(input, params);
  const std::size_t n = input.target.size();
  std::vector<std::uint8_t> shifted(n, 0);
  const std::vector<SetDef> sets = evaluation_sets(input, shifted);
  if (!input.shifted.empty()) {
    for (std::size_t i = 0; i < n; ++i) {
      if (input.shifted[i] > 1) {
        fail("shifted must be 0 or 1, found {} at index {}", input.shifted[i], i);
      }
      shifted[i] = input.shifted[i];
    }
  }

  ShiftEvaluation ev;
  ev.n_samples = n;
  ev.params = params;
  for (const auto& m : input.models) ev.models.push_back(m.name);
  for (const auto& s : sets) ev.sets.push_back(s.name);

  const auto errors = model_errors(input, params);
  UndefinedCounts undefined;
  add_rows(input, params, sets, shifted, errors, undefined, ev);
  add_notes(undefined, params, ev);
  for (std::size_t m = 0; m < input.models.size(); ++m) {
    ev.curves.push_back(model_curves(input.models[m], errors[m], params));
  }
  return ev;
}

namespace {

/// The checks evaluate_partitions makes on its arrays, made here first so that a message names
/// the file's line and column instead of an index into the arrays.
void check_column_values(const Table& table, const std::string& name, bool allow_inf,
                         bool nonnegative) {
  const std::vector<double>& values = table.numeric(name);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (std::isnan(v) || (!allow_inf && std::isinf(v)) || (nonnegative && v < 0)) {
      fail_at_cell(table, i, name,
                   fmt::format("expected a {}number{}, found {}", allow_inf ? "" : "finite ",
                               nonnegative ? " >= 0" : "", v));
    }
  }
}

void check_table_values(const Table& table, const ShiftColumns& columns) {
  check_column_values(table, columns.target, false, false);
  for (const auto& c : columns.pred) check_column_values(table, c, false, false);
  for (const auto& c : columns.uncertainty) check_column_values(table, c, true, false);
  for (const auto& c : columns.members) check_column_values(table, c, false, false);
  for (const auto& c : columns.member_vars) check_column_values(table, c, false, true);
}

}  // namespace

ShiftEvaluation evaluate_table(const Table& table, const ShiftColumns& columns,
                               const PartitionParams& params) {
  const std::string& file = table.source().empty() ? std::string("table") : table.source();
  if (table.n_rows() == 0) fail("{}: no rows", file);
  PartitionInput input;
  input.target = table.numeric(columns.target);
  if (columns.pred.empty() && columns.members.empty()) {
    fail("give prediction columns (--pred COL[,COL...]) or ensemble members (--members COLS)");
  }
  if (!columns.pred.empty() && columns.uncertainty.size() != columns.pred.size()) {
    fail(
        "give one uncertainty column per prediction column: {} prediction and {} uncertainty "
        "columns",
        columns.pred.size(), columns.uncertainty.size());
  }
  if (columns.pred.empty() && !columns.uncertainty.empty()) {
    fail(
        "uncertainty columns need prediction columns (--pred): found {} uncertainty and 0 "
        "prediction columns",
        columns.uncertainty.size());
  }
  if (columns.members.empty() && !columns.member_vars.empty()) {
    fail(
        "member variance columns need member columns (--members): found {} variance and 0 "
        "member columns",
        columns.member_vars.size());
  }
  check_table_values(table, columns);
  for (std::size_t m = 0; m < columns.pred.size(); ++m) {
    input.models.push_back(
        {columns.pred[m], table.numeric(columns.pred[m]), table.numeric(columns.uncertainty[m])});
  }
  if (!columns.members.empty()) {
    if (!columns.member_vars.empty() && columns.member_vars.size() != columns.members.size()) {
      fail("give one variance column per member: {} member and {} variance columns",
           columns.members.size(), columns.member_vars.size());
    }
    const std::size_t n = table.n_rows(), k = columns.members.size();
    std::vector<double> preds(k * n * 2, 0.0);
    for (std::size_t m = 0; m < k; ++m) {
      const auto& mu = table.numeric(columns.members[m]);
      const std::vector<double>* var =
          columns.member_vars.empty() ? nullptr : &table.numeric(columns.member_vars[m]);
      for (std::size_t i = 0; i < n; ++i) {
        preds[(m * n + i) * 2] = mu[i];
        preds[(m * n + i) * 2 + 1] = var ? (*var)[i] : 0.0;
      }
    }
    auto u = ensemble_uncertainty_regression(preds, k, n);
    input.models.push_back({"ensemble", std::move(u.mean), std::move(u.total_variance)});
  }
  if (!columns.partition.empty()) {
    const Column& c = table.column(columns.partition);
    input.partition.resize(table.n_rows());
    for (std::size_t i = 0; i < table.n_rows(); ++i) {
      input.partition[i] = c.is_categorical() ? c.label(i) : fmt::format("{:g}", c.values[i]);
    }
  }
  if (!columns.shifted.empty()) {
    const auto& flag = table.numeric(columns.shifted);
    input.shifted.resize(flag.size());
    for (std::size_t i = 0; i < flag.size(); ++i) {
      if (flag[i] != 0 && flag[i] != 1) {
        fail_at_cell(table, i, columns.shifted, fmt::format("expected 0 or 1, found {}", flag[i]));
      }
      input.shifted[i] = static_cast<std::uint8_t>(flag[i]);
    }
  }
  return evaluate_partitions(input, params);
}

TuneMetric parse_tune_metric(std::string_view name) {
  if (name == "f1") return TuneMetric::f1;
  if (name == "accuracy") return TuneMetric::accuracy;
  fail("unknown tuning metric {}: expected \"f1\" or \"accuracy\"", quote_found(name));
}

namespace {
struct Counts {
  double tp = 0, fp = 0, fn = 0, tn = 0;
};
double metric_of(const Counts& c, TuneMetric metric, bool& zero_division) {
  if (metric == TuneMetric::accuracy) return (c.tp + c.tn) / (c.tp + c.fp + c.fn + c.tn);
  const double den = 2 * c.tp + c.fp + c.fn;
  if (den == 0) {
    zero_division = true;
    return 0;
  }
  return 2 * c.tp / den;
}
}  // namespace

ThresholdTuning tune_threshold(std::span<const std::uint8_t> y_true, std::span<const double> score,
                               const std::vector<std::string>& partition,
                               const std::string& tune_on, TuneMetric metric) {
  const std::size_t n = y_true.size();
  if (score.size() != n) fail("y_true and score differ in length ({} vs {})", n, score.size());
  if (partition.size() != n) {
    fail("partition and y_true differ in length ({} vs {})", partition.size(), n);
  }
  check_not_empty(n, "y_true");
  check_finite(score, "score");
  for (std::size_t i = 0; i < n; ++i) {
    if (y_true[i] > 1) fail("y_true must be 0 or 1, found {} at index {}", y_true[i], i);
  }
  std::vector<std::uint8_t> ty;
  std::vector<double> ts;
  for (std::size_t i = 0; i < n; ++i) {
    if (partition[i] == tune_on) ty.push_back(y_true[i]), ts.push_back(score[i]);
  }
  if (ty.empty()) fail("tuning partition {} has no samples", quote_found(tune_on));
  const auto points = metrics::operating_points(ty, ts);
  ThresholdTuning r;
  bool zero_division = false;
  double best = -1;
  for (std::size_t k = 0; k < points.threshold.size(); ++k) {
    Counts c;
    c.tp = points.tp[k];
    c.fp = points.fp[k];
    c.fn = points.total_pos - c.tp;
    c.tn = points.total_neg - c.fp;
    bool zd = false;
    const double v = metric_of(c, metric, zd);
    if (v > best) best = v, r.threshold = points.threshold[k];
  }
  r.tuned_value = best;
  std::vector<std::string> order;
  std::map<std::string, Counts> counts;
  Counts all;
  for (std::size_t i = 0; i < n; ++i) {
    if (!counts.count(partition[i])) order.push_back(partition[i]);
    Counts& c = counts[partition[i]];
    const bool pred = score[i] >= r.threshold;
    for (Counts* t : {&c, &all}) {
      if (pred && y_true[i]) t->tp += 1;
      if (pred && !y_true[i]) t->fp += 1;
      if (!pred && y_true[i]) t->fn += 1;
      if (!pred && !y_true[i]) t->tn += 1;
    }
  }
  for (const auto& name : order) {
    r.sets.push_back(name);
    r.values.push_back(metric_of(counts[name], metric, zero_division));
  }
  r.sets.push_back("all");
  r.values.push_back(metric_of(all, metric, zero_division));
  if (zero_division) {
    warn("F1 is 0/0 (no true and no predicted positive) on some partition: set to 0");
  }
  return r;
}

std::vector<double> generalisation_inputs(std::span<const double> low, std::span<const double> high,
                                          std::size_t n, std::uint64_t seed) {
  if (low.size() != high.size()) {
    fail("low and high differ in length ({} vs {})", low.size(), high.size());
  }
  if (low.empty()) fail("need at least one feature range, found 0");
  const std::size_t d = low.size();
  if (n > allocatable_bytes() / sizeof(double) / d) {
    fail(
        "n: {} inputs of {} features need {:.1f} GB, more than the {:.1f} GB this process can "
        "allocate; lower n",
        n, d, static_cast<double>(n) * static_cast<double>(d) * 8 / 1e9,
        static_cast<double>(allocatable_bytes()) / 1e9);
  }
  for (std::size_t j = 0; j < d; ++j) {
    if (!std::isfinite(low[j]) || !std::isfinite(high[j]) || !(low[j] <= high[j])) {
      fail("feature {} has range [{}, {}]: expected finite bounds with low <= high", j, low[j],
           high[j]);
    }
  }
  std::vector<double> out(n * d);
  const Rng root(seed);
  for (std::size_t j = 0; j < d; ++j) {
    Rng rng = root.split(j);
    const double width = high[j] - low[j];
    for (std::size_t i = 0; i < n; ++i) out[i * d + j] = low[j] + width * rng.uniform();
  }
  return out;
}

}  // namespace assay::shift

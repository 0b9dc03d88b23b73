#include "assay/soak/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <boost/math/distributions/students_t.hpp>

#include "assay/core/error.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"

namespace assay::soak {
namespace {

// Domain/overflow errors become NaN instead of exceptions; the arguments are checked first.
using Policy = boost::math::policies::policy<
    boost::math::policies::domain_error<boost::math::policies::ignore_error>,
    boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
    boost::math::policies::evaluation_error<boost::math::policies::ignore_error>>;

// Two-sided p = 2 P(T > |t|), from the upper tail directly so that tiny p keep their digits.
double two_sided_p(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return kNaN;
  if (std::isinf(t)) return 0.0;
  const boost::math::students_t_distribution<double, Policy> dist(df);
  return std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))));
}

// Mean and sample variance (ddof 1) by two passes, as numpy's mean/var.
struct Moments {
  double mean = kNaN;
  double var = kNaN;
};

Moments moments(const std::vector<double>& v) {
  Moments m;
  if (v.empty()) return m;
  double sum = 0;
  for (double x : v) sum += x;
  m.mean = sum / static_cast<double>(v.size());
  if (v.size() < 2) return m;
  double ss = 0;
  for (double x : v) ss += (x - m.mean) * (x - m.mean);
  m.var = ss / static_cast<double>(v.size() - 1);
  return m;
}

std::vector<double> defined(std::span<const double> x) {
  std::vector<double> out;
  out.reserve(x.size());
  for (double v : x) {
    if (!std::isnan(v)) out.push_back(v);
  }
  return out;
}

TTest undefined(TTest t, std::string reason) {
  t.t = kNaN;
  t.df = kNaN;
  t.p_value = kNaN;
  t.undefined_reason = std::move(reason);
  return t;
}

double measure_of(const SoakResultRow& row, const std::string& measure) {
  if (measure == "error_percent") return row.error_percent;
  if (measure == "auc") return row.auc;
  if (measure == "mse") return row.mse;
  return row.mae;
}

}  // namespace

TTest paired_t_test(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) {
    fail("x and y differ in length ({} vs {}); a paired test needs one y per x", x.size(),
         y.size());
  }
  std::vector<double> d;
  d.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isnan(x[i]) && !std::isnan(y[i])) d.push_back(x[i] - y[i]);
  }
  TTest t;
  t.n = d.size();
  const Moments m = moments(d);
  t.mean_difference = m.mean;
  t.sd = std::sqrt(m.var);
  if (d.size() < 2) {
    return undefined(t, fmt::format("fewer than two pairs ({})", d.size()));
  }
  if (!(m.var > 0)) return undefined(t, "all differences equal");
  t.df = static_cast<double>(d.size() - 1);
  t.t = m.mean / std::sqrt(m.var / static_cast<double>(d.size()));
  t.p_value = two_sided_p(t.t, t.df);
  return t;
}

TTest welch_t_test(std::span<const double> x, std::span<const double> y) {
  const std::vector<double> a = defined(x);
  const std::vector<double> b = defined(y);
  TTest t;
  t.n = a.size() + b.size();
  const Moments ma = moments(a);
  const Moments mb = moments(b);
  t.mean_difference = ma.mean - mb.mean;
  t.sd = kNaN;
  if (a.size() < 2 || b.size() < 2) {
    return undefined(
        t, fmt::format("fewer than two values on one side ({} vs {})", a.size(), b.size()));
  }
  const double va = ma.var / static_cast<double>(a.size());
  const double vb = mb.var / static_cast<double>(b.size());
  t.sd = std::sqrt(va + vb);
  if (!(va + vb > 0)) return undefined(t, "both sides have zero variance");
  t.df =
      (va + vb) * (va + vb) /
      (va * va / static_cast<double>(a.size() - 1) + vb * vb / static_cast<double>(b.size() - 1));
  t.t = t.mean_difference / t.sd;
  t.p_value = two_sided_p(t.t, t.df);
  return t;
}

namespace {

// The measure asked for, else error_percent when the results have it (classification), else
// mse (regression results have only mse).
std::string resolve_measure(const SoakResults& results, const StatisticsParams& params) {
  std::string measure = params.measure;
  if (measure.empty()) {
    bool any_error = false, any_mse = false;
    for (const auto& row : results.rows) {
      any_error = any_error || !std::isnan(row.error_percent);
      any_mse = any_mse || !std::isnan(row.mse);
    }
    measure = (!any_error && any_mse) ? "mse" : "error_percent";
  } else if (measure != "error_percent" && measure != "auc" && measure != "mse" &&
             measure != "mae") {
    fail("unknown measure {}; expected error_percent, auc, mse or mae", quote_found(measure));
  }
  return measure;
}

using PanelKey = std::tuple<std::string, std::string, std::string>;

// Panels (data, learner, test subset) in order of first appearance, with their rows.
struct Panels {
  std::vector<PanelKey> keys;
  std::vector<std::vector<const SoakResultRow*>> rows;
};

Panels group_panels(const SoakResults& results) {
  Panels panels;
  std::map<PanelKey, std::size_t> panel_index;
  for (const auto& row : results.rows) {
    PanelKey key{row.data, row.learner, row.test_subset};
    auto [it, inserted] = panel_index.try_emplace(key, panels.keys.size());
    if (inserted) {
      panels.keys.push_back(key);
      panels.rows.emplace_back();
    }
    panels.rows[it->second].push_back(&row);
  }
  return panels;
}

// One panel's values at one train size (0 = every train set at its full size), keyed by
// (seed, fold) for each train set, and the rows of each train set.
struct SizeValues {
  std::map<TrainSubsets, std::map<std::pair<std::int32_t, std::int32_t>, double>> values;
  std::map<TrainSubsets, std::size_t> n_rows;
};

SizeValues values_at_size(const std::vector<const SoakResultRow*>& rows, std::int64_t size,
                          const std::string& measure) {
  auto at_size = [&](const SoakResultRow& row) {
    return size == 0 ? row.n_train_groups >= row.groups || row.n_train_groups <= 0
                     : row.n_train_groups == size;
  };
  // A full-size train set does not depend on the down-sampling seed, so with seeds > 1
  // its rows repeat; keep the first seed's only (repeats would inflate the df).
  std::int32_t first_seed = std::numeric_limits<std::int32_t>::max();
  if (size == 0) {
    for (const auto* row : rows) {
      if (at_size(*row)) first_seed = std::min(first_seed, row->seed);
    }
  }
  SizeValues out;
  for (const auto* row : rows) {
    if (!at_size(*row)) continue;
    if (size == 0 && row->seed != first_seed) continue;
    ++out.n_rows[row->train_subsets];
    const double v = row->failure.empty() ? measure_of(*row, measure) : kNaN;
    out.values[row->train_subsets][{row->seed, row->test_fold}] = v;
  }
  return out;
}

// The first undefined paired t-test, and how many there were (one warning says so).
struct Undefined {
  std::size_t count = 0;
  std::string first;
};

// One panel at one size: a summary per train set (same, other, all), then same compared with
// other and with all (paired by (seed, fold), and Welch's test).
void add_panel_size(const PanelKey& panel, std::int64_t size, SizeValues& sv, SoakStatistics& stats,
                    Undefined& undefined) {
  constexpr TrainSubsets kOrder[] = {TrainSubsets::same, TrainSubsets::other, TrainSubsets::all};
  const auto& [data, learner, test_subset] = panel;
  auto& values = sv.values;
  const auto& n_rows = sv.n_rows;
  std::map<TrainSubsets, std::vector<double>> all_values;
  for (TrainSubsets which : kOrder) {
    if (!n_rows.count(which)) continue;
    std::vector<double> v;
    for (const auto& [key, value] : values[which]) v.push_back(value);
    const std::vector<double> d = defined(v);
    const Moments m = moments(d);
    stats.summaries.push_back(TrainSetSummary{.data = data,
                                              .learner = learner,
                                              .test_subset = test_subset,
                                              .train_subsets = which,
                                              .n_train_groups = size,
                                              .mean = m.mean,
                                              .sd = std::sqrt(m.var),
                                              .n = d.size()});
    all_values[which] = std::move(v);
  }
  if (!n_rows.count(TrainSubsets::same)) return;
  for (TrainSubsets compared : {TrainSubsets::other, TrainSubsets::all}) {
    if (!n_rows.count(compared)) continue;
    const auto& same = values[TrainSubsets::same];
    const auto& other = values[compared];
    std::vector<double> x, y;
    for (const auto& [key, value] : other) {
      const auto it = same.find(key);
      if (it == same.end()) continue;
      x.push_back(value);
      y.push_back(it->second);
    }
    Comparison c{.data = data,
                 .learner = learner,
                 .test_subset = test_subset,
                 .compared = compared,
                 .n_train_groups = size,
                 .same_mean = moments(defined(all_values[TrainSubsets::same])).mean,
                 .compared_mean = moments(defined(all_values[compared])).mean,
                 .paired = paired_t_test(x, y),
                 .welch = welch_t_test(all_values[compared], all_values[TrainSubsets::same])};
    if (!c.paired.undefined_reason.empty()) {
      if (undefined.count++ == 0) {
        undefined.first = fmt::format("{}, {}, test subset {}, {}-same: {}", data, learner,
                                      test_subset, to_string(compared), c.paired.undefined_reason);
      }
    }
    stats.comparisons.push_back(std::move(c));
  }
}

}  // namespace

SoakStatistics soak_statistics(const SoakResults& results, const StatisticsParams& params) {
  SoakStatistics stats;
  stats.measure = resolve_measure(results, params);
  const Panels panels = group_panels(results);
  Undefined undefined;
  for (std::size_t p = 0; p < panels.keys.size(); ++p) {
    const auto& rows = panels.rows[p];
    // Sizes: 0 = every train set at its full size; then each down-sampled n.train.groups.
    std::set<std::int64_t> sizes{0};
    for (const auto* row : rows) {
      if (row->n_train_groups > 0 && row->n_train_groups < row->groups) {
        sizes.insert(row->n_train_groups);
      }
    }
    for (std::int64_t size : sizes) {
      SizeValues sv = values_at_size(rows, size, stats.measure);
      add_panel_size(panels.keys[p], size, sv, stats, undefined);
    }
  }
  if (undefined.count > 0) {
    warn(fmt::format("{} of {} paired t-tests are undefined (NaN); first: {}", undefined.count,
                     stats.comparisons.size(), undefined.first));
  }
  return stats;
}

Table pvalues_table(const SoakStatistics& statistics) {
  const auto& cs = statistics.comparisons;
  std::vector<std::string> data, learner, subset, comparison, reason;
  std::vector<double> size, same_mean, compared_mean, mean_diff, sd_diff, t, df, p, welch_diff,
      welch_t, welch_df, p_welch, n_pairs;
  for (const auto& c : cs) {
    data.push_back(c.data);
    learner.push_back(c.learner);
    subset.push_back(c.test_subset);
    comparison.push_back(std::string(to_string(c.compared)) + "-same");
    size.push_back(static_cast<double>(c.n_train_groups));
    same_mean.push_back(c.same_mean);
    compared_mean.push_back(c.compared_mean);
    mean_diff.push_back(c.paired.mean_difference);
    sd_diff.push_back(c.paired.sd);
    t.push_back(c.paired.t);
    df.push_back(c.paired.df);
    p.push_back(c.paired.p_value);
    welch_diff.push_back(c.welch.mean_difference);
    welch_t.push_back(c.welch.t);
    welch_df.push_back(c.welch.df);
    p_welch.push_back(c.welch.p_value);
    n_pairs.push_back(static_cast<double>(c.paired.n));
    reason.push_back(c.paired.undefined_reason);
  }
  Table table;
  table.add_column(Column::categorical("data", data));
  table.add_column(Column::categorical("learner", learner));
  table.add_column(Column::categorical("test.subset", subset));
  table.add_column(Column::categorical("comparison", comparison));
  table.add_column(Column::numeric("n.train.groups", std::move(size)));
  table.add_column(Column::numeric("same_mean", std::move(same_mean)));
  table.add_column(Column::numeric("compared_mean", std::move(compared_mean)));
  table.add_column(Column::numeric("mean_diff", std::move(mean_diff)));
  table.add_column(Column::numeric("sd_diff", std::move(sd_diff)));
  table.add_column(Column::numeric("t", std::move(t)));
  table.add_column(Column::numeric("df", std::move(df)));
  table.add_column(Column::numeric("p_paired", std::move(p)));
  table.add_column(Column::numeric("welch_diff", std::move(welch_diff)));
  table.add_column(Column::numeric("welch_t", std::move(welch_t)));
  table.add_column(Column::numeric("welch_df", std::move(welch_df)));
  table.add_column(Column::numeric("p_welch", std::move(p_welch)));
  table.add_column(Column::numeric("n_pairs", std::move(n_pairs)));
  table.add_column(Column::categorical("reason", reason));
  return table;
}

Table summaries_table(const SoakStatistics& statistics) {
  std::vector<std::string> data, learner, subset, train;
  std::vector<double> size, mean, sd, n;
  for (const auto& s : statistics.summaries) {
    data.push_back(s.data);
    learner.push_back(s.learner);
    subset.push_back(s.test_subset);
    train.push_back(to_string(s.train_subsets));
    size.push_back(static_cast<double>(s.n_train_groups));
    mean.push_back(s.mean);
    sd.push_back(s.sd);
    n.push_back(static_cast<double>(s.n));
  }
  Table table;
  table.add_column(Column::categorical("data", data));
  table.add_column(Column::categorical("learner", learner));
  table.add_column(Column::categorical("test.subset", subset));
  table.add_column(Column::categorical("train.subsets", train));
  table.add_column(Column::numeric("n.train.groups", std::move(size)));
  table.add_column(Column::numeric("mean", std::move(mean)));
  table.add_column(Column::numeric("sd", std::move(sd)));
  table.add_column(Column::numeric("n", std::move(n)));
  return table;
}

namespace {

Json number(double v) {
  return std::isnan(v) ? Json(nullptr) : Json(v);
}

Json ttest_json(const TTest& t) {
  return Json{{"mean_difference", number(t.mean_difference)},
              {"sd", number(t.sd)},
              {"t", number(t.t)},
              {"df", number(t.df)},
              {"p_value", number(t.p_value)},
              {"n", t.n},
              {"undefined_reason", t.undefined_reason}};
}

}  // namespace

Json statistics_json(const SoakStatistics& statistics) {
  Json summaries = Json::array();
  for (const auto& s : statistics.summaries) {
    summaries.push_back(Json{{"data", s.data},
                             {"learner", s.learner},
                             {"test.subset", s.test_subset},
                             {"train.subsets", to_string(s.train_subsets)},
                             {"n.train.groups", s.n_train_groups},
                             {"mean", number(s.mean)},
                             {"sd", number(s.sd)},
                             {"n", s.n}});
  }
  Json comparisons = Json::array();
  for (const auto& c : statistics.comparisons) {
    comparisons.push_back(Json{{"data", c.data},
                               {"learner", c.learner},
                               {"test.subset", c.test_subset},
                               {"comparison", std::string(to_string(c.compared)) + "-same"},
                               {"n.train.groups", c.n_train_groups},
                               {"same_mean", number(c.same_mean)},
                               {"compared_mean", number(c.compared_mean)},
                               {"paired", ttest_json(c.paired)},
                               {"welch", ttest_json(c.welch)}});
  }
  return Json{{"measure", statistics.measure},
              {"summaries", std::move(summaries)},
              {"comparisons", std::move(comparisons)}};
}

}  // namespace assay::soak

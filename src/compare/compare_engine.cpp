// run(): the paired bootstrap (one multinomial draw per resample shared by every model, metric
// and slice), the jackknife behind BCa, DeLong, McNemar and permutation tests, the corrections,
// and the result with its plain-sentence conclusions.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "assay/compare/statistics.hpp"
#include "assay/core/error.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/classification.hpp"
#include "assay/metrics/scaled_weights.hpp"
#include "compare/compare_engine.hpp"

namespace assay::compare::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Permutation streams start far above any resample index, so they never share one.
constexpr std::uint64_t kPermutationStream = std::uint64_t{1} << 62;
constexpr std::uint64_t kJackknifeStream = (std::uint64_t{1} << 62) - 1;

using Metrics = std::vector<std::unique_ptr<ModelMetrics>>;  // one per model

std::vector<double> gather(std::span<const double> values, const Group& g) {
  if (g.index.empty()) return {values.begin(), values.end()};
  std::vector<double> out(g.index.size());
  for (std::size_t j = 0; j < g.index.size(); ++j) out[j] = values[g.index[j]];
  return out;
}

std::size_t group_size(const Problem& p, const Group& g) {
  return g.index.empty() ? p.n : g.index.size();
}

// One model's data on one group; `swap` (optional) takes example i from `other` instead.
GroupData group_data(const Problem& p, const CompareInput& in, const ModelScores& model,
                     const Group& g, const ModelScores* other = nullptr,
                     const std::vector<std::uint8_t>* swap = nullptr) {
  const std::size_t size = group_size(p, g);
  const std::size_t cols = model.n_columns;
  GroupData d;
  d.probabilities = false;
  auto source = [&](std::size_t j) {
    const std::size_t i = g.index.empty() ? j : g.index[j];
    const bool swapped = swap && (*swap)[j];
    return std::pair{i, swapped ? other : &model};
  };
  const Task task = p.shape.task;
  if (task == Task::regression)
    d.target.resize(size);
  else
    d.y.resize(size);
  d.scores.resize(model.predictions && task == Task::multiclass ? 0 : size * cols);
  d.pred.resize(task == Task::regression ? 0 : size);
  for (std::size_t j = 0; j < size; ++j) {
    const auto [i, from] = source(j);
    if (task == Task::regression) {
      d.target[j] = in.targets[i];
      d.scores[j] = from->scores[i];
      continue;
    }
    d.y[j] = in.y_true[i];
    if (model.predictions) {
      const auto code = static_cast<std::int32_t>(from->scores[i]);
      d.pred[j] = code;
      if (task == Task::binary) d.scores[j] = code == p.shape.positive ? 1.0 : 0.0;
    } else if (task == Task::binary) {
      d.scores[j] = from->scores[i];
      d.pred[j] = d.scores[j] >= p.shape.threshold ? p.shape.positive : 1 - p.shape.positive;
    } else {
      const double* row = from->scores.data() + i * cols;
      std::copy(row, row + cols, d.scores.begin() + static_cast<std::ptrdiff_t>(j * cols));
      d.pred[j] = static_cast<std::int32_t>(std::max_element(row, row + cols) - row);
    }
  }
  return d;
}

Metrics group_metrics(const Problem& p, const CompareInput& in, const Group& g) {
  Metrics out;
  for (std::size_t m = 0; m < in.models.size(); ++m) {
    GroupData d = group_data(p, in, in.models[m], g);
    d.probabilities = p.probabilities[m];
    out.push_back(std::make_unique<ModelMetrics>(p.shape, std::move(d), p.metrics));
  }
  return out;
}

// Values indexed [group][model][metric][replicate], stored flat.
class Replicates {
 public:
  Replicates(std::size_t groups, std::size_t models, std::size_t metrics, std::size_t count)
      : models_(models),
        metrics_(metrics),
        count_(count),
        values_(groups * models * metrics * count, kNaN) {}
  double* at(std::size_t g, std::size_t m, std::size_t k) {
    return values_.data() + ((g * models_ + m) * metrics_ + k) * count_;
  }
  const double* at(std::size_t g, std::size_t m, std::size_t k) const {
    return values_.data() + ((g * models_ + m) * metrics_ + k) * count_;
  }
  std::size_t count() const { return count_; }

 private:
  std::size_t models_, metrics_, count_;
  std::vector<double> values_;
};

struct Context {
  const Problem& p;
  const CompareInput& in;
  const CompareParams& params;
  std::vector<Metrics> metrics;                            // [group][model]
  std::vector<std::vector<double>> base;                   // [group] base weights
  std::vector<std::vector<std::vector<double>>> estimate;  // [group][model][metric]
  bool weighted = false;                                   // base weights other than all 1
};

// Resample r's weights in doubles (counts times base weights), for the rare resample in which an
// example is drawn more than 255 times.
std::vector<double> draw_counts(Rng rng, std::span<const double> base) {
  std::vector<double> w(base.size(), 0.0);
  for (std::size_t draw = 0; draw < base.size(); ++draw) w[rng.below(base.size())] += 1.0;
  for (std::size_t i = 0; i < w.size(); ++i) w[i] *= base[i];
  return w;
}

// One resample's draw counts (bytes), and its weights in doubles when an example was drawn
// more than 255 times; per-slice copies.
struct Draw {
  std::vector<std::uint8_t> counts;
  std::vector<double> heavy;
  std::vector<std::uint8_t> local_counts;
  std::vector<double> local_heavy;
};

// Resample r draws n examples with replacement from the stream Rng(seed).split(r), as
// metrics::bootstrap does.
void draw(const Context& c, const Rng& root, std::size_t r, Draw& d) {
  const std::size_t n = c.p.n;
  Rng rng = root.split(r);
  d.counts.assign(n, 0);
  d.heavy.clear();
  bool overflow = false;
  for (std::size_t k = 0; k < n; ++k) {
    auto& count = d.counts[rng.below(n)];
    overflow |= count == 255;
    ++count;  // wraps on overflow: the draws are redone in doubles
  }
  if (overflow) d.heavy = draw_counts(root.split(r), c.base[0]);
}

// The weights of group g in the resample (a slice takes its examples' counts).
Weights group_weights(const Context& c, std::size_t g, Draw& d) {
  const Group& group = c.p.groups[g];
  Weights w;
  if (!d.heavy.empty()) {
    if (g > 0) d.local_heavy = gather(d.heavy, group);
    w.base = g == 0 ? std::span<const double>(d.heavy) : d.local_heavy;
    return w;
  }
  if (g > 0) {
    d.local_counts.resize(group.index.size());
    for (std::size_t j = 0; j < group.index.size(); ++j) {
      d.local_counts[j] = d.counts[group.index[j]];
    }
  }
  if (c.weighted) w.base = c.base[g];
  w.counts = g == 0 ? std::span<const std::uint8_t>(d.counts) : d.local_counts;
  return w;
}

// The paired bootstrap: the counts of resample r are every model's, metric's and slice's.
Replicates bootstrap(const Context& c, Progress& progress) {
  const auto& p = c.p;
  const std::size_t R = c.params.bootstrap.n_resamples;
  Replicates reps(p.groups.size(), c.in.models.size(), p.metrics.size(), R);
  if (R == 0) return reps;
  const Rng root(c.params.bootstrap.seed);
  parallel_for(
      R,
      [&](std::size_t r) {
        Draw d;
        draw(c, root, r, d);
        std::vector<double> values(p.metrics.size());
        for (std::size_t g = 0; g < p.groups.size(); ++g) {
          const Weights w = group_weights(c, g, d);
          for (std::size_t m = 0; m < c.in.models.size(); ++m) {
            c.metrics[g][m]->evaluate(w, values);
            for (std::size_t k = 0; k < p.metrics.size(); ++k) reps.at(g, m, k)[r] = values[k];
          }
        }
        progress.advance();
      },
      c.params.bootstrap.threads);
  return reps;
}

// Jackknife blocks of a group of `size` examples: leave-one-out up to `limit`, else `limit`
// blocks of a seeded random partition.
std::vector<std::vector<std::uint32_t>> jackknife_blocks(std::size_t size, std::size_t limit,
                                                         std::uint64_t seed, std::size_t group) {
  std::vector<std::uint32_t> order(size);
  for (std::size_t i = 0; i < size; ++i) order[i] = static_cast<std::uint32_t>(i);
  const std::size_t blocks = std::min(size, std::max<std::size_t>(limit, 2));
  if (blocks < size) {
    Rng rng = Rng(seed).split(kJackknifeStream - group);
    for (std::size_t i = size; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  }
  std::vector<std::vector<std::uint32_t>> out(blocks);
  for (std::size_t i = 0; i < size; ++i) out[i * blocks / size].push_back(order[i]);
  return out;
}

Replicates jackknife(const Context& c) {
  const auto& p = c.p;
  const std::size_t limit = c.params.jackknife_groups;
  std::size_t most = 0;
  std::vector<std::vector<std::vector<std::uint32_t>>> blocks(p.groups.size());
  for (std::size_t g = 0; g < p.groups.size(); ++g) {
    blocks[g] = jackknife_blocks(group_size(p, p.groups[g]), limit, c.params.bootstrap.seed, g);
    most = std::max(most, blocks[g].size());
  }
  Replicates jk(p.groups.size(), c.in.models.size(), p.metrics.size(), most);
  std::vector<std::pair<std::size_t, std::size_t>> tasks;
  for (std::size_t g = 0; g < p.groups.size(); ++g) {
    for (std::size_t b = 0; b < blocks[g].size(); ++b) tasks.push_back({g, b});
  }
  parallel_for(
      tasks.size(),
      [&](std::size_t t) {
        const auto [g, b] = tasks[t];
        // Counts of 1 with the block's examples left out (0): cache-friendly bytes, as resamples.
        std::vector<std::uint8_t> kept(c.base[g].size(), 1);
        std::vector<double> values(p.metrics.size());
        for (std::uint32_t i : blocks[g][b]) kept[i] = 0;
        Weights w;
        if (c.weighted) w.base = c.base[g];
        w.counts = kept;
        for (std::size_t m = 0; m < c.in.models.size(); ++m) {
          c.metrics[g][m]->evaluate(w, values);
          for (std::size_t k = 0; k < p.metrics.size(); ++k) jk.at(g, m, k)[b] = values[k];
        }
      },
      c.params.bootstrap.threads);
  return jk;
}

std::size_t jackknife_count(const Context& c, std::size_t g) {
  const std::size_t size = group_size(c.p, c.p.groups[g]);
  return std::min(size, std::max<std::size_t>(c.params.jackknife_groups, 2));
}

// Null distribution of model - baseline on each metric under paired swaps within the group.
std::vector<std::vector<double>> permutation_null(const Context& c, std::size_t g, std::size_t a,
                                                  std::size_t b) {
  const auto& p = c.p;
  const Group& group = p.groups[g];
  const std::size_t size = group_size(p, group);
  const std::size_t P = c.params.n_permutations;
  std::vector<std::vector<double>> null(p.metrics.size(), std::vector<double>(P, kNaN));
  const Rng root(c.params.bootstrap.seed);
  parallel_for(
      P,
      [&](std::size_t t) {
        Rng rng = root.split(kPermutationStream + t);
        std::vector<std::uint8_t> swap(size);
        for (auto& s : swap) s = static_cast<std::uint8_t>(rng.next() >> 63);
        const auto& ma = c.in.models[a];
        const auto& mb = c.in.models[b];
        GroupData da = group_data(p, c.in, ma, group, &mb, &swap);
        GroupData db = group_data(p, c.in, mb, group, &ma, &swap);
        da.probabilities = p.probabilities[a] && p.probabilities[b];
        db.probabilities = da.probabilities;
        const ModelMetrics xa(p.shape, std::move(da), p.metrics);
        const ModelMetrics xb(p.shape, std::move(db), p.metrics);
        std::vector<double> va(p.metrics.size()), vb(p.metrics.size());
        xa.evaluate({c.base[g], {}}, va);
        xb.evaluate({c.base[g], {}}, vb);
        for (std::size_t k = 0; k < p.metrics.size(); ++k) null[k][t] = va[k] - vb[k];
      },
      c.params.bootstrap.threads);
  return null;
}

bool whole_numbers(std::span<const double> w) {
  return std::all_of(w.begin(), w.end(), [](double v) { return v == std::floor(v); });
}

std::optional<McNemarDetail> mcnemar(const Context& c, std::size_t g, std::size_t a,
                                     std::size_t b) {
  if (c.p.shape.task == Task::regression || !whole_numbers(c.base[g])) return std::nullopt;
  const Group& group = c.p.groups[g];
  const GroupData da = group_data(c.p, c.in, c.in.models[a], group);
  const GroupData db = group_data(c.p, c.in, c.in.models[b], group);
  McNemarDetail d;
  for (std::size_t j = 0; j < da.y.size(); ++j) {
    const bool ra = da.pred[j] == da.y[j], rb = db.pred[j] == db.y[j];
    if (ra && !rb) d.model_only += c.base[g][j];
    if (!ra && rb) d.baseline_only += c.base[g][j];
  }
  const auto r = mcnemar_exact(d.model_only, d.baseline_only);
  d.p_value = r.p_value;
  d.mid_p = r.mid_p;
  return d;
}

std::optional<DelongDetail> delong(const Context& c, std::size_t g, std::size_t a, std::size_t b) {
  if (c.p.shape.task != Task::binary) return std::nullopt;
  const Group& group = c.p.groups[g];
  const GroupData da = group_data(c.p, c.in, c.in.models[a], group);
  const GroupData db = group_data(c.p, c.in, c.in.models[b], group);
  std::vector<std::uint8_t> y(da.y.size());
  for (std::size_t j = 0; j < y.size(); ++j) y[j] = da.y[j] == c.p.shape.positive;
  return delong_difference(y, da.scores, db.scores, c.base[g], c.params.bootstrap.confidence);
}

std::string group_words(const Group& g) {
  return g.column.empty() ? std::string() : fmt::format(" on {}={}", g.column, g.value);
}

// Differences of every pair and metric on group g.
std::vector<Difference> differences(const Context& c, std::size_t g, const Replicates& reps,
                                    const Replicates& jk) {
  const auto& p = c.p;
  const std::size_t R = reps.count();
  std::vector<Difference> out;
  for (const auto& [a, b] : p.pairs) {
    std::vector<std::vector<double>> null;
    if (c.params.test == TestKind::permutation) null = permutation_null(c, g, a, b);
    for (std::size_t k = 0; k < p.metrics.size(); ++k) {
      Difference d;
      d.model = c.in.models[a].name;
      d.baseline = c.in.models[b].name;
      d.metric = p.metrics[k];
      d.higher_is_better = p.higher_is_better[k];
      d.difference = c.estimate[g][a][k] - c.estimate[g][b][k];
      std::vector<double> diff(R), jdiff(R ? jackknife_count(c, g) : 0);
      for (std::size_t r = 0; r < R; ++r) diff[r] = reps.at(g, a, k)[r] - reps.at(g, b, k)[r];
      for (std::size_t j = 0; j < jdiff.size(); ++j) {
        jdiff[j] = jk.at(g, a, k)[j] - jk.at(g, b, k)[j];
      }
      const double conf = c.params.bootstrap.confidence;
      const std::string what =
          fmt::format("{} - {} on {}{}", d.model, d.baseline, d.metric, group_words(p.groups[g]));
      d.percentile =
          R ? percentile_interval(diff, d.difference, conf) : Interval{d.difference, kNaN, kNaN};
      d.bca = R ? bca_interval(diff, d.difference, jdiff, conf, what)
                : Interval{d.difference, kNaN, kNaN};
      if (d.metric == "roc_auc") d.delong = delong(c, g, a, b);
      if (d.metric == "accuracy") d.mcnemar = mcnemar(c, g, a, b);
      const TestKind test = c.params.test;
      if (test == TestKind::permutation) {
        d.test = "paired permutation";
        d.p_value = permutation_p_value(null[k], d.difference);
      } else if (test == TestKind::automatic && d.delong) {
        d.test = "DeLong";
        d.p_value = d.delong->p_value;
      } else if (test == TestKind::automatic && d.mcnemar) {
        d.test = "McNemar exact";
        d.p_value = d.mcnemar->p_value;
      } else {
        d.test = "paired bootstrap";
        d.p_value = R ? bootstrap_p_value(diff) : kNaN;
      }
      out.push_back(std::move(d));
    }
  }
  return out;
}

void adjust(std::vector<Difference*> family, Correction correction) {
  std::vector<double> p;
  for (const auto* d : family) p.push_back(d->p_value);
  const auto adjusted = adjust_p_values(p, correction);
  for (std::size_t i = 0; i < family.size(); ++i) family[i]->p_adjusted = adjusted[i];
}

// Every rate at a chosen operating point (the point's own metric has the honest interval).
std::vector<std::pair<std::string, double>> metrics_at(const ChosenPoint& point) {
  std::vector<std::pair<std::string, double>> out;
  for (const PointMetric metric :
       {PointMetric::precision, PointMetric::recall, PointMetric::f1, PointMetric::fpr,
        PointMetric::specificity, PointMetric::accuracy}) {
    out.push_back({std::string(to_string(metric)), point_value(point, metric)});
  }
  return out;
}

ModelSummary summary(const Context& c, std::size_t g, std::size_t m, const Replicates& reps) {
  ModelSummary s;
  s.name = c.in.models[m].name;
  const std::size_t R = reps.count();
  for (std::size_t k = 0; k < c.p.metrics.size(); ++k) {
    MetricValue v;
    v.metric = c.p.metrics[k];
    v.value = c.estimate[g][m][k];
    v.threshold = kNaN;
    if (const auto point = c.metrics[g][m]->chosen_point(k, {c.base[g], {}})) {
      v.threshold = point->threshold;
      v.at_point = metrics_at(*point);
    }
    const std::span<const double> r(reps.at(g, m, k), R);
    const Interval ci = R ? percentile_interval(r, v.value, c.params.bootstrap.confidence)
                          : Interval{v.value, kNaN, kNaN};
    v.low = ci.low;
    v.high = ci.high;
    v.n_undefined = static_cast<std::size_t>(
        std::count_if(r.begin(), r.end(), [](double x) { return std::isnan(x); }));
    s.metrics.push_back(v);
  }
  return s;
}

SliceResult slice_result(const Context& c, std::size_t g, const Replicates& reps,
                         std::vector<Difference> diffs) {
  const Group& group = c.p.groups[g];
  SliceResult s;
  s.column = group.column;
  s.value = group.value;
  s.n_examples = group.index.size();
  for (double w : c.base[g]) s.support += w;
  s.positives = s.negatives = kNaN;
  if (c.p.shape.task == Task::binary) {
    s.positives = s.negatives = 0;
    for (std::size_t j = 0; j < group.index.size(); ++j) {
      const bool positive = c.in.y_true[group.index[j]] == c.p.shape.positive;
      (positive ? s.positives : s.negatives) += c.base[g][j];
    }
  }
  s.too_small =
      s.n_examples < c.params.min_slice_size ||
      (c.p.shape.task == Task::binary &&
       std::min(s.positives, s.negatives) < static_cast<double>(c.params.min_slice_class));
  for (std::size_t m = 0; m < c.in.models.size(); ++m) s.models.push_back(summary(c, g, m, reps));
  s.differences = std::move(diffs);
  return s;
}

std::vector<WorstSlice> worst_slices(const Context& c, const Replicates& reps,
                                     const std::vector<SliceResult>& slices) {
  std::vector<WorstSlice> out;
  const std::size_t R = reps.count();
  for (const auto& column : c.in.slices) {
    for (std::size_t m = 0; m < c.in.models.size(); ++m) {
      for (std::size_t k = 0; k < c.p.metrics.size(); ++k) {
        std::size_t worst = 0;
        for (std::size_t g = 1; g < c.p.groups.size(); ++g) {
          if (c.p.groups[g].column != column.name) continue;
          const double v = c.estimate[g][m][k];
          if (std::isnan(v)) continue;
          const double best = worst ? c.estimate[worst][m][k] : kNaN;
          if (!worst || (c.p.higher_is_better[k] ? v < best : v > best)) worst = g;
        }
        if (!worst) continue;
        WorstSlice w;
        w.model = c.in.models[m].name;
        w.metric = c.p.metrics[k];
        w.column = column.name;
        w.value = c.p.groups[worst].value;
        const auto& sv = slices[worst - 1].models[m].metrics[k];
        w.slice = {sv.value, sv.low, sv.high};
        std::vector<double> gap(R);
        for (std::size_t r = 0; r < R; ++r) gap[r] = reps.at(worst, m, k)[r] - reps.at(0, m, k)[r];
        const double point = c.estimate[worst][m][k] - c.estimate[0][m][k];
        w.gap = R ? percentile_interval(gap, point, c.params.bootstrap.confidence)
                  : Interval{point, kNaN, kNaN};
        out.push_back(w);
      }
    }
  }
  return out;
}

std::string number(double v) {
  return fmt::format("{:.3g}", v);
}

// One sentence per whole-data difference; slice differences only where they are significant.
std::vector<std::string> conclusions(const CompareResult& r) {
  std::vector<std::string> out;
  const double alpha = 1 - r.params.bootstrap.confidence;
  const std::string adjusted = r.params.correction == Correction::none
                                   ? "p"
                                   : to_string(r.params.correction) + "-adjusted p";
  auto sentence = [&](const Difference& d, const std::string& where) {
    const double gain = d.higher_is_better ? d.difference : -d.difference;
    const std::string interval =
        std::isnan(d.percentile.low)
            ? std::string()
            : fmt::format(" [{}, {}]", number(d.percentile.low), number(d.percentile.high));
    const std::string p = fmt::format("{} = {} ({})", adjusted, number(d.p_adjusted), d.test);
    if (std::isnan(d.difference) || std::isnan(d.p_adjusted)) {
      return fmt::format("{} vs {} on {}{}: undefined (NaN)", d.model, d.baseline, d.metric, where);
    }
    if (d.p_adjusted < alpha && gain != 0) {
      const bool covers =
          !std::isnan(d.percentile.low) && d.percentile.low <= 0 && d.percentile.high >= 0;
      return fmt::format("{} {} {} on {}{} by {}{}, {}{}", d.model,
                         gain > 0 ? "beats" : "is worse than", d.baseline, d.metric, where,
                         number(std::abs(d.difference)), interval, p,
                         covers ? "; the bootstrap interval still includes 0" : "");
    }
    const bool excludes =
        !std::isnan(d.percentile.low) && (d.percentile.low > 0 || d.percentile.high < 0);
    if (excludes && d.p_value < alpha && r.params.correction != Correction::none) {
      // Significant alone, not after the correction: say both, claim neither way.
      return fmt::format(
          "{} {} {} on {}{} by {}{} (unadjusted p = {}), but not after the {} correction for the "
          "run's tests: {}",
          d.model, gain > 0 ? "scores better than" : "scores worse than", d.baseline, d.metric,
          where, number(std::abs(d.difference)), interval, number(d.p_value),
          to_string(r.params.correction), p);
    }
    return fmt::format("{} and {} do not differ detectably on {}{}: difference {}{}, {}", d.model,
                       d.baseline, d.metric, where, number(d.difference), interval, p);
  };
  for (const auto& d : r.differences) out.push_back(sentence(d, ""));
  for (const auto& s : r.slices) {
    for (const auto& d : s.differences) {
      if (!std::isnan(d.p_adjusted) && d.p_adjusted < alpha) {
        out.push_back(sentence(d, fmt::format(" on {}={}", s.column, s.value)));
      }
    }
  }
  return out;
}

void warn_undefined(const CompareResult& r) {
  for (const auto& m : r.models) {
    for (const auto& v : m.metrics) {
      if (std::isnan(v.value)) {
        warn(WarningKind::undefined_metric,
             fmt::format("compare: {} of model {} is undefined (NaN) on the whole data", v.metric,
                         m.name));
      }
    }
  }
  std::vector<std::string> small;
  for (const auto& s : r.slices) {
    if (s.too_small)
      small.push_back(fmt::format("{}={} ({} examples)", s.column, s.value, s.n_examples));
  }
  if (!small.empty()) {
    const std::size_t listed = std::min<std::size_t>(small.size(), 5);
    std::string list = fmt::format("{}", fmt::join(small.begin(), small.begin() + listed, ", "));
    if (small.size() > 5) list += fmt::format(" and {} more", small.size() - 5);
    warn(fmt::format(
        "compare: {} slice(s) too small for their intervals to mean much (fewer than {} "
        "examples{}): {}",
        small.size(), r.params.min_slice_size,
        r.task == Task::binary
            ? fmt::format(" or fewer than {} of a class", r.params.min_slice_class)
            : "",
        list));
  }
}

}  // namespace

CompareResult run(const Problem& p, const CompareInput& in, const CompareParams& params) {
  // Weights near 1e308 or 1e-310 are rescaled exactly by a power of two (every metric here is
  // scale-invariant, McNemar's counts excepted, which need whole numbers anyway).
  const metrics::ScaledWeights scaled(in.weights);
  std::vector<double> base(scaled.span().begin(), scaled.span().end());
  if (base.empty()) base.assign(p.n, 1.0);
  Context c{p, in, params, {}, {}, {}, !in.weights.empty()};
  for (const auto& g : p.groups) {
    c.metrics.push_back(group_metrics(p, in, g));
    c.base.push_back(gather(base, g));
    std::vector<std::vector<double>> est(in.models.size(), std::vector<double>(p.metrics.size()));
    for (std::size_t m = 0; m < in.models.size(); ++m) {
      // Undefined values are summarised once by warn_undefined (slices: by the table).
      const ScopedWarningHandler mute{WarningHandler{}};
      c.metrics.back()[m]->evaluate({c.base.back(), {}}, est[m]);
    }
    c.estimate.push_back(std::move(est));
  }

  const std::size_t R = params.bootstrap.n_resamples;
  Progress progress("compare", R);
  std::optional<ScopedWarningHandler> muted(std::in_place, WarningHandler{});
  const Replicates reps = bootstrap(c, progress);
  const Replicates jk = R ? jackknife(c) : Replicates(0, 0, 0, 0);
  muted.reset();
  progress.finish();

  CompareResult r;
  r.task = p.shape.task;
  r.classes = in.classes;
  if (p.shape.task == Task::binary) r.positive_class = in.classes[p.shape.positive];
  r.n_examples = p.n;
  r.weighted = !in.weights.empty();
  for (double w : in.weights) r.total_weight += w;
  if (in.weights.empty()) r.total_weight = static_cast<double>(p.n);
  r.metrics = p.metrics;
  r.baseline = in.models[p.baseline].name;
  r.params = params;
  for (std::size_t m = 0; m < in.models.size(); ++m) r.models.push_back(summary(c, 0, m, reps));
  r.differences = differences(c, 0, reps, jk);
  for (std::size_t g = 1; g < p.groups.size(); ++g) {
    const ScopedWarningHandler quiet{WarningHandler{}};  // per-slice BCa/DeLong warnings: too many
    r.slices.push_back(slice_result(c, g, reps, differences(c, g, reps, jk)));
  }
  std::vector<Difference*> whole, sliced;
  for (auto& d : r.differences) whole.push_back(&d);
  for (auto& s : r.slices) {
    for (auto& d : s.differences) sliced.push_back(&d);
  }
  adjust(whole, params.correction);
  adjust(sliced, params.correction);
  r.worst_slices = worst_slices(c, reps, r.slices);
  r.conclusions = conclusions(r);
  r.notes.push_back(fmt::format(
      "{} resamples (seed {}), {:g}% intervals; p-values {}; {} correction over the {} "
      "whole-data test(s){}",
      R, params.bootstrap.seed, 100 * params.bootstrap.confidence,
      params.test == TestKind::permutation
          ? fmt::format("from {} paired permutations", params.n_permutations)
      : params.test == TestKind::bootstrap ? std::string("from the paired bootstrap")
                                           : std::string("DeLong for roc_auc, exact McNemar "
                                                         "for accuracy, else the paired "
                                                         "bootstrap"),
      to_string(params.correction), whole.size(),
      sliced.empty() ? std::string()
                     : fmt::format(" and, separately, the {} slice tests", sliced.size())));
  warn_undefined(r);
  return r;
}

}  // namespace assay::compare::detail

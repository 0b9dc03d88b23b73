#include "sampling.hpp"

#include <chrono>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "assay/core/interrupt.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/warning.hpp"
#include "enumerate.hpp"
#include "hamming.hpp"

namespace assay::count::detail {

namespace {

// Draws up to n points, draw() each, checking the time limit (seconds, 0 = none) and for an
// interrupt every block of 256 points; returns how many were drawn. Samples of a million points
// or more show a progress bar (rate and time left) named `task`.
template <class Draw>
std::size_t draw_points(std::size_t n, double time_limit, const std::string& task,
                        std::string& stopped_by, Draw draw) {
  using Clock = std::chrono::steady_clock;
  constexpr std::size_t kBlock = 256;  // a network's block takes well under a second
  const auto start = Clock::now();
  std::unique_ptr<Progress> progress;
  if (n >= (std::size_t{1} << 20)) progress = std::make_unique<Progress>(task, n);
  std::size_t i = 0;
  while (i < n) {
    if (interrupt_requested()) {
      stopped_by = "interrupted";
      break;
    }
    if (time_limit > 0 &&
        std::chrono::duration<double>(Clock::now() - start).count() >= time_limit) {
      stopped_by = "time limit";
      break;
    }
    const std::size_t block = std::min(kBlock, n - i);
    for (std::size_t b = 0; b < block; ++b) draw();
    i += block;
    if (progress) progress->advance(block);
  }
  if (progress) progress->finish();
  return i;
}

void warn_stopped(const std::string& what, std::size_t drawn, std::size_t requested,
                  const std::string& stopped_by, double time_limit) {
  if (stopped_by.empty()) return;
  warn(fmt::format(
      "{} stopped after {} of {} points ({}); its estimates and intervals use the points drawn",
      what, drawn, requested,
      stopped_by == "time limit" ? fmt::format("the time limit of {} s", time_limit)
                                 : std::string("interrupted")));
}

// Counts of one view: per truth TP/FP/TN/FN, overall correct, per safety property S and N.
struct PointTally {
  std::vector<SampleLabel> labels;
  std::uint64_t correct = 0, n = 0;
  std::vector<std::uint64_t> safe, unsafe;
};

void finish_view(const PointTally& t, double confidence, SampleView& v) {
  v.n = t.n;
  v.accuracy = proportion(t.correct, t.n, confidence);
  for (SampleLabel l : t.labels) {
    l.accuracy = proportion(l.tp + l.tn, t.n, confidence);
    l.precision = proportion(l.tp, l.tp + l.fp, confidence);
    l.recall = proportion(l.tp, l.tp + l.fn, confidence);
    const std::uint64_t d = 2 * l.tp + l.fp + l.fn;
    l.f1 = d == 0 ? std::numeric_limits<double>::quiet_NaN()
                  : 2.0 * static_cast<double>(l.tp) / static_cast<double>(d);
    v.labels.push_back(l);
  }
  for (std::size_t i = 0; i < t.safe.size(); ++i) {
    v.safety.push_back(proportion(t.safe[i], t.safe[i] + t.unsafe[i], confidence));
  }
}

// Tallies points into a view: the true label comes from the test set or from the truths.
class Tallier {
 public:
  Tallier(const Model& m, const Checks& c) : m_(m), c_(c) {}

  PointTally empty() const {
    PointTally t;
    for (const auto& tr : c_.truths) {
      SampleLabel s;
      s.index = tr.label;
      t.labels.push_back(s);
    }
    t.safe.assign(c_.safety.size(), 0);
    t.unsafe.assign(c_.safety.size(), 0);
    return t;
  }

  /// One point; true_label < 0 means "from the truths".
  void add(const double* x, std::int32_t true_label, PointTally& t) {
    const std::int32_t pred = model_at(m_, x, leaves_, scores_);
    ++t.n;
    bool any_truth = false;
    std::int32_t truth_label = true_label;
    for (std::size_t l = 0; l < c_.truths.size(); ++l) {
      const bool pos = true_label < 0 ? truth_holds(l, x, pred) : c_.truths[l].label == true_label;
      if (pos && !any_truth) {
        any_truth = true;
        truth_label = c_.truths[l].label;
      }
      const bool p = pred == c_.truths[l].label;
      SampleLabel& s = t.labels[l];
      if (p && pos) ++s.tp;
      if (p && !pos) ++s.fp;
      if (!p && !pos) ++s.tn;
      if (!p && pos) ++s.fn;
    }
    if (!c_.truths.empty() && any_truth && pred == truth_label) ++t.correct;
    add_safety(x, pred, t);
  }

  std::int32_t label_at(const double* x) { return model_at(m_, x, leaves_, scores_); }

 private:
  bool truth_holds(std::size_t l, const double* x, std::int32_t pred) const {
    const auto& tr = c_.truths[l];
    const std::size_t src = tr.formula ? l : static_cast<std::size_t>(tr.complement_of);
    const bool v = evaluate(*c_.truths[src].formula, x, pred, scores_.data(), scores_.size()) != 0;
    return tr.formula ? v : !v;
  }

  void add_safety(const double* x, std::int32_t pred, PointTally& t) const {
    for (std::size_t i = 0; i < c_.safety.size(); ++i) {
      if (evaluate(c_.safety[i]->pre, x, pred, scores_.data(), scores_.size()) == 0) continue;
      if (evaluate(c_.safety[i]->post, x, pred, scores_.data(), scores_.size()) != 0) {
        ++t.safe[i];
      } else {
        ++t.unsafe[i];
      }
    }
  }

  const Model& m_;
  const Checks& c_;
  std::vector<std::size_t> leaves_;
  std::vector<double> scores_;
};

SampleView test_set_view(const Model& m, const Checks& c, const TestSet& test,
                         const SampleParams& params) {
  Tallier tallier(m, c);
  PointTally t = tallier.empty();
  const std::size_t d = m.n_features;
  for (std::size_t i = 0; i < test.y.size(); ++i) {
    tallier.add(test.x.data() + i * d, test.y[i], t);
  }
  SampleView v;
  v.source = "test set";
  finish_view(t, params.confidence, v);
  for (std::size_t i = 0; i < c.regions.size(); ++i) v.regions.push_back(proportion(0, 0));
  return v;
}

SampleView uniform_view(const Model& m, const Spec& spec, const Checks& c,
                        const SampleParams& params, std::size_t j) {
  const std::size_t n = params.sizes[j];
  Tallier tallier(m, c);
  PointTally t = tallier.empty();
  Rng rng = Rng(params.seed).split(j);
  const Box full = full_box(spec.domain);
  const std::string name = fmt::format("uniform sample {} of {}", j + 1, params.sizes.size());
  SampleView v;
  v.source = "uniform";
  v.requested = n;
  const std::size_t drawn = draw_points(n, params.time_limit, "count: " + name, v.stopped_by, [&] {
    const auto x = random_point(spec.domain, full, rng);
    tallier.add(x.data(), -1, t);
  });
  warn_stopped(name, drawn, n, v.stopped_by, params.time_limit);
  finish_view(t, params.confidence, v);
  for (std::size_t i = 0; i < c.regions.size(); ++i) {
    const RegionSpec& reg = *c.regions[i];
    Rng rr = Rng(params.seed).split(1'000'003 * (i + 1) + j);
    std::uint64_t hit = 0;
    std::string stopped_by;
    const std::string region = fmt::format("{}, region {}", name, reg.name);
    std::size_t k = 0;
    if (reg.metric == RegionSpec::Metric::hamming) {
      HammingSampler ball(reg.center, static_cast<std::uint64_t>(reg.epsilon));
      std::vector<double> x;
      k = draw_points(n, params.time_limit, "count: " + region, stopped_by, [&] {
        ball.draw(rr, x);
        if (tallier.label_at(x.data()) == reg.label) ++hit;
      });
    } else {
      const Box box = region_box(spec.domain, reg.center, reg.epsilon);
      k = draw_points(n, params.time_limit, "count: " + region, stopped_by, [&] {
        const auto x = random_point(spec.domain, box, rr);
        if (tallier.label_at(x.data()) == reg.label) ++hit;
      });
    }
    warn_stopped(region, k, n, stopped_by, params.time_limit);
    v.regions.push_back(proportion(hit, k, params.confidence));
  }
  return v;
}

}  // namespace

std::vector<SampleView> sample_views(const Model& m, const Spec& spec, const Checks& c,
                                     const TestSet& test, const SampleParams& params) {
  std::vector<SampleView> out;
  if (!test.y.empty()) out.push_back(test_set_view(m, c, test, params));
  for (std::size_t j = 0; j < params.sizes.size(); ++j) {
    out.push_back(uniform_view(m, spec, c, params, j));
  }
  return out;
}

std::vector<Proportion> region_samples(const Model& m, const Domain& d, const Box& box,
                                       std::int32_t label, const SampleParams& params) {
  const std::vector<std::size_t>& sizes = params.sizes;
  const double time_limit = params.time_limit;
  std::vector<std::size_t> leaves;
  std::vector<double> scores;
  std::vector<Proportion> out;
  for (std::size_t j = 0; j < sizes.size(); ++j) {
    Rng rng = Rng(params.seed).split(j);
    std::uint64_t hit = 0;
    std::string stopped_by;
    const std::string name = fmt::format("region sample {} of {}", j + 1, sizes.size());
    const std::size_t n = draw_points(sizes[j], time_limit, "robustness: " + name, stopped_by, [&] {
      const auto p = random_point(d, box, rng);
      if (model_at(m, p.data(), leaves, scores) == label) ++hit;
    });
    warn_stopped(name, n, sizes[j], stopped_by, time_limit);
    out.push_back(proportion(hit, n, params.confidence));
  }
  return out;
}

}  // namespace assay::count::detail

#include "enumerate.hpp"

#include <algorithm>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/count/count_params.hpp"

namespace assay::count::detail {

// The model at a point: label and scores.
std::int32_t model_at(const Model& m, const double* x, std::vector<std::size_t>& leaves,
                      std::vector<double>& scores) {
  const std::span<const double> xs(x, m.n_features);
  if (m.kind == ModelKind::network || m.kind == ModelKind::graph) {
    scores = predict_scores(m, xs);
    if (scores.size() == 1 && m.classification) return scores[0] > 0.5 ? 1 : 0;
    return static_cast<std::int32_t>(std::max_element(scores.begin(), scores.end()) -
                                     scores.begin());
  }
  leaves.resize(m.trees.size());
  for (std::size_t t = 0; t < m.trees.size(); ++t) leaves[t] = tree_leaf(m, m.trees[t], xs);
  return label_from_leaves(m, leaves, &scores);
}

std::vector<std::uint64_t> enumerate_box(const Model& m, const Domain& d, const Box& box,
                                         std::uint64_t limit, int threads, std::size_t n_counters,
                                         const Visit& visit, const std::string& task) {
  const mpz_class size = box_size(box);
  if (size > mpz_class(static_cast<unsigned long>(limit))) {
    fail(
        "the domain has {} points, more than the enumeration limit {} (use the structural "
        "method for tree models)",
        to_scientific(size), limit);
  }
  const std::uint64_t total = size.get_ui();
  const std::size_t n_vars = box.lo.size();
  const std::uint64_t n_chunks = std::max<std::uint64_t>(1, std::min<std::uint64_t>(total, 4096));
  std::vector<std::uint64_t> counts(n_chunks * n_counters, 0);
  Progress progress(task, n_chunks);
  parallel_for(
      n_chunks,
      [&](std::size_t c) {
        // c * q + min(c, r) rather than total * c / n_chunks, which overflows for large limits.
        const std::uint64_t q = total / n_chunks, r = total % n_chunks;
        const std::uint64_t begin = c * q + std::min<std::uint64_t>(c, r);
        const std::uint64_t end = begin + q + (c < r ? 1 : 0);
        std::vector<std::uint64_t> digit(n_vars);
        std::vector<double> x(n_vars);
        std::uint64_t rest = begin;
        for (std::size_t v = 0; v < n_vars; ++v) {
          const std::uint64_t w = box.hi[v] - box.lo[v] + 1;
          digit[v] = box.lo[v] + rest % w;
          rest /= w;
          x[v] = d.vars[v].value(digit[v]);
        }
        std::vector<std::size_t> leaves;
        std::vector<double> scores;
        std::uint64_t* counters = counts.data() + c * n_counters;
        for (std::uint64_t i = begin; i < end; ++i) {
          // An interrupt leaves no partial answer here: the count throws (Interrupted).
          if ((i - begin) % 65536 == 0) throw_if_interrupted();
          Outputs out;
          out.label = model_at(m, x.data(), leaves, scores);
          out.scores = scores.data();
          out.n_scores = scores.size();
          visit(x.data(), out, counters);
          for (std::size_t v = 0; v < n_vars; ++v) {  // odometer, variable 0 fastest
            if (digit[v] < box.hi[v]) {
              ++digit[v];
              x[v] = d.vars[v].value(digit[v]);
              break;
            }
            digit[v] = box.lo[v];
            x[v] = d.vars[v].value(digit[v]);
          }
        }
        progress.advance();
      },
      threads);
  progress.finish();
  std::vector<std::uint64_t> sum(n_counters, 0);
  for (std::uint64_t c = 0; c < n_chunks; ++c) {
    for (std::size_t k = 0; k < n_counters; ++k) sum[k] += counts[c * n_counters + k];
  }
  return sum;
}

StageCounts enumeration_counts(const Model& m, const Spec& spec, const Checks& c,
                               std::uint64_t limit, int threads) {
  StageCounts r = empty_counts(c, to_string(CountMethod::enumerate));
  const std::size_t k = c.truths.size();
  const std::size_t n_counters = 4 * k + 2 * c.safety.size();
  if (n_counters == 0) return r;
  const Box box = full_box(spec.domain);
  const auto counts = enumerate_box(
      m, spec.domain, box, limit, threads, n_counters,
      [&](const double* x, const Outputs& out, std::uint64_t* counters) {
        for (std::size_t l = 0; l < k; ++l) {
          const auto& t = c.truths[l];
          // A complemented label reads its source's truth (evaluated again: cheap, and no
          // per-point buffer is needed).
          const auto& src = t.formula ? t : c.truths[t.complement_of];
          const bool v = evaluate(*src.formula, x, out.label, out.scores, out.n_scores) != 0;
          const bool pos = t.formula ? v : !v;
          const bool pred = out.label == t.label;
          counters[4 * l + (pred ? (pos ? 0 : 1) : (pos ? 3 : 2))] += 1;
        }
        for (std::size_t i = 0; i < c.safety.size(); ++i) {
          if (evaluate(c.safety[i]->pre, x, out.label, out.scores, out.n_scores) == 0) continue;
          const bool post =
              evaluate(c.safety[i]->post, x, out.label, out.scores, out.n_scores) != 0;
          counters[4 * k + 2 * i + (post ? 0 : 1)] += 1;
        }
      },
      "count: enumerate");
  for (std::size_t l = 0; l < k; ++l) {
    r.labels[l].tp = to_mpz(counts[4 * l]);
    r.labels[l].fp = to_mpz(counts[4 * l + 1]);
    r.labels[l].tn = to_mpz(counts[4 * l + 2]);
    r.labels[l].fn = to_mpz(counts[4 * l + 3]);
  }
  for (std::size_t i = 0; i < c.safety.size(); ++i) {
    r.safety[i].satisfied = to_mpz(counts[4 * k + 2 * i]);
    r.safety[i].violated = to_mpz(counts[4 * k + 2 * i + 1]);
  }
  r.boxes = box_size(box).get_ui();
  return r;
}

mpz_class enumerated_region_count(const Model& m, const Domain& d, const Box& region,
                                  std::int32_t label, std::uint64_t limit, int threads,
                                  std::uint64_t& points) {
  const auto counts = enumerate_box(
      m, d, region, limit, threads, 1,
      [&](const double*, const Outputs& out, std::uint64_t* counters) {
        if (out.label == label) ++counters[0];
      },
      "count: enumerate region");
  points += box_size(region).get_ui();
  return to_mpz(counts[0]);
}

}  // namespace assay::count::detail

#include "structural.hpp"

#include "assay/core/interrupt.hpp"
#include "assay/count/count_params.hpp"

namespace assay::count::detail {

namespace {

// Calls on_box(engine, box, size, outputs, acc) for every model box of `box`, in parallel: the
// boxes of the first tree's leaves are dealt out to workers, each with its own copy of the engine
// and its own accumulator. Counts are exact integers, so the sum of the accumulators does not
// depend on the thread count.
template <typename N, typename Acc, typename F>
Acc parallel_model_boxes(const Structural<N>& proto, const Box& box, const N& size, int threads,
                         const Acc& zero, const F& on_box, std::uint64_t& decided) {
  Structural<N> collector = proto;
  Box b = box;
  auto seeds = collector.seeds(b, size);
  const int workers = resolve_threads(threads, std::max<std::size_t>(seeds.size(), 1));
  std::vector<Acc> acc(static_cast<std::size_t>(workers), zero);
  std::vector<std::uint64_t> boxes(static_cast<std::size_t>(workers), 0);
  Progress progress("count: structural", seeds.size());
  parallel_for(
      static_cast<std::size_t>(workers),
      [&](std::size_t w) {
        Structural<N> engine = proto;
        for (std::size_t i = w; i < seeds.size(); i += static_cast<std::size_t>(workers)) {
          throw_if_interrupted();  // no partial answer: the count throws (Interrupted)
          engine.from_seed(seeds[i], [&](Box& bb, const N& s, const Outputs& out) {
            on_box(engine, bb, s, out, acc[w]);
          });
          progress.advance();
        }
        boxes[w] = engine.decided();
      },
      workers);
  progress.finish();
  Acc total = zero;
  for (std::size_t w = 0; w < acc.size(); ++w) {
    total += acc[w];
    decided += boxes[w];
  }
  return total;
}

// Exact TP/FP/TN/FN per label, summed over workers.
template <typename N>
struct LabelTally {
  std::vector<N> tp, fp, tn, fn;
  explicit LabelTally(std::size_t k) : tp(k, N(0)), fp(k, N(0)), tn(k, N(0)), fn(k, N(0)) {}
  LabelTally& operator+=(const LabelTally& o) {
    for (std::size_t l = 0; l < tp.size(); ++l) {
      tp[l] += o.tp[l];
      fp[l] += o.fp[l];
      tn[l] += o.tn[l];
      fn[l] += o.fn[l];
    }
    return *this;
  }
};

template <typename N>
struct SafetyTally {
  N satisfied = N(0);
  N pre = N(0);
  SafetyTally& operator+=(const SafetyTally& o) {
    satisfied += o.satisfied;
    pre += o.pre;
    return *this;
  }
};

}  // namespace

template <typename N>
StageCounts structural_counts(const Model& m, const Spec& spec, const Checks& c, int threads) {
  StageCounts r = empty_counts(c, to_string(CountMethod::structural));
  Structural<N> proto(m, spec.domain);
  const std::size_t k = c.truths.size();
  const Box full = full_box(spec.domain);
  const N size = initial_size<N>(full);
  std::uint64_t decided = 0;
  if (k > 0) {
    bool truths_read_scores = false;
    for (const auto& t : c.truths) truths_read_scores |= t.formula && reads_scores(*t.formula);
    proto.set_early_stop(!truths_read_scores);
    const LabelTally<N> tally = parallel_model_boxes(
        proto, full, size, threads, LabelTally<N>(k),
        [&](Structural<N>& engine, Box& b, const N& s, const Outputs& out, LabelTally<N>& acc) {
          std::vector<N> positives(k, N(0));
          for (std::size_t l = 0; l < k; ++l) {
            if (c.truths[l].formula == nullptr) continue;
            engine.count_all(b, s, {c.truths[l].formula}, out, positives[l]);
          }
          for (std::size_t l = 0; l < k; ++l) {
            const N pos =
                c.truths[l].formula ? positives[l] : s - positives[c.truths[l].complement_of];
            if (out.label == c.truths[l].label) {
              acc.tp[l] += pos;
              acc.fp[l] += s - pos;
            } else {
              acc.fn[l] += pos;
              acc.tn[l] += s - pos;
            }
          }
        },
        decided);
    for (std::size_t l = 0; l < k; ++l) {
      r.labels[l].tp = to_mpz(tally.tp[l]);
      r.labels[l].fp = to_mpz(tally.fp[l]);
      r.labels[l].tn = to_mpz(tally.tn[l]);
      r.labels[l].fn = to_mpz(tally.fn[l]);
    }
  }
  for (std::size_t i = 0; i < c.safety.size(); ++i) {
    const Formula* f_pre = &c.safety[i]->pre;
    const Formula* f_post = &c.safety[i]->post;
    proto.set_early_stop(!reads_scores(*f_pre) && !reads_scores(*f_post));
    const SafetyTally<N> tally = parallel_model_boxes(
        proto, full, size, threads, SafetyTally<N>{},
        [&](Structural<N>& engine, Box& b, const N& s, const Outputs& out, SafetyTally<N>& acc) {
          engine.count_safety(b, s, *f_pre, *f_post, out, acc.satisfied, acc.pre);
        },
        decided);
    r.safety[i].satisfied = to_mpz(tally.satisfied);
    r.safety[i].violated = to_mpz(tally.pre) - to_mpz(tally.satisfied);
  }
  r.boxes = decided;
  return r;
}

template StageCounts structural_counts<std::uint64_t>(const Model&, const Spec&, const Checks&,
                                                      int);
template StageCounts structural_counts<mpz_class>(const Model&, const Spec&, const Checks&, int);

mpz_class structural_region_count(const Model& m, const Domain& d, const Box& region,
                                  std::int32_t label, std::uint64_t& boxes) {
  Box box = region;
  const mpz_class size = box_size(box);
  mpz_class acc = 0;
  Structural<mpz_class> engine(m, d);
  engine.set_early_stop(true);
  engine.for_each_model_box(box, size, [&](Box&, const mpz_class& s, const Outputs& out) {
    ++boxes;
    if (out.label == label) acc += s;
  });
  return acc;
}

}  // namespace assay::count::detail

// Ranking metrics, the binary functions: operating points, the PR, ROC and DET curves, the area
// under a curve, average precision and ROC AUC. Unweighted inputs take a one-pass scan of the
// sorted scores' tie blocks (scan_unweighted); the others go through RankedScores (ranking.cpp).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>

#include <fmt/format.h>

#include "assay/core/compensated_sum.hpp"
#include "assay/core/error.hpp"
#include "assay/core/radix_sort.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/vector_clones.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/ranking.hpp"
#include "metrics/ranking_detail.hpp"

namespace assay::metrics {

using namespace ranking_detail;  // ranking_detail.hpp

namespace {

/// Inputs of at least this many samples use labelled keys (below, the merge costs little and
/// the smaller footprint lets malloc reuse memory across calls instead of faulting in pages).
constexpr std::size_t kLabelledMin = std::size_t{1} << 22;

/// detail::descending_key, minus 1 for negative scores (whose keys have the top bit set), but
/// computed without canonicalising -0.0: its raw key 0x800...0 becomes +0.0's 0x7FF...F with no
/// compare. Order is kept and the top bit still splits the keys into the two sign classes.
inline std::uint64_t shifted_descending_key(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  const auto sign = static_cast<std::uint64_t>(static_cast<std::int64_t>(u) >> 63);
  const std::uint64_t k = u ^ (~sign & ~detail::kSignBit);  // negative: u; else ~(u | sign bit)
  return k - (k >> 63);
}

/// Bucket layout of the labelled-key scan, per sign class c (0: scores >= 0, 1: < 0): a key k
/// of class c goes to bucket first[c] + min(max(k >> low[c], lo_slice[c]) - lo_slice[c], last[c]).
struct LabelledBuckets {
  int low[2];
  std::uint64_t lo_slice[2];
  std::uint64_t last[2];  // the class's last bucket, relative to its first
  std::uint64_t first[2];
  std::size_t n_buckets;
};

LabelledBuckets labelled_buckets(std::span<const double> s, std::size_t n) {
  // Keys: shifted_descending_key; class c = top bit (1: negative scores). -0.0 joins +0.0 in
  // class 0, so a tie block never spans both classes. Class 0's buckets come first, then class
  // 1's; within a class, a key's bucket is its aligned power-of-two slice of the class's key
  // range [lo, hi], clamped (keys outside the range go to the end buckets). The range comes
  // from a strided sample: buckets need only be monotone, not even, and this spares a pass over
  // the scores. Unlike the highest varying key bits, a range spreads skewed scores (e.g. a
  // normal's few exponents) over the buckets, so most of them fit in cache.
  std::uint64_t lo[2] = {~detail::kSignBit, ~std::uint64_t{0}};
  std::uint64_t hi[2] = {0, detail::kSignBit};
  constexpr std::size_t kSample = 8192;
  const std::size_t stride = n / kSample;
  for (std::size_t j = 0; j < kSample; ++j) {
    const double x = s[j * stride];
    // Non-finite scores are reported by the pass below; zeros would stretch class 0's range
    // over all exponents (they go to its last bucket, clamped).
    if (!std::isfinite(x) || x == 0) continue;
    const std::uint64_t k = shifted_descending_key(x);
    const std::size_t c = k >> 63;
    lo[c] = std::min(lo[c], k);
    hi[c] = std::max(hi[c], k);
  }
  // 2^10 buckets per class, or 2^11 for a class alone in the sample and one for the other: the
  // histogram and scatter stay within ~2^11 buckets (L1-resident counts).
  const bool sampled[2] = {lo[0] <= hi[0], lo[1] <= hi[1]};
  int bits[2] = {10, 10};
  if (!sampled[0] || !sampled[1]) {
    bits[0] = sampled[0] ? 11 : 0;
    bits[1] = sampled[0] ? 0 : 11;
  }
  LabelledBuckets b;
  auto& low = b.low;
  auto& lo_slice = b.lo_slice;
  auto& last = b.last;
  for (int c = 0; c < 2; ++c) {
    if (!sampled[c]) {  // the whole class range
      lo[c] = c ? detail::kSignBit : 0;
      hi[c] = c ? ~std::uint64_t{0} : ~detail::kSignBit;
    }
    // Slices are aligned (keys in one share all bits from `low` up, which the bucket sort then
    // skips), so the range may need one more bit.
    low[c] = std::max(int(std::bit_width(hi[c] - lo[c])) - bits[c], 0);
    if (((hi[c] >> low[c]) - (lo[c] >> low[c])) >> bits[c]) ++low[c];
    low[c] = std::min(low[c], 63);
    lo_slice[c] = lo[c] >> low[c];
    last[c] = (std::uint64_t{1} << bits[c]) - 1;
  }
  b.first[0] = 0;
  b.first[1] = last[0] + 1;
  b.n_buckets = b.first[1] + last[1] + 1;
  return b;
}

/// The labelled-key scan of large inputs (see scan_unweighted); keys holds n + 3 slots.
template <typename Emit>
void scan_labelled(std::span<const std::uint8_t> y, std::span<const double> s,
                   detail::KeyArray& keys, Emit&& emit) {
  const std::size_t n = y.size();
  const LabelledBuckets b = labelled_buckets(s, n);
  const auto& low = b.low;
  const auto& lo_slice = b.lo_slice;
  const auto& last = b.last;
  const auto& first = b.first;
  const std::size_t n_buckets = b.n_buckets;
  const auto class_bucket = [&](std::uint64_t k, std::uint64_t c) {
    const std::uint64_t slice = k >> low[c];
    return first[c] + std::min(slice - std::min(slice, lo_slice[c]), last[c]);
  };
  const auto bucket = [&](std::uint64_t k) { return class_bucket(k, k >> 63); };
  // Histogram pass, which also checks the scores (in order: the first non-finite one is
  // reported).
  std::vector<std::size_t> next(n_buckets + 1, 0);
  detail::histogram(n, n_buckets, next.data(), [&](std::size_t i) {
    const double x = s[i];
    if (!std::isfinite(x)) fail_non_finite("y_score", x, i);
    return bucket(shifted_descending_key(x));
  });
  // Prefix sums; class 1 starts one slot late, leaving a gap for class 0's scan sentinel.
  std::size_t largest = 0;
  for (std::size_t d = 0; d < n_buckets; ++d) {
    largest = std::max(largest, next[d + 1]);
    next[d + 1] += next[d] + (d + 1 == first[1]);
  }
  const std::size_t n0 = next[first[1]] - 1;  // scores >= 0; class 1 is [n0 + 1, n + 1)
  const auto scatter = [&](std::size_t* ends, auto key_of, auto bucket_of) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t k = key_of(s[i]);
      keys[ends[bucket_of(k)]++] = (k << 1) | y[i];
    }
  };
  if (n0 == n || n0 == 0) {  // one class (same-sign scores): fixed bucket parameters and a
                             // simpler key (class 0 holds -0.0, class 1 does not)
    const std::uint64_t c = n0 == 0;
    const int shift = low[c];
    const std::uint64_t lo_c = lo_slice[c];
    const std::uint64_t last_c = last[c];
    const auto bucket_of = [=](std::uint64_t k) {
      const std::uint64_t slice = k >> shift;
      return std::min(slice - std::min(slice, lo_c), last_c);
    };
    const auto bits_of = [](double x) {
      std::uint64_t u;
      std::memcpy(&u, &x, sizeof u);
      return u;
    };
    if (c == 0) {
      scatter(
          next.data(),
          [&](double x) { return (bits_of(x) & ~detail::kSignBit) ^ ~detail::kSignBit; },
          bucket_of);
    } else {
      scatter(
          next.data() + first[1], [&](double x) { return bits_of(x) - 1; }, bucket_of);
    }
  } else {
    scatter(next.data(), shifted_descending_key, bucket);
  }
  // Now next[d] is where bucket d ends. Sorted by score only: the label rides along (equal
  // scores need no order), so a block of tied scores is done once found.
  detail::KeyArray scratch(largest);
  std::size_t begin = 0;
  for (std::size_t d = 0; d < n_buckets; ++d) {
    if (d == first[1]) begin = n0 + 1;
    const std::size_t end = next[d];
    if (end - begin > 1) {
      detail::radix_sort(keys.get() + begin, scratch.get(), end - begin,
                         [](std::uint64_t v) { return v >> 1; });
    }
    begin = end;
  }
  // One linear scan of [first, last), whose keys are (k & ~top) << 1 | label, k = key - add;
  // keys[last] is free.
  const auto scan = [&](std::size_t first, std::size_t last, std::uint64_t top, std::uint64_t add) {
    if (first == last) return;
    keys[last] = ((keys[last - 1] >> 1) + 1) << 1;  // sentinel in another tie block
    std::size_t i = first;
    while (i < last) {
      const std::uint64_t g = keys[i] >> 1;
      if ((keys[i + 1] >> 1) != g) {  // a tie block of one (predictable when ties are rare)
        const std::int64_t p = std::int64_t(keys[i] & 1);
        emit((g | top) + add, p, 1 - p);
        ++i;
        continue;
      }
      const std::size_t i0 = i;
      std::int64_t dp = 0;
      do {
        dp += std::int64_t(keys[i] & 1);
        ++i;
      } while ((keys[i] >> 1) == g);
      emit((g | top) + add, dp, std::int64_t(i - i0) - dp);
    }
  };
  scan(0, n0, 0, 0);
  scan(n0 + 1, n + 1, detail::kSignBit, 1);
}

/// The merge scan of small inputs (see scan_unweighted); keys holds n + 3 slots.
template <typename Emit>
void scan_merged(std::span<const std::uint8_t> y, std::span<const double> s, std::size_t n_pos,
                 detail::KeyArray& keys, Emit&& emit) {
  const std::size_t n = y.size();
  const std::size_t n_neg = n - n_pos;
  // Layout: positives, end marker, negatives, end marker, padding (read
  // ahead by one); the keys are rebuilt from the scores. ~0 is never the key of a finite double, so
  // it sorts after every real key.
  constexpr std::uint64_t kEnd = ~std::uint64_t{0};
  std::uint64_t* pos = keys.get();
  std::uint64_t* neg = keys.get() + n_pos + 1;
  {
    detail::KeyArray buffer(std::max(n_pos, n_neg));  // reused: positives, then negatives
    std::size_t ip = 0;
    std::size_t in = n_pos + 1;
    std::uint64_t key_or = 0;
    std::uint64_t key_and = ~std::uint64_t{0};
    for (std::size_t i = 0; i < n; ++i) {
      const double x = s[i];
      if (!std::isfinite(x)) fail_non_finite("y_score", x, i);
      // Branch-free (labels are random, a branch would mispredict half the time): store into
      // both streams and advance one; the other slot is overwritten next (or by an end marker).
      const std::size_t is_pos = y[i];
      const std::uint64_t k = detail::descending_key(x);
      keys[ip] = k;
      keys[in] = k;
      ip += is_pos;
      in += 1 - is_pos;
      key_or |= k;
      key_and &= k;
    }
    detail::radix_sort_keys(pos, buffer.get(), n_pos, key_or ^ key_and);
    detail::radix_sort_keys(neg, buffer.get(), n_neg, key_or ^ key_and);
  }
  pos[n_pos] = kEnd;
  neg[n_neg] = kEnd;
  neg[n_neg + 1] = kEnd;
  std::size_t i = 0;
  std::size_t j = 0;
  for (;;) {
    const std::uint64_t kp = pos[i];
    const std::uint64_t kn = neg[j];
    if (kp != kn) {
      // Fast path: the smaller key is a tie block of one (predictable when ties are rare).
      const bool take_pos = kp < kn;
      const std::uint64_t k = take_pos ? kp : kn;
      // Both loads plus a mask select: a ?: here compiles to a branch on random labels.
      const std::uint64_t mask = ~std::uint64_t{0} * std::uint64_t{take_pos};
      const std::uint64_t next = (pos[i + 1] & mask) | (neg[j + 1] & ~mask);
      if (next != k) {
        i += take_pos;
        j += !take_pos;
        emit(k, std::int64_t{take_pos}, std::int64_t{!take_pos});
        continue;
      }
    } else if (kp == kEnd) {
      break;
    }
    const std::uint64_t k = std::min(kp, kn);
    const std::size_t i0 = i;
    const std::size_t j0 = j;
    while (pos[i] == k) ++i;
    while (neg[j] == k) ++j;
    emit(k, static_cast<std::int64_t>(i - i0), static_cast<std::int64_t>(j - j0));
  }
}

/// The <= 16-byte/sample scan for unweighted binary input in group mode; `emit(key, dpos, dneg)`
/// is called once per tie block in descending score order (key: detail::descending_key of the
/// score). Large inputs use labelled keys: within each sign class (scores >= 0, scores < 0) the
/// key's top bit is constant, so it is replaced by the label. The first MSD pass scatters labelled
/// keys (8 bytes each) straight from the scores into buckets indexed by sign class and the key's
/// place in the class's key range (non-negative scores' buckets first, as in descending order),
/// each bucket is radix sorted by score (scratch: the largest bucket), then one linear scan per
/// class. Small inputs radix sort positives' and negatives' keys separately (buffer of
/// max(n_pos, n_neg) keys) and merge them, whose load-compare chain costs ~2x the linear scan.
template <typename Emit>
void scan_unweighted(std::span<const std::uint8_t> y, std::span<const double> s, Emit&& emit) {
  const std::size_t n = y.size();
  const std::size_t n_pos = check_labels(y);
  if (n == 0) return;
  detail::KeyArray keys(n + 3);
  if (n >= kLabelledMin) {
    scan_labelled(y, s, keys, emit);
  } else {
    scan_merged(y, s, n_pos, keys, emit);
  }
}

/// 2 * area under the unnormalised ROC staircase, exact in int64.
struct RocRule {
  std::int64_t tp = 0;
  std::int64_t fp = 0;
  std::int64_t area2 = 0;
  void operator()(std::uint64_t, std::int64_t dp, std::int64_t dn) {
    area2 += dn * (2 * tp + dp);
    tp += dp;
    fp += dn;
  }
};

/// Sum over tie blocks of dpos * precision (scikit-learn step AP times P).
struct StepApRule {
  std::int64_t tp = 0;
  std::int64_t fp = 0;
  CompensatedSum sum;
  void operator()(std::uint64_t, std::int64_t dp, std::int64_t dn) {
    tp += dp;
    fp += dn;
    sum.add(double(dp) * (double(tp) / double(tp + fp)));  // no branch: dp is often 0
  }
};

/// Grid value k of a voc07 (n = 11) or coco101 (n = 101) recall grid.
double grid_value(std::size_t k, std::size_t n, ApGrid grid) {
  const double step_count = double(n - 1);
  if (grid == ApGrid::exact) return double(k) / step_count;
  if (n == 11) return double(k) * 0.1;                       // np.arange(0, 1.1, 0.1)
  return k + 1 == n ? 1.0 : double(k) * (1.0 / step_count);  // np.linspace(0, 1, 101)
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Binary functions.

OperatingPoints operating_points(std::span<const std::uint8_t> y_true,
                                 std::span<const double> y_score,
                                 std::span<const double> sample_weight, TieMode tie_mode) {
  check_lengths(y_true.size(), y_score.size(), "y_score");
  check_weights(sample_weight, y_true.size());
  if (sample_weight.empty() && tie_mode == TieMode::group) {
    OperatingPoints pts;
    // Virtual reservation: pages are only touched for the points actually written.
    for (auto* v : {&pts.threshold, &pts.tp, &pts.fp}) {
      v->reserve(y_true.size());
      detail::advise_huge_pages(v->data(), v->capacity() * sizeof(double));
    }
    std::int64_t tp = 0;
    std::int64_t fp = 0;
    scan_unweighted(y_true, y_score, [&](std::uint64_t key, std::int64_t dp, std::int64_t dn) {
      tp += dp;
      fp += dn;
      pts.threshold.push_back(detail::from_descending_key(key));
      pts.tp.push_back(double(tp));
      pts.fp.push_back(double(fp));
    });
    pts.total_pos = double(tp);
    pts.total_neg = double(fp);
    return pts;
  }
  return RankedScores(y_true, y_score).operating_points(sample_weight, tie_mode);
}

// The curves transform the operating points in place (a curve of 1e7 points would otherwise
// allocate and page-fault three more 80 MB arrays): point k is written to slot w <= k after the
// original values it depends on were read.

PrCurve precision_recall_curve(std::span<const std::uint8_t> y_true,
                               std::span<const double> y_score,
                               std::span<const double> sample_weight, bool drop_intermediate) {
  OperatingPoints pts = operating_points(y_true, y_score, sample_weight);
  const std::size_t m = pts.tp.size();
  const bool no_pos = !(pts.total_pos > 0);
  if (no_pos) {
    warn("No positive class found in y_true, recall is set to one for all thresholds.");
  }
  std::vector<double>& tp = pts.tp;  // becomes recall
  std::vector<double>& fp = pts.fp;  // becomes precision
  std::size_t w = 0;
  double tp_prev = 0;
  for (std::size_t k = 0; k < m; ++k) {
    const double tpk = tp[k];
    const double fpk = fp[k];
    // scikit-learn >= 1.3: keep the first and last point of each run of equal tp.
    const bool keep =
        !drop_intermediate || m <= 2 || k == 0 || k + 1 == m || tpk != tp_prev || tp[k + 1] != tpk;
    tp_prev = tpk;
    if (!keep) continue;
    const double ps = tpk + fpk;
    fp[w] = ps != 0 ? tpk / ps : 0.0;
    tp[w] = no_pos ? 1.0 : tpk / pts.total_pos;
    pts.threshold[w] = pts.threshold[k];
    ++w;
  }
  PrCurve out;
  out.precision = std::move(fp);
  out.recall = std::move(tp);
  out.thresholds = std::move(pts.threshold);
  for (auto* v : {&out.precision, &out.recall, &out.thresholds}) {
    v->resize(w);
    std::reverse(v->begin(), v->end());  // increasing thresholds
  }
  out.precision.push_back(1.0);
  out.recall.push_back(0.0);
  return out;
}

RocCurve roc_curve(std::span<const std::uint8_t> y_true, std::span<const double> y_score,
                   std::span<const double> sample_weight, bool drop_intermediate) {
  OperatingPoints pts = operating_points(y_true, y_score, sample_weight);
  const std::size_t m = pts.tp.size();
  const double N = pts.total_neg;
  const double P = pts.total_pos;
  if (!(N > 0)) {
    warn(WarningKind::undefined_metric,
         "No negative samples in y_true, false positive value should be meaningless");
  }
  if (!(P > 0)) {
    warn(WarningKind::undefined_metric,
         "No positive samples in y_true, true positive value should be meaningless");
  }
  std::vector<double>& tp = pts.tp;  // becomes tpr
  std::vector<double>& fp = pts.fp;  // becomes fpr
  std::size_t w = 0;
  double tp_prev = 0;
  double fp_prev = 0;
  for (std::size_t k = 0; k < m; ++k) {
    const double tpk = tp[k];
    const double fpk = fp[k];
    bool keep = true;
    if (drop_intermediate && m > 2 && k > 0 && k + 1 < m) {
      // numpy.diff(x, 2) == 0 for both fps and tps: a collinear middle point.
      const double dfp = (fp[k + 1] - fpk) - (fpk - fp_prev);
      const double dtp = (tp[k + 1] - tpk) - (tpk - tp_prev);
      keep = dfp != 0 || dtp != 0;
    }
    tp_prev = tpk;
    fp_prev = fpk;
    if (!keep) continue;
    fp[w] = N > 0 ? fpk / N : kNaN;
    tp[w] = P > 0 ? tpk / P : kNaN;
    pts.threshold[w] = pts.threshold[k];
    ++w;
  }
  RocCurve out;
  out.fpr = std::move(fp);
  out.tpr = std::move(tp);
  out.thresholds = std::move(pts.threshold);
  // Prepend the (0, 0) point with threshold +inf (scikit-learn >= 1.3).
  out.fpr.resize(w);
  out.tpr.resize(w);
  out.thresholds.resize(w);
  // Without negatives (positives) every fpr (tpr) is undefined, the first point's too.
  out.fpr.insert(out.fpr.begin(), N > 0 ? 0.0 : kNaN);
  out.tpr.insert(out.tpr.begin(), P > 0 ? 0.0 : kNaN);
  out.thresholds.insert(out.thresholds.begin(), kInf);
  return out;
}

DetCurve det_curve(std::span<const std::uint8_t> y_true, std::span<const double> y_score,
                   std::span<const double> sample_weight) {
  const OperatingPoints pts = operating_points(y_true, y_score, sample_weight);
  // Both classes are present (the caller checks, as scikit-learn, without the weights); one of
  // zero total weight gives NaN rates (0/0), as in scikit-learn, with a warning.
  if (pts.tp.empty()) {
    fail(
        "Only one class present in y_true. Detection error tradeoff curve is not defined in that "
        "case.");
  }
  if (!(pts.total_pos > 0) || !(pts.total_neg > 0)) {
    warn(WarningKind::undefined_metric,
         fmt::format("det_curve: the {} have zero total weight, so their error rates are NaN",
                     pts.total_pos > 0 ? "negatives" : "positives"));
  }
  // Points are in decreasing-threshold order with nondecreasing tp and fp.
  const std::size_t m = pts.tp.size();
  std::size_t first = 0;
  while (first + 1 < m && pts.fp[first + 1] == pts.fp[0]) ++first;
  std::size_t last = 0;
  while (pts.tp[last] != pts.tp[m - 1]) ++last;
  DetCurve out;
  for (std::size_t k = last + 1; k-- > first;) {
    out.fpr.push_back(pts.fp[k] / pts.total_neg);
    out.fnr.push_back((pts.total_pos - pts.tp[k]) / pts.total_pos);
    out.thresholds.push_back(pts.threshold[k]);
  }
  return out;
}

// Trapezoid k - b of the steps j in [b, e) into out[k] (out holds e - b values), counting the
// steps below zero and those not at or below zero (a NaN step is only the latter). Counted rather
// than branched on, so the loop vectorises (on AVX2 and up: 64-bit compares).
struct StepCounts {
  std::int64_t negative = 0, not_nonpositive = 0;
};
ASSAY_VECTOR_CLONES void trapezoids(const double* x, const double* y, std::size_t b, std::size_t e,
                                    double* out, StepCounts& counts) {
  std::int64_t negative = 0, not_nonpositive = 0;
  for (std::size_t j = b; j < e; ++j) {
    const double step = x[j] - x[j - 1];
    negative += step < 0 ? 1 : 0;
    not_nonpositive += step <= 0 ? 0 : 1;
    out[j - b] = step * (y[j] + y[j - 1]) / 2.0;
  }
  counts.negative += negative;
  counts.not_nonpositive += not_nonpositive;
}

std::optional<double> trapezoid_area(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) {
    fail("Found input variables with inconsistent numbers of samples: [{}, {}]", x.size(),
         y.size());
  }
  if (x.size() < 2) {
    fail("At least 2 points are needed to compute area under curve, but x.shape = ({},)", x.size());
  }
  // One pass, block by block: the trapezoids summed by lane_sum within blocks of 256 and
  // compensated across blocks (as the regression metrics sum; a few ulps from numpy's pairwise
  // trapz), and scikit-learn's direction test on the steps dx: decreasing when some dx < 0 and
  // every dx <= 0, refused when some dx < 0 and not every dx <= 0 (NaN included).
  const std::size_t n = x.size();
  constexpr std::size_t kBlock = 256;
  CompensatedSum area;
  StepCounts counts;
  for (std::size_t b = 1; b < n; b += kBlock) {
    const std::size_t e = std::min(n, b + kBlock);
    double trapezoid[kBlock];
    trapezoids(x.data(), y.data(), b, e, trapezoid, counts);
    area.add(lane_sum(trapezoid, e - b));
  }
  const bool decreasing = counts.negative > 0;
  if (decreasing && counts.not_nonpositive > 0) return std::nullopt;
  return decreasing ? -area.value() : area.value();
}

double average_precision(const OperatingPoints& pts, const ApParams& params) {
  const double P = resolve_n_pos(params, pts.total_pos);
  if (!(P > 0)) return ap_no_positives();
  const std::size_t m = pts.tp.size();
  std::vector<double> recall(m);
  std::vector<double> precision(m);
  for (std::size_t k = 0; k < m; ++k) {
    recall[k] = pts.tp[k] / P;
    precision[k] = pts.tp[k] / (pts.tp[k] + pts.fp[k]);
  }
  switch (params.method) {
    case ApMethod::step: {
      CompensatedSum sum;
      double r_prev = 0;
      for (std::size_t k = 0; k < m; ++k) {
        if (recall[k] != r_prev) sum.add((recall[k] - r_prev) * precision[k]);
        r_prev = recall[k];
      }
      return sum.value();
    }
    case ApMethod::voc07:
    case ApMethod::coco101: {
      const std::size_t n_grid = params.method == ApMethod::voc07 ? 11 : 101;
      const std::vector<double> best = suffix_max(precision);
      CompensatedSum sum;
      for (std::size_t g = 0; g < n_grid; ++g) {
        const double t = grid_value(g, n_grid, params.grid);
        const auto it = std::lower_bound(recall.begin(), recall.end(), t);
        if (it != recall.end()) sum.add(best[std::size_t(it - recall.begin())]);
      }
      return sum.value() / double(n_grid);
    }
    case ApMethod::voc_allpoint: {
      // mrec = [0, recall, 1], mpre = [0, precision, 0]; backward running max of mpre.
      std::vector<double> mrec(m + 2);
      std::vector<double> mpre(m + 2);
      mrec[0] = 0;
      mpre[0] = 0;
      for (std::size_t k = 0; k < m; ++k) {
        mrec[k + 1] = recall[k];
        mpre[k + 1] = precision[k];
      }
      mrec[m + 1] = 1;
      mpre[m + 1] = 0;
      for (std::size_t i = m + 1; i-- > 0;) mpre[i] = std::max(mpre[i], mpre[i + 1]);
      CompensatedSum sum;
      for (std::size_t i = 0; i + 1 < m + 2; ++i) {
        if (mrec[i + 1] != mrec[i]) sum.add((mrec[i + 1] - mrec[i]) * mpre[i + 1]);
      }
      return sum.value();
    }
    case ApMethod::trapezoid: {
      CompensatedSum sum;
      double r_prev = 0;
      double p_prev = 1;
      for (std::size_t k = 0; k < m; ++k) {
        sum.add((recall[k] - r_prev) * (precision[k] + p_prev) / 2);
        r_prev = recall[k];
        p_prev = precision[k];
      }
      return sum.value();
    }
  }
  ASSAY_ASSERT(false);
  return kNaN;
}

double average_precision(std::span<const std::uint8_t> y_true, std::span<const double> y_score,
                         std::span<const double> sample_weight, const ApParams& params) {
  check_lengths(y_true.size(), y_score.size(), "y_score");
  check_weights(sample_weight, y_true.size());
  if (sample_weight.empty() && params.tie_mode == TieMode::group &&
      params.method == ApMethod::step) {
    StepApRule rule;
    scan_unweighted(y_true, y_score, rule);
    const double P = resolve_n_pos(params, double(rule.tp));
    if (!(P > 0)) return ap_no_positives();
    return rule.sum.value() / P;
  }
  return RankedScores(y_true, y_score).average_precision(sample_weight, params);
}

double roc_auc(std::span<const std::uint8_t> y_true, std::span<const double> y_score,
               std::span<const double> sample_weight, std::optional<double> max_fpr) {
  check_lengths(y_true.size(), y_score.size(), "y_score");
  check_weights(sample_weight, y_true.size());
  if (max_fpr && !(*max_fpr > 0 && *max_fpr <= 1)) {
    fail("max_fpr must be in (0, 1], found {}", *max_fpr);
  }
  if (sample_weight.empty() && (!max_fpr || *max_fpr == 1.0)) {
    RocRule rule;
    scan_unweighted(y_true, y_score, rule);
    if (rule.tp == 0 || rule.fp == 0) return auc_single_class_nan();
    return double(rule.area2) / (2.0 * double(rule.tp) * double(rule.fp));
  }
  return RankedScores(y_true, y_score).roc_auc(sample_weight, max_fpr);
}

std::vector<double> interpolated_precision(std::span<const double> precision,
                                           std::span<const double> recall) {
  check_same_length(precision.size(), recall.size(), "precision", "recall");
  const std::size_t n = precision.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(precision[i])) fail_non_finite("precision", precision[i], i);
    if (std::isnan(recall[i])) fail_non_finite("recall", recall[i], i);
  }
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::sort(idx.begin(), idx.end(),
            [&](std::size_t a, std::size_t b) { return recall[a] > recall[b]; });
  std::vector<double> out(n);
  double best = -kInf;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && recall[idx[j]] == recall[idx[i]]) best = std::max(best, precision[idx[j++]]);
    for (std::size_t t = i; t < j; ++t) out[idx[t]] = best;
    i = j;
  }
  return out;
}

}  // namespace assay::metrics

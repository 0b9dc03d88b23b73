#include "assay/metrics/labels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "assay/core/error.hpp"
#include "assay/core/thread_pool.hpp"

namespace assay::metrics {
namespace {

template <typename T>
void check_no_nan(std::span<const T> values, const char* name) {
  if constexpr (std::is_floating_point_v<T>) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (std::isnan(values[i])) fail("{} contains NaN at index {}", name, i);
    }
  }
}

// True when every value is an integer in a range small enough for a direct lookup table.
template <typename T>
bool small_integer_range(std::span<const T> a, std::span<const T> b, std::int64_t& lo,
                         std::int64_t& hi) {
  if (a.empty() && b.empty()) return false;
  constexpr double kSafe = 9.0e15;
  T mn = a.empty() ? b[0] : a[0];
  T mx = mn;
  for (auto s : {a, b}) {
    const T* p = s.data();
    const std::size_t n = s.size();
    if constexpr (std::is_floating_point_v<T>) {
      bool integral = true;
      for (std::size_t i = 0; i < n; ++i) {
        integral &= std::fabs(p[i]) < kSafe && p[i] == std::floor(p[i]);
      }
      if (!integral) return false;
    }
    // Branch-free min/max (vectorises).
    T lo_s = mn;
    T hi_s = mx;
    for (std::size_t i = 0; i < n; ++i) {
      lo_s = p[i] < lo_s ? p[i] : lo_s;
      hi_s = p[i] > hi_s ? p[i] : hi_s;
    }
    mn = lo_s;
    mx = hi_s;
  }
  lo = static_cast<std::int64_t>(mn);
  hi = static_cast<std::int64_t>(mx);
  // Compare in unsigned to avoid overflow on extreme int64 ranges.
  const auto range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  const std::uint64_t limit =
      std::max<std::uint64_t>(std::uint64_t{1} << 20, 2 * (a.size() + b.size()));
  return range < limit;
}

// codes[i] = table[values[i] - lo] over [begin, end).
template <typename T>
void map_codes(std::span<const T> values, const std::int32_t* table, std::int64_t lo,
               std::int32_t* codes) {
  const T* v = values.data();
  const std::size_t n = values.size();
  for (std::size_t i = 0; i < n; ++i) codes[i] = table[static_cast<std::int64_t>(v[i]) - lo];
}

}  // namespace

FloatLabelCheck inspect_float_labels(std::span<const double> values) {
  FloatLabelCheck out;
  constexpr double kInt64Range = 9.2233720368547758e18;  // 2^63
  const double* v = values.data();
  const std::size_t n = values.size();
  // Branch-free over blocks (vectorises); the rare non-finite block is rescanned for indices.
  constexpr std::size_t kBlock = 1024;
  for (std::size_t b = 0; b < n; b += kBlock) {
    const std::size_t e = std::min(n, b + kBlock);
    bool finite = true;
    bool integral = true;
    for (std::size_t i = b; i < e; ++i) {
      const double x = v[i];
      finite &= (x - x) == 0;
      // x is integral iff rounding it to an integer (adding and removing 2^52, exact below
      // 2^52) gives x back; from 2^52 on every double is. No libm call, so this vectorises.
      const double ax = std::fabs(x);
      const double big = std::copysign(0x1p52, x);
      integral &= (ax < kInt64Range) & (((x + big) - big == x) | (ax >= 0x1p52));
    }
    out.integral = out.integral && integral;
    if (finite) continue;
    for (std::size_t i = b; i < e; ++i) {
      if (std::isnan(v[i]) && out.first_nan < 0) out.first_nan = static_cast<std::int64_t>(i);
      if (std::isinf(v[i]) && out.first_inf < 0) out.first_inf = static_cast<std::int64_t>(i);
    }
  }
  return out;
}

template <typename T>
EncodedLabels<T> encode_labels(std::span<const T> values, std::span<const T> values2,
                               const char* name, const char* name2) {
  check_no_nan(values, name);
  check_no_nan(values2, name2);
  EncodedLabels<T> out;
  out.codes.resize(values.size());
  out.codes2.resize(values2.size());
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  if (small_integer_range(values, values2, lo, hi)) {
    // O(n): mark present values in a table over [lo, hi], then number them in order.
    std::vector<std::int32_t> table(static_cast<std::size_t>(hi - lo) + 1, -1);
    std::int32_t* t = table.data();
    for (auto s : {values, values2}) {
      const T* p = s.data();
      for (std::size_t i = 0; i < s.size(); ++i) t[static_cast<std::int64_t>(p[i]) - lo] = 0;
    }
    std::int32_t k = 0;
    for (std::size_t j = 0; j < table.size(); ++j) {
      if (table[j] == 0) {
        table[j] = k++;
        out.classes.push_back(static_cast<T>(lo + static_cast<std::int64_t>(j)));
      }
    }
    // Mapping is the costly pass: run it in parallel over fixed blocks.
    constexpr std::size_t kBlock = std::size_t{1} << 20;
    const std::size_t blocks1 = (values.size() + kBlock - 1) / kBlock;
    const std::size_t blocks2 = (values2.size() + kBlock - 1) / kBlock;
    // A worker thread costs more than mapping one block: small inputs stay on this thread.
    const int threads = values.size() + values2.size() > kBlock ? 0 : 1;
    parallel_for(
        blocks1 + blocks2,
        [&](std::size_t b) {
          const bool first = b < blocks1;
          auto src = first ? values : values2;
          auto* dst = first ? out.codes.data() : out.codes2.data();
          const std::size_t begin = (first ? b : b - blocks1) * kBlock;
          const std::size_t len = std::min(kBlock, src.size() - begin);
          map_codes<T>(src.subspan(begin, len), table.data(), lo, dst + begin);
        },
        threads);
    return out;
  }
  // Sort-based: distinct sorted values, then a binary search per sample.
  out.classes.assign(values.begin(), values.end());
  out.classes.insert(out.classes.end(), values2.begin(), values2.end());
  std::sort(out.classes.begin(), out.classes.end());
  out.classes.erase(std::unique(out.classes.begin(), out.classes.end()), out.classes.end());
  if (out.classes.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    fail("too many distinct labels ({}), at most 2^31-1 are supported", out.classes.size());
  }
  auto code = [&](T v) {
    return static_cast<std::int32_t>(std::lower_bound(out.classes.begin(), out.classes.end(), v) -
                                     out.classes.begin());
  };
  for (std::size_t i = 0; i < values.size(); ++i) out.codes[i] = code(values[i]);
  for (std::size_t i = 0; i < values2.size(); ++i) out.codes2[i] = code(values2[i]);
  return out;
}

template <typename T>
std::vector<std::int32_t> encode_with_classes(std::span<const T> values, std::span<const T> classes,
                                              const char* name) {
  check_no_nan(values, name);
  check_no_nan(classes, "labels");
  // Encode values and the listed classes together, then map through the listed positions.
  auto joint = encode_labels<T>(values, classes, name, "labels");
  std::vector<std::int32_t> position(joint.classes.size(), -1);
  for (std::size_t j = 0; j < classes.size(); ++j) {
    auto& p = position[static_cast<std::size_t>(joint.codes2[j])];
    if (p >= 0) fail("labels contains the value {} more than once", classes[j]);
    p = static_cast<std::int32_t>(j);
  }
  std::vector<std::int32_t> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    out[i] = position[static_cast<std::size_t>(joint.codes[i])];
  }
  return out;
}

template EncodedLabels<std::int64_t> encode_labels(std::span<const std::int64_t>,
                                                   std::span<const std::int64_t>, const char*,
                                                   const char*);
template EncodedLabels<double> encode_labels(std::span<const double>, std::span<const double>,
                                             const char*, const char*);
template std::vector<std::int32_t> encode_with_classes(std::span<const std::int64_t>,
                                                       std::span<const std::int64_t>, const char*);
template std::vector<std::int32_t> encode_with_classes(std::span<const double>,
                                                       std::span<const double>, const char*);

}  // namespace assay::metrics

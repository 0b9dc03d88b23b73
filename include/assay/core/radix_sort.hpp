// Building block shared by the layers that sort scores (metrics ranking, shift retention):
// order-preserving 64-bit keys for doubles and stable radix sorts on them. Internal API (namespace
// assay::detail): no stability promise to users.
//
// Example:
//   std::vector<double> s = {0.5, -1.0, 0.5, 2.0};
//   std::vector<std::uint32_t> idx = {0, 1, 2, 3}, buffer(4);
//   radix_sort(idx.data(), buffer.data(), idx.size(),
//              [&](std::uint32_t i) { return descending_key(s[i]); });
//   // idx == {3, 0, 2, 1}: descending scores, the tie (0 and 2) in input order
//
// Requires: buffer holds n items; key() returns the same value for an item every time.
// The comments at each function below say how it sorts (which passes, which digit widths);
// the measured speed is in docs/performance.md.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace assay::detail {

constexpr std::uint64_t kSignBit = 0x8000000000000000ULL;

/// Advises the kernel to back the 2 MiB-aligned part of [p, p + bytes) with huge pages (fewer
/// page faults when a fresh large array is first written). Advice only: failure is harmless.
inline void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) / kHuge * kHuge;
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) / kHuge * kHuge;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

/// An uninitialised array of n uint64 keys. Large ones are 2 MiB aligned and advised to use
/// transparent huge pages: a fresh 80 MB array otherwise costs ~20k page faults, a sizable
/// share of sorting 1e7 keys.
class KeyArray {
 public:
  explicit KeyArray(std::size_t n) {
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    std::size_t bytes = std::max<std::size_t>(n, 1) * sizeof(std::uint64_t);
    if (bytes >= 4 * kHuge) {
      bytes = (bytes + kHuge - 1) / kHuge * kHuge;
      data_ = static_cast<std::uint64_t*>(std::aligned_alloc(kHuge, bytes));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
      if (data_) madvise(data_, bytes, MADV_HUGEPAGE);  // advice only; failure is harmless
#endif
    } else {
      data_ = static_cast<std::uint64_t*>(std::malloc(bytes));
    }
    if (!data_) throw std::bad_alloc();
  }
  ~KeyArray() {
    std::free(data_);
  }
  KeyArray(const KeyArray&) = delete;
  KeyArray& operator=(const KeyArray&) = delete;
  std::uint64_t* get() const {
    return data_;
  }
  std::uint64_t& operator[](std::size_t i) const {
    return data_[i];
  }

 private:
  std::uint64_t* data_ = nullptr;
};

/// Maps a double to a uint64 whose unsigned order is the numeric order (-0.0 == +0.0).
/// Branch-free: with mixed signs (e.g. logits) a branch on the sign mispredicts half the time.
inline std::uint64_t ascending_key(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  u ^= std::uint64_t{u == kSignBit} << 63;  // canonicalise -0.0
  const auto sign = static_cast<std::uint64_t>(static_cast<std::int64_t>(u) >> 63);
  return u ^ (sign | kSignBit);  // negative: ~u; otherwise: u | kSignBit
}

/// Unsigned order of the key = descending numeric order.
inline std::uint64_t descending_key(double x) {
  return ~ascending_key(x);
}

inline double from_ascending_key(std::uint64_t k) {
  std::uint64_t u = (k & kSignBit) ? (k & ~kSignBit) : ~k;
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

inline double from_descending_key(std::uint64_t k) {
  return from_ascending_key(~k);
}

/// Adds to counts[d + 1] the number of i in [0, n) with digit(i) == d, for d < buckets <= 4096.
/// Four interleaved sub-histograms: with runs of equal digits (ties, skewed scores) a single one
/// chains every increment through a store-to-load forward (~5 cycles each).
template <typename DigitFn>
void histogram(std::size_t n, std::size_t buckets, std::size_t* counts, DigitFn digit) {
  constexpr std::size_t kMaxBuckets = 4096;
  constexpr std::size_t kChunk = std::size_t{1} << 30;  // uint32 sub-counts cannot overflow
  std::uint32_t h[4][kMaxBuckets];
  for (std::size_t begin = 0; begin < n; begin += kChunk) {
    const std::size_t end = std::min(n, begin + kChunk);
    for (auto& row : h) std::fill(row, row + buckets, 0u);
    std::size_t i = begin;
    for (; i + 4 <= end; i += 4) {
      ++h[0][digit(i)];
      ++h[1][digit(i + 1)];
      ++h[2][digit(i + 2)];
      ++h[3][digit(i + 3)];
    }
    for (; i < end; ++i) ++h[0][digit(i)];
    for (std::size_t d = 0; d < buckets; ++d)
      counts[d + 1] += h[0][d] + h[1][d] + h[2][d] + h[3][d];
  }
}

/// Stable ascending LSD radix sort of data[0, n) by the low `bits` bits of key(item), 8-bit
/// digits (small histograms: meant for cache-resident buckets). `buffer` holds n items.
/// Passes whose digit is the same for every item are skipped. Returns where the result is.
template <typename T, typename KeyFn>
T* lsd_radix_sort(T* data, T* buffer, std::size_t n, int bits, KeyFn key) {
  constexpr int kMaxPasses = 8;
  const int passes = (bits + 7) / 8;
  std::uint32_t hist[kMaxPasses][256] = {};
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t k = key(data[i]);
    for (int p = 0; p < passes; ++p) ++hist[p][(k >> (8 * p)) & 255];
  }
  T* src = data;
  T* dst = buffer;
  for (int p = 0; p < passes; ++p) {
    std::uint32_t* h = hist[p];
    const int shift = 8 * p;
    if (h[(key(src[0]) >> shift) & 255] == n) continue;  // constant digit
    std::uint32_t sum = 0;
    for (int d = 0; d < 256; ++d) {
      const std::uint32_t c = h[d];
      h[d] = sum;
      sum += c;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const T& item = src[i];
      dst[h[(key(item) >> shift) & 255]++] = item;
    }
    std::swap(src, dst);
  }
  return src;
}

/// Stable insertion sort of src[0, n) into dst[0, n); src may equal dst (in place).
template <typename T, typename KeyFn>
void insertion_sort_into(T* dst, const T* src, std::size_t n, KeyFn key) {
  for (std::size_t i = 0; i < n; ++i) {
    const T item = src[i];
    const std::uint64_t k = key(item);
    std::size_t j = i;
    while (j > 0 && key(dst[j - 1]) > k) {
      dst[j] = dst[j - 1];
      --j;
    }
    dst[j] = item;
  }
}

template <typename T, typename KeyFn>
void radix_sort_rec(T* a, T* b, std::size_t n, KeyFn key, bool into_b,
                    std::optional<std::uint64_t> varying = std::nullopt);

/// Buckets at most this many items use plain insertion sort.
constexpr std::size_t kInsertionMax = 48;

/// Sorts a cache-resident a[0, n) into the target (b if `into_b`, else a) when `bits` low bits
/// vary: stable LSD passes (digits of <= 11 bits) on only the top ~log2(n) + 4 of those bits,
/// which leaves almost every key alone in its group, then one pass that copies to the target
/// and finishes the rare groups sharing those bits (insertion sort, or recursion if large).
/// Uniform doubles vary in ~46 bits: 2-3 passes + 1 instead of 6 passes of 8-bit digits.
/// Counts live on the stack (24 KiB): no allocation per bucket.
template <typename T, typename KeyFn>
void sort_in_cache(T* a, T* b, std::size_t n, KeyFn key, bool into_b, int bits) {
  constexpr int kDigit = 11;
  constexpr int kMaxPasses = 3;
  const int top = std::min({bits, int(std::bit_width(n)) + 4, kDigit * kMaxPasses});
  const int passes = (top + kDigit - 1) / kDigit;
  const int width = (top + passes - 1) / passes;
  const int lo = bits - top;  // sort by bits [lo, bits)
  const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
  std::uint32_t hist[kMaxPasses][std::size_t{1} << kDigit];
  for (int p = 0; p < passes; ++p) std::fill(hist[p], hist[p] + (mask + 1), 0u);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t k = key(a[i]) >> lo;
    for (int p = 0; p < passes; ++p) ++hist[p][(k >> (width * p)) & mask];
  }
  T* src = a;
  T* dst = b;
  for (int p = 0; p < passes; ++p) {
    std::uint32_t* h = hist[p];
    const int shift = lo + width * p;
    if (h[(key(src[0]) >> shift) & mask] == n) continue;  // constant digit
    std::uint32_t sum = 0;
    for (std::size_t d = 0; d <= mask; ++d) {
      const std::uint32_t c = h[d];
      h[d] = sum;
      sum += c;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const T& item = src[i];
      dst[h[(key(item) >> shift) & mask]++] = item;
    }
    std::swap(src, dst);
  }
  T* target = into_b ? b : a;
  T* other = into_b ? a : b;
  if (lo == 0) {  // sorted on every varying bit
    if (src != target) std::copy(src, src + n, target);
    return;
  }
  // Groups of keys equal in bits >= lo: copy each to the target, finishing it there.
  std::size_t i = 0;
  while (i < n) {
    const std::uint64_t g = key(src[i]) >> lo;
    std::size_t j = i + 1;
    while (j < n && (key(src[j]) >> lo) == g) ++j;
    const std::size_t m = j - i;
    if (m == 1) {
      if (src != target) target[i] = src[i];
    } else if (m <= kInsertionMax) {
      insertion_sort_into(target + i, src + i, m, key);
    } else if (src == target) {
      radix_sort_rec(target + i, other + i, m, key, false);
    } else {
      radix_sort_rec(src + i, target + i, m, key, true);
    }
    i = j;
  }
}

/// Sorts a[0, n) stably by key; the result ends in b if `into_b`, else in a; the other array
/// is scratch. Small or constant inputs are finished directly, cache-sized ones by LSD passes
/// on their top varying bits (see sort_in_cache; all of them when at most 16 bits vary), larger
/// ones by one MSD pass on the 11 highest varying bits followed by recursion into the buckets (each
/// level flips which array holds the data).
template <typename T, typename KeyFn>
void radix_sort_rec(T* a, T* b, std::size_t n, KeyFn key, bool into_b,
                    std::optional<std::uint64_t> varying) {
  T* target = into_b ? b : a;
  if (n == 0) return;
  std::uint64_t diff = 0;
  if (varying) {
    diff = *varying;  // caller's superset of the bits that vary (saves a pass over memory)
  } else {
    const std::uint64_t k0 = key(a[0]);
    for (std::size_t i = 0; i < n; ++i) diff |= key(a[i]) ^ k0;
  }
  if (diff == 0) {  // a run of ties
    if (into_b) std::copy(a, a + n, b);
    return;
  }
  const int bits = 64 - std::countl_zero(diff);  // keys agree above this bit
  if (n <= kInsertionMax) {                      // stable insertion sort
    insertion_sort_into(target, a, n, key);
    return;
  }
  constexpr std::size_t kCacheBytes = std::size_t{1} << 20;  // ~L2 size (tuned on 1e7 keys)
  if (bits <= 16) {
    const T* out = lsd_radix_sort(a, b, n, bits, key);
    if (out != target) std::copy(out, out + n, target);
    return;
  }
  if (n * sizeof(T) <= kCacheBytes) {
    sort_in_cache(a, b, n, key, into_b, bits);
    return;
  }
  constexpr int kMsdBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kMsdBits;
  constexpr std::uint64_t kMask = kBuckets - 1;
  const int low_bits = bits > kMsdBits ? bits - kMsdBits : 0;
  std::vector<std::size_t> start(kBuckets + 1, 0);
  histogram(n, kBuckets, start.data(),
            [&](std::size_t i) { return (key(a[i]) >> low_bits) & kMask; });
  for (std::size_t d = 0; d < kBuckets; ++d) start[d + 1] += start[d];
  std::vector<std::size_t> next(start.begin(), start.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const T& item = a[i];
    b[next[(key(item) >> low_bits) & kMask]++] = item;
  }
  for (std::size_t d = 0; d < kBuckets; ++d) {
    const std::size_t s = start[d];
    const std::size_t m = start[d + 1] - s;
    if (m) radix_sort_rec(b + s, a + s, m, key, !into_b);
  }
}

/// Stable ascending radix sort of data[0, n) by key(item), a uint64; `buffer` holds n items;
/// the result is in `data`. Skewed inputs (e.g. most scores sharing an exponent, or few
/// distinct values) recurse instead of falling back to passes over main memory.
/// `varying`, if given, must have every bit set in which two keys differ (e.g. OR ^ AND of all
/// keys); it saves one pass over the data.
template <typename T, typename KeyFn>
void radix_sort(T* data, T* buffer, std::size_t n, KeyFn key,
                std::optional<std::uint64_t> varying = std::nullopt) {
  radix_sort_rec(data, buffer, n, key, false, varying);
}

/// Radix sort of plain keys; the result always ends up in `keys`.
inline void radix_sort_keys(std::uint64_t* keys, std::uint64_t* buffer, std::size_t n,
                            std::optional<std::uint64_t> varying = std::nullopt) {
  radix_sort(
      keys, buffer, n, [](std::uint64_t k) { return k; }, varying);
}

}  // namespace assay::detail

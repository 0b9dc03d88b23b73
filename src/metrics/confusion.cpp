#include "assay/metrics/confusion.hpp"

#include <algorithm>

#include "assay/core/error.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/metrics/labels.hpp"
#include "assay/metrics/scaled_weights.hpp"

namespace assay::metrics {
namespace {

// Samples per chunk; chunks depend only on n, so the result is the same with any thread count.
constexpr std::size_t kChunk = std::size_t{1} << 18;
constexpr std::size_t kMaxChunks = 64;
// Above this many cells per matrix, private per-chunk matrices cost more than they save.
constexpr std::size_t kMaxParallelCells = std::size_t{1} << 16;

template <typename Acc, bool Weighted>
void count_range(const std::int32_t* t, const std::int32_t* p, const double* w, std::size_t begin,
                 std::size_t end, std::uint32_t k, Acc* out) {
  for (std::size_t i = begin; i < end; ++i) {
    // -1 (and anything >= K) wraps to a large unsigned value and is dropped.
    const auto a = static_cast<std::uint32_t>(t[i]);
    const auto c = static_cast<std::uint32_t>(p[i]);
    if (a < k && c < k) {
      if constexpr (Weighted) {
        out[std::size_t{a} * k + c] += w[i];
      } else {
        out[std::size_t{a} * k + c] += 1;
      }
    }
  }
}

template <typename Acc, bool Weighted>
std::vector<double> count_all(std::span<const std::int32_t> y_true,
                              std::span<const std::int32_t> y_pred, std::uint32_t k,
                              const double* w) {
  const std::size_t n = y_true.size();
  const std::size_t cells = std::size_t{k} * k;
  std::size_t chunks = (n + kChunk - 1) / kChunk;
  chunks = std::clamp<std::size_t>(chunks, 1, kMaxChunks);
  if (cells > kMaxParallelCells) chunks = 1;
  const std::size_t per = (n + chunks - 1) / std::max<std::size_t>(chunks, 1);
  std::vector<std::vector<Acc>> partial(chunks);
  parallel_for(chunks, [&](std::size_t c) {
    partial[c].assign(cells, Acc{0});
    const std::size_t b = std::min(n, c * per);
    const std::size_t e = std::min(n, b + per);
    count_range<Acc, Weighted>(y_true.data(), y_pred.data(), w, b, e, k, partial[c].data());
  });
  std::vector<double> out(cells, 0.0);
  for (std::size_t c = 0; c < chunks; ++c) {
    for (std::size_t j = 0; j < cells; ++j) out[j] += static_cast<double>(partial[c][j]);
  }
  return out;
}

constexpr std::int64_t kDirectRange = 256;

// Per-chunk counts over raw values offset by lo, plus presence marks for both arrays.
template <typename Acc, bool Weighted>
void count_direct(const std::int64_t* t, const std::int64_t* p, const double* w, std::size_t begin,
                  std::size_t end, std::int64_t lo, std::size_t r, Acc* out, std::uint8_t* seen_t,
                  std::uint8_t* seen_p) {
  for (std::size_t i = begin; i < end; ++i) {
    const auto a = static_cast<std::size_t>(t[i] - lo);
    const auto c = static_cast<std::size_t>(p[i] - lo);
    if constexpr (Weighted) {
      out[a * r + c] += w[i];
      seen_t[a] = 1;
      seen_p[c] = 1;
    } else {
      out[a * r + c] += 1;
    }
  }
}

template <typename Acc, bool Weighted>
void direct_all(std::span<const std::int64_t> y_true, std::span<const std::int64_t> y_pred,
                const double* w, std::int64_t lo, std::size_t r, std::vector<double>& cells,
                std::vector<std::uint8_t>& seen) {
  const std::size_t n = y_true.size();
  const std::size_t chunks = std::clamp<std::size_t>((n + kChunk - 1) / kChunk, 1, kMaxChunks);
  const std::size_t per = (n + chunks - 1) / chunks;
  std::vector<std::vector<Acc>> partial(chunks);
  std::vector<std::vector<std::uint8_t>> marks(chunks);
  parallel_for(chunks, [&](std::size_t c) {
    partial[c].assign(r * r, Acc{0});
    marks[c].assign(2 * r, 0);
    const std::size_t b = std::min(n, c * per);
    const std::size_t e = std::min(n, b + per);
    count_direct<Acc, Weighted>(y_true.data(), y_pred.data(), w, b, e, lo, r, partial[c].data(),
                                marks[c].data(), marks[c].data() + r);
  });
  cells.assign(r * r, 0.0);
  seen.assign(r, 0);
  for (std::size_t c = 0; c < chunks; ++c) {
    for (std::size_t j = 0; j < r * r; ++j) cells[j] += static_cast<double>(partial[c][j]);
    for (std::size_t j = 0; j < 2 * r; ++j) seen[j % r] |= marks[c][j];
  }
  if constexpr (!Weighted) {
    for (std::size_t a = 0; a < r; ++a) {
      for (std::size_t b = 0; b < r; ++b) {
        if (cells[a * r + b] > 0) seen[a] = seen[b] = 1;
      }
    }
  }
}

}  // namespace

bool confusion_matrix_direct(std::span<const std::int64_t> y_true,
                             std::span<const std::int64_t> y_pred, std::span<const double> weights,
                             Normalize normalize, std::vector<std::int64_t>& classes,
                             std::vector<double>& matrix) {
  check_same_length(y_true.size(), y_pred.size(), "y_true", "y_pred");
  check_weights(weights, y_true.size());
  const std::size_t n = y_true.size();
  if (n == 0) return false;
  // Parallel min/max over fixed blocks.
  const std::size_t blocks = std::clamp<std::size_t>((n + kChunk - 1) / kChunk, 1, kMaxChunks);
  const std::size_t per = (n + blocks - 1) / blocks;
  std::vector<std::int64_t> mins(blocks, y_true[0]);
  std::vector<std::int64_t> maxs(blocks, y_true[0]);
  parallel_for(blocks, [&](std::size_t c) {
    const std::size_t b = std::min(n, c * per);
    const std::size_t e = std::min(n, b + per);
    std::int64_t mn = mins[c];
    std::int64_t mx = maxs[c];
    for (auto* s : {y_true.data(), y_pred.data()}) {
      for (std::size_t i = b; i < e; ++i) {
        mn = s[i] < mn ? s[i] : mn;
        mx = s[i] > mx ? s[i] : mx;
      }
    }
    mins[c] = mn;
    maxs[c] = mx;
  });
  const std::int64_t lo = *std::min_element(mins.begin(), mins.end());
  const std::int64_t hi = *std::max_element(maxs.begin(), maxs.end());
  if (static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) >=
      static_cast<std::uint64_t>(kDirectRange)) {
    return false;
  }
  const auto r = static_cast<std::size_t>(hi - lo + 1);
  std::vector<double> cells;
  std::vector<std::uint8_t> seen;
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  if (weights.empty()) {
    direct_all<std::int64_t, false>(y_true, y_pred, nullptr, lo, r, cells, seen);
  } else {
    direct_all<double, true>(y_true, y_pred, weights.data(), lo, r, cells, seen);
  }
  std::vector<std::size_t> keep;
  classes.clear();
  for (std::size_t j = 0; j < r; ++j) {
    if (seen[j]) {
      keep.push_back(j);
      classes.push_back(lo + static_cast<std::int64_t>(j));
    }
  }
  const std::size_t k = keep.size();
  matrix.assign(k * k, 0.0);
  for (std::size_t a = 0; a < k; ++a) {
    for (std::size_t b = 0; b < k; ++b) matrix[a * k + b] = cells[keep[a] * r + keep[b]];
  }
  normalize_matrix(matrix, k, k, normalize);
  if (normalize == Normalize::none) scaled.unscale(matrix);
  return true;
}

Normalize parse_normalize(const std::string& name) {
  if (name == "none" || name.empty()) return Normalize::none;
  if (name == "true") return Normalize::true_rows;
  if (name == "pred") return Normalize::pred_cols;
  if (name == "all") return Normalize::all;
  fail("normalize must be one of 'true', 'pred', 'all' or None, found {}", quote_found(name));
}

void normalize_matrix(std::vector<double>& m, std::size_t rows, std::size_t cols,
                      Normalize normalize) {
  auto divide = [](double x, double d) { return d == 0 ? 0.0 : x / d; };
  switch (normalize) {
    case Normalize::none:
      return;
    case Normalize::true_rows:
      for (std::size_t i = 0; i < rows; ++i) {
        double s = 0;
        for (std::size_t j = 0; j < cols; ++j) s += m[i * cols + j];
        for (std::size_t j = 0; j < cols; ++j) m[i * cols + j] = divide(m[i * cols + j], s);
      }
      return;
    case Normalize::pred_cols:
      for (std::size_t j = 0; j < cols; ++j) {
        double s = 0;
        for (std::size_t i = 0; i < rows; ++i) s += m[i * cols + j];
        for (std::size_t i = 0; i < rows; ++i) m[i * cols + j] = divide(m[i * cols + j], s);
      }
      return;
    case Normalize::all: {
      double s = 0;
      for (double x : m) s += x;
      for (double& x : m) x = divide(x, s);
      return;
    }
  }
}

std::vector<double> confusion_matrix(std::span<const std::int32_t> y_true,
                                     std::span<const std::int32_t> y_pred, std::int32_t n_classes,
                                     std::span<const double> weights, Normalize normalize) {
  check_same_length(y_true.size(), y_pred.size(), "y_true", "y_pred");
  check_weights(weights, y_true.size());
  if (n_classes < 0) fail("n_classes must be >= 0, found {}", n_classes);
  const auto k = static_cast<std::uint32_t>(n_classes);
  // Normalised cells are ratios of rescaled sums; counts are the true sums (inf if they overflow).
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  std::vector<double> m = weights.empty()
                              ? count_all<std::int64_t, false>(y_true, y_pred, k, nullptr)
                              : count_all<double, true>(y_true, y_pred, k, weights.data());
  normalize_matrix(m, k, k, normalize);
  if (normalize == Normalize::none) scaled.unscale(m);
  return m;
}

std::vector<double> grouped_confusion_matrix(std::span<const std::int32_t> y_true,
                                             std::span<const std::int32_t> y_pred,
                                             std::span<const std::int32_t> row_of_class,
                                             std::span<const std::int32_t> col_of_class,
                                             std::int32_t n_rows, std::int32_t n_cols,
                                             std::span<const double> weights) {
  check_same_length(y_true.size(), y_pred.size(), "y_true", "y_pred");
  check_weights(weights, y_true.size());
  check_same_length(row_of_class.size(), col_of_class.size(), "row_of_class", "col_of_class");
  for (auto [map, limit, what] :
       {std::tuple{row_of_class, n_rows, "row"}, std::tuple{col_of_class, n_cols, "column"}}) {
    for (std::size_t c = 0; c < map.size(); ++c) {
      if (map[c] < -1 || map[c] >= limit) {
        fail("class {} maps to {} group {}, expected -1 (ignore) or 0..{}", c, what, map[c],
             limit - 1);
      }
    }
  }
  const std::size_t k = row_of_class.size();
  const auto cols = static_cast<std::size_t>(n_cols);
  std::vector<double> m(static_cast<std::size_t>(n_rows) * cols, 0.0);
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    const auto a = static_cast<std::size_t>(static_cast<std::uint32_t>(y_true[i]));
    const auto b = static_cast<std::size_t>(static_cast<std::uint32_t>(y_pred[i]));
    if (a >= k || b >= k) continue;
    const std::int32_t r = row_of_class[a];
    const std::int32_t c = col_of_class[b];
    if (r < 0 || c < 0) continue;
    m[static_cast<std::size_t>(r) * cols + static_cast<std::size_t>(c)] +=
        weights.empty() ? 1.0 : weights[i];
  }
  return m;
}

std::vector<std::int64_t> confusion_matrix_integer(std::span<const std::int32_t> y_true,
                                                   std::span<const std::int32_t> y_pred,
                                                   std::int32_t n_classes,
                                                   std::span<const std::int64_t> weights) {
  check_same_length(y_true.size(), y_pred.size(), "y_true", "y_pred");
  check_same_length(y_true.size(), weights.size(), "y_true", "sample_weight");
  const auto k = static_cast<std::uint32_t>(std::max(n_classes, 0));
  std::vector<std::int64_t> out(std::size_t{k} * k, 0);
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    if (weights[i] < 0) fail("sample_weight must be >= 0, found {} at index {}", weights[i], i);
    const auto a = static_cast<std::uint32_t>(y_true[i]);
    const auto c = static_cast<std::uint32_t>(y_pred[i]);
    if (a >= k || c >= k) continue;
    std::int64_t& cell = out[std::size_t{a} * k + c];
    if (__builtin_add_overflow(cell, weights[i], &cell)) {
      fail(
          "integer sample weights of true class {} predicted as class {} sum beyond int64's "
          "range (at index {}): pass float weights",
          a, c, i);
    }
  }
  return out;
}

}  // namespace assay::metrics

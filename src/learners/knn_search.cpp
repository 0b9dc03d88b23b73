#include "learners/knn_search.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>

#include "assay/core/error.hpp"
#include "assay/core/thread_pool.hpp"
#include "learners/blas.hpp"

namespace assay::learners::detail {
namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Query rows per parallel task and reference rows per matrix product: a 128 x 1024 block of dot
// products (1 MiB) stays in cache while it is screened.
constexpr std::size_t kQueryBlock = 128;
constexpr std::size_t kRefBlock = 1024;

// NumPy's pairwise_sum for n values (8 accumulators up to 128 values, halving above).
double pairwise(const double* a, std::size_t n) {
  if (n < 8) {
    double res = 0.0;
    for (std::size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise(a, n2) + pairwise(a + n2, n - n2);
}

// A neighbour candidate: directly computed squared distance, then reference position.
struct Candidate {
  double distance;
  std::uint32_t position;
  bool operator<(const Candidate& other) const {
    return distance < other.distance || (distance == other.distance && position < other.position);
  }
};

// Eight independent partial sums: the sum is not one long dependency chain (the candidates'
// recomputation was a fifth of the run time with one accumulator), and stays deterministic.
double squared_distance(const double* a, const double* b, std::size_t n_features) {
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t j = 0;
  for (; j + 8 <= n_features; j += 8) {
    for (std::size_t l = 0; l < 8; ++l) {
      const double d = a[j + l] - b[j + l];
      lane[l] += d * d;
    }
  }
  for (std::size_t l = 0; j < n_features; ++j, ++l) {
    const double d = a[j] - b[j];
    lane[l] += d * d;
  }
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

}  // namespace

double numpy_sum(std::span<const double> values) {
  return 0.0 + pairwise(values.data(), values.size());
}

Standardizer fit_standardizer(const Dataset& data, std::span<const std::uint32_t> rows,
                              std::span<const double> weights) {
  const std::size_t p = data.n_features;
  const bool weighted = !weights.empty();
  ASSAY_ASSERT(!rows.empty() && (!weighted || weights.size() == rows.size()));
  Standardizer s;
  s.mean.assign(p, 0.0);
  s.scale.assign(p, 1.0);
  std::vector<double> sum(p, 0.0), correction(p, 0.0), squares(p, 0.0);
  double count = static_cast<double>(rows.size());
  if (weighted) {
    count = 0.0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const double w = weights[r];
      const double* x = data.row(rows[r]);
      for (std::size_t j = 0; j < p; ++j) sum[j] += w * x[j];
      count += w;
    }
  } else if (p == 1) {
    // One column is a contiguous array to NumPy, summed pairwise.
    std::vector<double> column(rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) column[r] = data.row(rows[r])[0];
    sum[0] = numpy_sum(column);
  } else {
    for (std::uint32_t i : rows) {
      const double* x = data.row(i);
      for (std::size_t j = 0; j < p; ++j) sum[j] += x[j];
    }
  }
  for (std::size_t j = 0; j < p; ++j) s.mean[j] = sum[j] / count;
  // Corrected two-pass variance: (Σ(x−m)² − (Σ(x−m))²/n) / n, as _incremental_mean_and_var.
  if (!weighted && p == 1) {
    std::vector<double> temp(rows.size()), temp2(rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
      temp[r] = data.row(rows[r])[0] - s.mean[0];
      temp2[r] = temp[r] * temp[r];
    }
    correction[0] = numpy_sum(temp);
    squares[0] = numpy_sum(temp2);
  } else {
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const double w = weighted ? weights[r] : 1.0;
      const double* x = data.row(rows[r]);
      for (std::size_t j = 0; j < p; ++j) {
        const double t = x[j] - s.mean[j];
        if (weighted) {
          correction[j] += w * t;
          squares[j] += w * (t * t);
        } else {
          correction[j] += t;
          squares[j] += t * t;
        }
      }
    }
  }
  const double eps = std::numeric_limits<double>::epsilon();
  for (std::size_t j = 0; j < p; ++j) {
    const double var = (squares[j] - correction[j] * correction[j] / count) / count;
    const double bound = count * eps * var + (count * s.mean[j] * eps) * (count * s.mean[j] * eps);
    s.scale[j] = var <= bound ? 1.0 : std::sqrt(var);
  }
  return s;
}

void standardize(const Dataset& data, std::span<const std::uint32_t> rows,
                 const Standardizer& scaler, std::span<double> out) {
  const std::size_t p = data.n_features;
  ASSAY_ASSERT(out.size() == rows.size() * p);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double* x = data.row(rows[r]);
    double* z = out.data() + r * p;
    for (std::size_t j = 0; j < p; ++j) z[j] = (x[j] - scaler.mean[j]) / scaler.scale[j];
  }
}

// Squared distances are screened blockwise as ‖q‖² + ‖t‖² − 2q·t with BLAS matrix products; every
// train row that could be among the k nearest within that formula's rounding error then gets its
// distance recomputed directly as Σ(q_j − t_j)², and neighbours are ordered by that value, ties
// broken by the lower train position.
void nearest_neighbours(std::span<const double> ref, std::size_t n_ref,
                        std::span<const double> query, std::size_t n_query, std::size_t n_features,
                        std::size_t k, int threads, std::span<std::uint32_t> out) {
  const std::size_t p = n_features;
  ASSAY_ASSERT(k >= 1 && k <= n_ref && ref.size() == n_ref * p && query.size() == n_query * p &&
               out.size() == n_query * k);
  if (n_query == 0) return;
  single_threaded_blas();
  std::vector<double> ref_norm(n_ref);
  double max_ref_norm = 0.0;
  for (std::size_t t = 0; t < n_ref; ++t) {
    const double* x = ref.data() + t * p;
    double s = 0.0;
    for (std::size_t j = 0; j < p; ++j) s += x[j] * x[j];
    ref_norm[t] = s;
    max_ref_norm = std::max(max_ref_norm, s);
  }
  // The screening value ‖t‖² − 2q·t (= d² − ‖q‖²) and the direct d² each err by at most about
  // p·eps·(‖q‖² + ‖t‖²); a margin of 8(p+4)·eps·(‖q‖² + max‖t‖²) keeps every row whose direct
  // distance could beat the current k-th.
  const double margin_factor =
      8.0 * static_cast<double>(p + 4) * std::numeric_limits<double>::epsilon();
  Eigen::Map<const RowMatrix> reference(ref.data(), static_cast<Eigen::Index>(n_ref),
                                        static_cast<Eigen::Index>(p));
  const std::size_t n_blocks = (n_query + kQueryBlock - 1) / kQueryBlock;
  parallel_for(
      n_blocks,
      [&](std::size_t block) {
        const std::size_t q0 = block * kQueryBlock;
        const std::size_t nq = std::min(kQueryBlock, n_query - q0);
        Eigen::Map<const RowMatrix> queries(query.data() + q0 * p, static_cast<Eigen::Index>(nq),
                                            static_cast<Eigen::Index>(p));
        std::vector<Candidate> heaps(nq * k);
        std::vector<std::size_t> filled(nq, 0);
        std::vector<double> limit(nq, std::numeric_limits<double>::infinity());
        std::vector<double> query_norm(nq), margin(nq);
        for (std::size_t q = 0; q < nq; ++q) {
          const double* x = query.data() + (q0 + q) * p;
          double s = 0.0;
          for (std::size_t j = 0; j < p; ++j) s += x[j] * x[j];
          query_norm[q] = s;
          margin[q] = margin_factor * (s + max_ref_norm) + std::numeric_limits<double>::min();
        }
        RowMatrix dots;
        for (std::size_t r0 = 0; r0 < n_ref; r0 += kRefBlock) {
          const std::size_t nr = std::min(kRefBlock, n_ref - r0);
          dots.resize(static_cast<Eigen::Index>(nq), static_cast<Eigen::Index>(nr));
          dots.noalias() =
              queries *
              reference.middleRows(static_cast<Eigen::Index>(r0), static_cast<Eigen::Index>(nr))
                  .transpose();
          for (std::size_t q = 0; q < nq; ++q) {
            const double* g = dots.data() + q * nr;
            const double* norms = ref_norm.data() + r0;
            const double* x = query.data() + (q0 + q) * p;
            Candidate* heap = heaps.data() + q * k;
            double bound = limit[q];
            for (std::size_t j = 0; j < nr; ++j) {
              // Once the heap is full almost every row fails the screen: test 16 at a time
              // with a branch-free (vectorised) count and skip groups where none passes.
              if (j % 16 == 0 && j + 16 <= nr) {
                int passing = 0;
                for (std::size_t l = 0; l < 16; ++l) {
                  passing += norms[j + l] - 2.0 * g[j + l] <= bound ? 1 : 0;
                }
                if (passing == 0) {
                  j += 15;
                  continue;
                }
              }
              if (norms[j] - 2.0 * g[j] > bound) continue;
              const auto position = static_cast<std::uint32_t>(r0 + j);
              const Candidate c{squared_distance(x, ref.data() + (r0 + j) * p, p), position};
              if (filled[q] < k) {
                heap[filled[q]++] = c;
                std::push_heap(heap, heap + filled[q]);
              } else if (c < heap[0]) {
                std::pop_heap(heap, heap + k);
                heap[k - 1] = c;
                std::push_heap(heap, heap + k);
              } else {
                continue;
              }
              if (filled[q] == k) bound = limit[q] = heap[0].distance - query_norm[q] + margin[q];
            }
          }
        }
        for (std::size_t q = 0; q < nq; ++q) {
          Candidate* heap = heaps.data() + q * k;
          std::sort_heap(heap, heap + k);
          for (std::size_t i = 0; i < k; ++i) out[(q0 + q) * k + i] = heap[i].position;
        }
      },
      threads);
}

}  // namespace assay::learners::detail

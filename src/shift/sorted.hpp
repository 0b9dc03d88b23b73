// Private to the shift layer: samples sorted by uncertainty, input checks.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

#include "assay/core/compensated_sum.hpp"
#include "assay/core/error.hpp"

namespace assay::shift::detail {

/// One sample in uncertainty order: the order-preserving key of its uncertainty and its error.
struct Record {
  std::uint64_t key;
  double error;
};

/// Errors in ascending-uncertainty order (stable: ties keep input order), with the keys that
/// delimit tie groups. O(n) radix sort; 32 bytes per sample while sorting, 16 kept.
class ByUncertainty {
 public:
  ByUncertainty(std::span<const double> errors, std::span<const double> uncertainty);

  std::size_t size() const { return n_; }
  const Record& operator[](std::size_t i) const { return records_[i]; }
  /// End (exclusive) of the tie group that starts at `begin`.
  std::size_t group_end(std::size_t begin) const {
    std::size_t end = begin + 1;
    while (end < n_ && records_[end].key == records_[begin].key) ++end;
    return end;
  }

 private:
  // Uninitialised, huge-page advised storage: zero-filling 16 bytes per sample would cost a
  // pass over memory of its own.
  struct Free {
    void operator()(Record* p) const { std::free(p); }
  };
  static std::unique_ptr<Record[], Free> allocate(std::size_t n);
  std::size_t n_ = 0;
  std::unique_ptr<Record[], Free> records_;
};

/// The values sorted ascending (radix sort of order-preserving keys).
std::vector<double> sorted_ascending(std::span<const double> values);

/// Throws unless errors and uncertainty have the same length n >= 1, errors finite and
/// uncertainty not NaN.
void check_errors_uncertainty(std::span<const double> errors, std::span<const double> uncertainty);

}  // namespace assay::shift::detail

// RAII handles over libxgboost's C API (private to the xgboost learner and its tests).
//
// Every call's return code is checked: a non-zero code throws assay::Error
// "xgboost <function> failed: <XGBGetLastError()>". Handles are move-only and freed in their
// destructors (a failing free is ignored there: destructors must not throw).
//
// Matrices are dense row-major float32 with NaN as the missing value (assay's data never holds
// NaN, so no entry is ever missing); doubles are narrowed with static_cast<float>, as numpy's
// astype(float32) and xgboost's Python DMatrix do.
#pragma once

#include <xgboost/c_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace assay::learners::xgb {

/// Throws assay::Error naming `function` and carrying XGBGetLastError() when rc != 0.
void check(int rc, const char* function);

/// An owned DMatrixHandle.
class Matrix {
 public:
  /// n_rows x n_features row-major values; `threads` builds it (XGDMatrixCreateFromMat_omp).
  Matrix(std::span<const float> values, std::size_t n_rows, std::size_t n_features, int threads);
  Matrix(Matrix&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  Matrix& operator=(Matrix&&) = delete;
  Matrix(const Matrix&) = delete;
  ~Matrix();

  /// XGDMatrixSetFloatInfo(field, values): "label", "weight".
  void set_info(const char* field, std::span<const float> values);
  std::size_t n_rows() const { return n_rows_; }
  DMatrixHandle get() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
  std::size_t n_rows_ = 0;
};

/// An owned BoosterHandle whose prediction cache holds one training matrix.
class Booster {
 public:
  explicit Booster(const Matrix& train);
  /// A booster read from save()'s bytes (no training matrix: it only predicts).
  explicit Booster(std::span<const std::uint8_t> saved);
  Booster(Booster&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  Booster& operator=(Booster&&) = delete;
  Booster(const Booster&) = delete;
  ~Booster();

  /// XGBoosterSetParam(name, value); xgboost validates the value at the next update.
  void set_param(const std::string& name, const std::string& value);
  /// One boosting round (iteration `iteration`, 0-based) on the training matrix.
  void update(int iteration, const Matrix& train);
  /// Normal prediction with the trees of rounds [0, rounds) (0 = every round): n_rows values,
  /// or n_rows x num_class row-major for multi:softprob.
  std::vector<float> predict(const Matrix& data, int rounds) const;
  /// The model in xgboost's UBJSON model format (XGBoosterSaveModelToBuffer): trees, objective,
  /// base score; a booster read back from it predicts the same floats.
  std::vector<std::uint8_t> save() const;

 private:
  BoosterHandle handle_ = nullptr;
};

}  // namespace assay::learners::xgb

#include "learners/xgboost_capi.hpp"

#include <cmath>

#include <fmt/format.h>

#include "assay/core/error.hpp"

namespace assay::learners::xgb {

void check(int rc, const char* function) {
  if (rc != 0) {
    const char* message = XGBGetLastError();
    fail("xgboost {} failed: {}", function, message ? message : "(no message)");
  }
}

Matrix::Matrix(std::span<const float> values, std::size_t n_rows, std::size_t n_features,
               int threads)
    : n_rows_(n_rows) {
  ASSAY_ASSERT(values.size() == n_rows * n_features);
  check(XGDMatrixCreateFromMat_omp(values.data(), static_cast<bst_ulong>(n_rows),
                                   static_cast<bst_ulong>(n_features), std::nanf(""), &handle_,
                                   threads),
        "XGDMatrixCreateFromMat_omp");
}

Matrix::~Matrix() {
  if (handle_) XGDMatrixFree(handle_);
}

void Matrix::set_info(const char* field, std::span<const float> values) {
  ASSAY_ASSERT(values.size() == n_rows_);
  check(XGDMatrixSetFloatInfo(handle_, field, values.data(), static_cast<bst_ulong>(values.size())),
        "XGDMatrixSetFloatInfo");
}

Booster::Booster(const Matrix& train) {
  DMatrixHandle cache[] = {train.get()};
  check(XGBoosterCreate(cache, 1, &handle_), "XGBoosterCreate");
}

Booster::Booster(std::span<const std::uint8_t> saved) {
  check(XGBoosterCreate(nullptr, 0, &handle_), "XGBoosterCreate");
  try {
    check(XGBoosterLoadModelFromBuffer(handle_, saved.data(), static_cast<bst_ulong>(saved.size())),
          "XGBoosterLoadModelFromBuffer");
  } catch (...) {
    XGBoosterFree(handle_);  // the destructor does not run when a constructor throws
    throw;
  }
}

std::vector<std::uint8_t> Booster::save() const {
  bst_ulong size = 0;
  const char* bytes = nullptr;
  check(XGBoosterSaveModelToBuffer(handle_, R"({"format": "ubj"})", &size, &bytes),
        "XGBoosterSaveModelToBuffer");
  // The buffer belongs to the booster: copy it now.
  return std::vector<std::uint8_t>(reinterpret_cast<const std::uint8_t*>(bytes),
                                   reinterpret_cast<const std::uint8_t*>(bytes) + size);
}

Booster::~Booster() {
  if (handle_) XGBoosterFree(handle_);
}

void Booster::set_param(const std::string& name, const std::string& value) {
  check(XGBoosterSetParam(handle_, name.c_str(), value.c_str()), "XGBoosterSetParam");
}

void Booster::update(int iteration, const Matrix& train) {
  check(XGBoosterUpdateOneIter(handle_, iteration, train.get()), "XGBoosterUpdateOneIter");
}

std::vector<float> Booster::predict(const Matrix& data, int rounds) const {
  const std::string config =
      fmt::format(R"({{"type": 0, "training": false, "iteration_begin": 0, "iteration_end": {}, )"
                  R"("strict_shape": false}})",
                  rounds);
  const bst_ulong* shape = nullptr;
  bst_ulong dims = 0;
  const float* result = nullptr;
  check(XGBoosterPredictFromDMatrix(handle_, data.get(), config.c_str(), &shape, &dims, &result),
        "XGBoosterPredictFromDMatrix");
  std::size_t size = 1;
  for (bst_ulong d = 0; d < dims; ++d) size *= static_cast<std::size_t>(shape[d]);
  // The buffer belongs to the booster and is reused by its next call: copy it now.
  return std::vector<float>(result, result + size);
}

}  // namespace assay::learners::xgb

// Saved fitted models (private to the learners): the pieces every learner's Model::save and its
// loader share. A saved state is a JSON object {"learner": NAME, ...fields}; arrays of numbers
// travel as little-endian binary values, so a double comes back bit for bit and a large array
// costs 8 bytes per value in CBOR (save_model's encoding).
//
//   Json state{{"learner", "glmnet"}, {"coefficients", state::pack<double>(coefficients_)}};
//   state::Reader read(state);                       // in the loader
//   auto coefficients = read.array<double>("coefficients");
//
// Every Reader error names the learner and the field: a state that no assay wrote (truncated
// bytes, a missing field, a wrong size) is an assay::Error, never undefined behaviour.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/json.hpp"
#include "assay/learners/learner.hpp"

namespace assay::learners::state {

/// `values` as a binary JSON value: each value's bytes, least significant first.
template <class T>
Json pack(std::span<const T> values) {
  static_assert(std::is_arithmetic_v<T>);
  using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t,
                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, void>>;
  std::vector<std::uint8_t> bytes(values.size() * sizeof(T));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto bits = std::bit_cast<Bits>(values[i]);
    for (std::size_t b = 0; b < sizeof(T); ++b)
      bytes[i * sizeof(T) + b] = static_cast<std::uint8_t>(bits >> (8 * b));
  }
  return Json::binary(std::move(bytes));
}

template <class T>
Json pack(const std::vector<T>& values) {
  return pack(std::span<const T>(values));
}

/// Reads the fields of one learner's saved state.
class Reader {
 public:
  /// Requires state to be an object with a "learner" text field (load_model checked it).
  explicit Reader(const Json& state);

  const std::string& learner() const { return learner_; }
  /// The field `key` (any JSON value); throws when it is absent.
  const Json& field(const std::string& key) const;
  double number(const std::string& key) const;
  /// A non-negative integer no larger than `most`.
  std::size_t count(const std::string& key, std::size_t most) const;
  bool flag(const std::string& key) const;

  /// A packed array (see pack); `size` = the number of values expected (npos = any).
  template <class T>
  std::vector<T> array(const std::string& key, std::size_t size = npos) const {
    static_assert(std::is_arithmetic_v<T>);
    using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t,
                                    std::conditional_t<sizeof(T) == 4, std::uint32_t, void>>;
    const std::vector<std::uint8_t>& bytes = binary(key, sizeof(T), size);
    std::vector<T> out(bytes.size() / sizeof(T));
    for (std::size_t i = 0; i < out.size(); ++i) {
      Bits bits = 0;
      for (std::size_t b = 0; b < sizeof(T); ++b)
        bits |= static_cast<Bits>(bytes[i * sizeof(T) + b]) << (8 * b);
      out[i] = std::bit_cast<T>(bits);
    }
    return out;
  }

  /// Throws "saved <learner> model: <what>" (a state no assay version wrote).
  [[noreturn]] void invalid(const std::string& what) const;

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  const std::vector<std::uint8_t>& binary(const std::string& key, std::size_t width,
                                          std::size_t size) const;
  const Json& state_;
  std::string learner_;
};

// One loader per learner (each defined next to its Model class; listed in registry.hpp's table).
std::unique_ptr<Model> load_featureless(const Reader& read);
std::unique_ptr<Model> load_glmnet(const Reader& read);
std::unique_ptr<Model> load_cart(const Reader& read);
std::unique_ptr<Model> load_knn(const Reader& read);
std::unique_ptr<Model> load_xgboost(const Reader& read);

}  // namespace assay::learners::state

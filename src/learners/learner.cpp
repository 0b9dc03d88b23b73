#include "assay/learners/learner.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/rng.hpp"
#include "assay/learners/cart.hpp"
#include "assay/learners/glmnet.hpp"
#include "assay/learners/knn.hpp"
#include "assay/learners/xgboost.hpp"
#include "learners/registry.hpp"

namespace assay::learners {
namespace {

// The learners make_learner knows and load_model rebuilds, in documentation order. A new learner
// adds one line here.
constexpr std::array kRegistry{
    RegisteredLearner{"featureless", &make_featureless, &state::load_featureless},
    RegisteredLearner{"glmnet", &make_glmnet, &state::load_glmnet},
    RegisteredLearner{"cart", &make_cart, &state::load_cart},
    RegisteredLearner{"knn", &make_knn, &state::load_knn},
    RegisteredLearner{"xgboost", &make_xgboost, &state::load_xgboost},
};

}  // namespace

std::span<const RegisteredLearner> registered_learners() {
  return kRegistry;
}

const RegisteredLearner* find_registered(std::string_view name) {
  for (const auto& entry : kRegistry) {
    if (name == entry.name) return &entry;
  }
  return nullptr;
}

std::unique_ptr<Learner> make_learner(std::string_view name, const Json& params) {
  if (!params.is_object() && !params.is_null()) {
    fail("parameters of learner {} must be a JSON object, found {}", quote_found(name),
         params.dump());
  }
  if (const RegisteredLearner* entry = find_registered(name)) {
    return entry->make(params.is_null() ? Json::object() : params);
  }
  fail("unknown learner {}; known learners: {}", quote_found(name),
       fmt::join(learner_names(), ", "));
}

std::vector<std::string> learner_names() {
  std::vector<std::string> out;
  for (const auto& entry : kRegistry) out.emplace_back(entry.name);
  return out;
}

ParamReader::ParamReader(std::string learner, const Json& params)
    : learner_(std::move(learner)), params_(params.is_null() ? Json::object() : params) {
  if (!params_.is_object()) {
    fail("parameters of learner {} must be a JSON object, found {}", quote_found(learner_),
         params_.dump());
  }
}

const Json* ParamReader::find(const std::string& key) {
  known_.push_back(key);
  const auto it = params_.find(key);
  return it == params_.end() || it->is_null() ? nullptr : &*it;
}

double ParamReader::number(const std::string& key, double fallback, double lo, double hi) {
  const Json* v = find(key);
  if (!v) return fallback;
  if (!v->is_number()) {
    fail("learner {} parameter {}: expected a number, found {}", quote_found(learner_),
         quote_found(key), v->dump());
  }
  const double x = v->get<double>();
  if (!std::isfinite(x) || x < lo || x > hi) {
    fail("learner {} parameter {}: expected a number in [{}, {}], found {}", quote_found(learner_),
         quote_found(key), lo, hi, x);
  }
  return x;
}

std::int64_t ParamReader::integer(const std::string& key, std::int64_t fallback, std::int64_t lo,
                                  std::int64_t hi) {
  const Json* v = find(key);
  if (!v) return fallback;
  const bool integral = v->is_number_integer() ||
                        (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>() &&
                         std::abs(v->get<double>()) < 9e15);
  if (!integral) {
    fail("learner {} parameter {}: expected an integer, found {}", quote_found(learner_),
         quote_found(key), v->dump());
  }
  const auto x =
      v->is_number_integer() ? v->get<std::int64_t>() : static_cast<std::int64_t>(v->get<double>());
  if (x < lo || x > hi) {
    fail("learner {} parameter {}: expected an integer in [{}, {}], found {}",
         quote_found(learner_), quote_found(key), lo, hi, x);
  }
  return x;
}

bool ParamReader::boolean(const std::string& key, bool fallback) {
  const Json* v = find(key);
  if (!v) return fallback;
  if (!v->is_boolean()) {
    fail("learner {} parameter {}: expected true or false, found {}", quote_found(learner_),
         quote_found(key), v->dump());
  }
  return v->get<bool>();
}

std::string ParamReader::choice(const std::string& key, std::string fallback,
                                const std::vector<std::string>& allowed) {
  const Json* v = find(key);
  if (!v) return fallback;
  if (!v->is_string() ||
      std::find(allowed.begin(), allowed.end(), v->get<std::string>()) == allowed.end()) {
    fail("learner {} parameter {}: expected one of {}, found {}", quote_found(learner_),
         quote_found(key), fmt::join(allowed, ", "), v->dump());
  }
  return v->get<std::string>();
}

std::vector<double> ParamReader::numbers(const std::string& key, std::vector<double> fallback,
                                         double lo, double hi) {
  const Json* v = find(key);
  if (!v) return fallback;
  if (v->is_number()) return {number(key, 0, lo, hi)};
  if (!v->is_array() || v->empty()) {
    fail("learner {} parameter {}: expected a non-empty array of numbers, found {}",
         quote_found(learner_), quote_found(key), v->dump());
  }
  std::vector<double> out;
  for (const auto& e : *v) {
    const double x = e.is_number() ? e.get<double>() : NAN;
    if (!std::isfinite(x) || x < lo || x > hi) {
      fail("learner {} parameter {}: expected numbers in [{}, {}], found {}", quote_found(learner_),
           quote_found(key), lo, hi, e.dump());
    }
    out.push_back(x);
  }
  return out;
}

void ParamReader::finish() const {
  for (const auto& [key, value] : params_.items()) {
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
      fail("learner {} has no parameter {}; its parameters: {}", quote_found(learner_),
           quote_found(key),
           known_.empty() ? std::string("none") : fmt::format("{}", fmt::join(known_, ", ")));
    }
  }
}

std::vector<int> internal_fold_ids(std::size_t n, int folds, std::uint64_t seed) {
  ASSAY_ASSERT(folds >= 2);
  if (n < static_cast<std::size_t>(folds)) {
    throw LearnerFailure(
        fmt::format("internal {}-fold cross-validation needs at least {} train rows, found {}",
                    folds, folds, n));
  }
  std::vector<int> ids(n);
  for (std::size_t i = 0; i < n; ++i)
    ids[i] = static_cast<int>(i % static_cast<std::size_t>(folds));
  Rng rng(seed);
  for (std::size_t i = n; i > 1; --i) std::swap(ids[i - 1], ids[rng.below(i)]);
  return ids;
}

}  // namespace assay::learners

// The learner registry (private to the learners): one entry per built-in learner, naming how to
// make it from parameters and how to rebuild its fitted model from a saved state. make_learner
// and learner_names (learner.cpp) and load_model (model_state.cpp) all read this one table, so a
// learner that can be made can be reloaded.
//
//   const RegisteredLearner* entry = find_registered("glmnet");
//   auto learner = entry->make(Json::object());   // as make_learner("glmnet")
//   auto model = entry->load(read);               // as load_model, from a state::Reader
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "assay/core/json.hpp"
#include "assay/learners/learner.hpp"
#include "learners/model_state.hpp"

namespace assay::learners {

struct RegisteredLearner {
  /// The name make_learner takes and a saved state's "learner" field holds.
  const char* name;
  /// The learner from its JSON parameters (make_<name>).
  std::unique_ptr<Learner> (*make)(const Json& params);
  /// Its fitted model from a saved state (state::load_<name>, next to the Model class).
  std::unique_ptr<Model> (*load)(const state::Reader& read);
};

/// The built-in learners, in documentation order (learner_names' order).
std::span<const RegisteredLearner> registered_learners();

/// The entry called `name`, or nullptr.
const RegisteredLearner* find_registered(std::string_view name);

}  // namespace assay::learners

#include "assay/learners/learner.hpp"

#include <array>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace assay::learners {
namespace {

struct Registered {
  const char* name;
  std::unique_ptr<Learner> (*make)();
};

// The learners make_learner knows, in documentation order. New learners add one line here.
constexpr std::array kRegistry{
    Registered{"featureless", &make_featureless},
};

}  // namespace

std::unique_ptr<Learner> make_learner(std::string_view name) {
  for (const auto& entry : kRegistry) {
    if (name == entry.name) return entry.make();
  }
  fail("unknown learner {}; known learners: {}", quote_found(name),
       fmt::join(learner_names(), ", "));
}

std::vector<std::string> learner_names() {
  std::vector<std::string> out;
  for (const auto& entry : kRegistry) out.emplace_back(entry.name);
  return out;
}

}  // namespace assay::learners

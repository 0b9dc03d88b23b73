// check_gates_before_work(): the gates against a result skeleton of the planned run.
#include "assay/compare/gates.hpp"

namespace assay::compare {
namespace {

// The metrics, models and pairs the run will report, without any number.
CompareResult planned_result(const CompareInput& input, const CompareParams& params) {
  CompareResult plan;
  plan.task = input.task;
  plan.params = params;
  for (const auto& name : params.metrics)
    plan.metrics.push_back(canonical_metric(name, input.task));
  if (params.metrics.empty()) plan.metrics = metric_names(input.task);
  std::size_t baseline = 0;
  for (std::size_t m = 0; m < input.models.size(); ++m) {
    plan.models.push_back({input.models[m].name, {}});
    if (input.models[m].name == params.baseline) baseline = m;
  }
  plan.baseline = input.models[baseline].name;
  for (std::size_t a = 0; a < input.models.size(); ++a) {
    for (std::size_t b = 0; b < input.models.size(); ++b) {
      const bool pair = params.all_pairs ? b < a : (b == baseline && a != baseline);
      if (!pair) continue;
      for (const auto& metric : plan.metrics) {
        Difference d;
        d.model = input.models[a].name;
        d.baseline = input.models[b].name;
        d.metric = metric;
        plan.differences.push_back(d);
      }
    }
  }
  return plan;
}

}  // namespace

void check_gates_before_work(const std::vector<std::string>& texts, const CompareInput& input,
                             const CompareParams& params) {
  if (!texts.empty()) parse_gates(texts, planned_result(input, params));
}

}  // namespace assay::compare

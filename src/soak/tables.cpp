#include "assay/soak/tables.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/error.hpp"

namespace assay::soak {

SoakTask soak_task_from_table(const Table& table, const SoakTableSpec& spec,
                              const SoakSplitParams& params, std::string name) {
  learners::DatasetColumns columns = spec.data;
  for (const std::string* role : {&spec.design.subset, &spec.design.group, &spec.design.fold}) {
    if (!role->empty()) columns.reserved.push_back(*role);
  }
  for (const auto& s : spec.design.strata) columns.reserved.push_back(s);
  if (!spec.design.subset.empty() && spec.design.subset == spec.data.label)
    fail("the subset column and the label column must differ (both are {})",
         quote_found(spec.data.label));
  learners::Dataset data = learners::dataset_from_table(table, columns, spec.task, std::move(name));
  // Default strata: the label for classification (crossed with the subset by SoakSplits).
  std::span<const std::int32_t> default_stratum;
  if (spec.task == learners::TaskKind::classification) default_stratum = data.y_class;
  SoakDesign design = soak_design(table, spec.design, default_stratum);
  return SoakTask{std::move(data), SoakSplits(std::move(design), params)};
}

SoakOutcome soak_experiment(const std::vector<std::pair<std::string, Table>>& tables,
                            const SoakTableSpec& spec, const SoakExperimentParams& params) {
  if (tables.empty()) fail("a SOAK experiment needs at least one data set (found none)");
  std::set<std::string> names;
  SoakOutcome out;
  for (const auto& [name, table] : tables) {
    if (!names.insert(name).second)
      fail("data set names must be unique ({} appears twice)", quote_found(name));
    out.tasks.push_back(soak_task_from_table(table, spec, params.splits, name));
  }
  out.results = run_soak(out.tasks, params.run);
  out.statistics = soak_statistics(out.results, params.statistics);
  return out;
}

Json learner_params_from_assignments(const std::vector<std::string>& assignments) {
  Json out = Json::object();
  for (const auto& a : assignments) {
    const auto eq = a.find('=');
    const auto dot = a.find('.');
    if (eq == std::string::npos || dot == std::string::npos || dot > eq)
      fail("--learner-param expects LEARNER.KEY=VALUE (e.g. glmnet.alpha=0.5), found {}",
           quote_found(a));
    const std::string learner = a.substr(0, dot), key = a.substr(dot + 1, eq - dot - 1),
                      text = a.substr(eq + 1);
    if (learner.empty() || key.empty() || text.empty())
      fail("--learner-param expects LEARNER.KEY=VALUE with all three non-empty, found {}",
           quote_found(a));
    Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) value = text;  // not JSON: the text itself (lambda.min)
    Json& params = out[learner];
    if (params.contains(key)) fail("--learner-param {}.{} is given twice", learner, key);
    params[key] = std::move(value);
  }
  return out;
}

std::string describe_experiment(const SoakOutcome& outcome, const SoakExperimentParams& params) {
  std::string data;
  for (const auto& task : outcome.tasks) {
    const auto& d = task.dataset;
    const auto& design = task.splits.design();
    std::string subsets;
    for (const auto& s : design.subset_names) subsets += (subsets.empty() ? "" : ", ") + s;
    data += fmt::format("{}{} ({} rows, {} features, {} subset{}: {}{}; {} folds, {} splits)",
                        data.empty() ? "" : "; ", d.name, d.n_rows, d.n_features,
                        design.subset_names.size(), design.subset_names.size() == 1 ? "" : "s",
                        subsets, design.group.empty() ? "" : ", grouped", task.splits.n_folds(),
                        task.splits.size());
  }
  std::string learners = fmt::format("{}", fmt::join(params.run.learners, ", "));
  if (params.run.learner_params.is_object() && !params.run.learner_params.empty())
    learners += fmt::format(" (parameters: {})", params.run.learner_params.dump());
  return fmt::format(
      "SOAK (Same/Other/All K-fold cross-validation, SOAK paper) on {}. Learners: {}. Train "
      "subsets: {}; sizes = {}, ratio = {}, seeds = {}; seed = {}.",
      data, learners, params.splits.subsets, params.splits.sizes, params.splits.ratio,
      params.splits.seeds, params.splits.seed);
}

}  // namespace assay::soak

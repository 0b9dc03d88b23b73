#include "assay/core/task.hpp"

#include <string>

#include "assay/core/error.hpp"

namespace assay {

std::optional<TaskKind> find_task_kind(std::string_view name) {
  if (name == "classification") return TaskKind::classification;
  if (name == "regression") return TaskKind::regression;
  return std::nullopt;
}

TaskKind parse_task_kind(std::string_view name, std::string_view what) {
  if (const auto task = find_task_kind(name)) return *task;
  fail("{}expected classification or regression, found {}",
       what.empty() ? std::string() : std::string(what) + ": ", quote_found(name));
}

std::string_view to_string(TaskKind task) {
  return task == TaskKind::classification ? "classification" : "regression";
}

}  // namespace assay

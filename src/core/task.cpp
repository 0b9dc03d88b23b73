#include "assay/core/task.hpp"

#include "assay/core/error.hpp"

namespace assay {

TaskKind parse_task_kind(std::string_view name, std::string_view what) {
  if (name == "classification") return TaskKind::classification;
  if (name == "regression") return TaskKind::regression;
  fail("{}: expected classification or regression, found {}", what, quote_found(name));
}

std::string_view to_string(TaskKind task) {
  return task == TaskKind::classification ? "classification" : "regression";
}

}  // namespace assay

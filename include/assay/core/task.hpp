// What a model predicts: a class or a number. One enum for the learners (which fit either), the
// counting models (which read "task" from their JSON) and every result that names the task, so
// the option, the file field and the output spell it the same way.
//
// Example:
//   TaskKind t = parse_task_kind("regression");   // TaskKind::regression
//   to_string(t);                                  // "regression"
//   parse_task_kind("clasification");
//       // throws: task: expected classification or regression, found "clasification"
//   parse_task_kind("clasification", "--task");
//       // throws: --task: expected classification or regression, found "clasification"
#pragma once

#include <optional>
#include <string_view>

namespace assay {

enum class TaskKind { classification, regression };

/// The task named "classification" or "regression"; nullopt for anything else (for readers that
/// report the error at a file location).
std::optional<TaskKind> find_task_kind(std::string_view name);

/// "classification" | "regression"; anything else throws assay::Error "<what>: expected
/// classification or regression, found "<name>"" (`what` names the option or field; empty: no
/// "<what>: ", for callers that name it themselves).
TaskKind parse_task_kind(std::string_view name, std::string_view what = "task");
std::string_view to_string(TaskKind task);

}  // namespace assay

// core/task: TaskKind's parse_task_kind and to_string, and the message naming the option.
#include <gtest/gtest.h>

#include "assay/core/error.hpp"
#include "assay/core/task.hpp"
#include "test_util.hpp"

namespace assay {
namespace {

TEST(Task, ParsesBothKinds) {
  EXPECT_EQ(parse_task_kind("classification"), TaskKind::classification);
  EXPECT_EQ(parse_task_kind("regression"), TaskKind::regression);
}

TEST(Task, ToStringRoundTrips) {
  EXPECT_EQ(to_string(TaskKind::classification), "classification");
  EXPECT_EQ(to_string(TaskKind::regression), "regression");
  for (const TaskKind t : {TaskKind::classification, TaskKind::regression}) {
    EXPECT_EQ(parse_task_kind(to_string(t)), t);
  }
}

TEST(Task, UnknownNameIsQuotedAndNamesTheField) {
  EXPECT_THROW_MSG(parse_task_kind("clasification"), Error,
                   "task: expected classification or regression, found \"clasification\"");
  EXPECT_THROW_MSG(parse_task_kind("Regression", "--task"), Error,
                   "--task: expected classification or regression, found \"Regression\"");
  EXPECT_THROW_MSG(parse_task_kind(""), Error,
                   "task: expected classification or regression, found \"\"");
  EXPECT_THROW_MSG(parse_task_kind("regression\n"), Error,
                   "task: expected classification or regression, found \"regression\\n\"");
}

}  // namespace
}  // namespace assay

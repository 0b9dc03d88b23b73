// core/warning: the installed handler receives warnings (none installed: dropped), their kind is
// readable inside the handler, ScopedWarningHandler restores the previous handler, and a throwing
// handler leaves the kind reset.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "assay/core/thread_pool.hpp"
#include "assay/core/warning.hpp"

namespace assay {
namespace {

TEST(Warning, HandlerReceivesMessages) {
  std::vector<std::string> seen;
  auto previous = set_warning_handler([&](const std::string& m) { seen.push_back(m); });
  warn("only one class present");
  set_warning_handler(previous);
  warn("dropped");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], "only one class present");
}

TEST(Warning, NoHandlerDropsWarnings) {
  auto previous = set_warning_handler({});
  EXPECT_NO_THROW(warn("nobody listens"));
  EXPECT_NO_THROW(warn(WarningKind::undefined_metric, "nobody listens"));
  set_warning_handler(previous);
}

TEST(Warning, SetReturnsThePreviousHandler) {
  std::vector<std::string> first, second;
  auto original = set_warning_handler([&](const std::string& m) { first.push_back(m); });
  auto back = set_warning_handler([&](const std::string& m) { second.push_back(m); });
  warn("to second");
  set_warning_handler(back);
  warn("to first");
  set_warning_handler(original);
  EXPECT_EQ(first, (std::vector<std::string>{"to first"}));
  EXPECT_EQ(second, (std::vector<std::string>{"to second"}));
}

TEST(Warning, KindIsVisibleInsideTheHandlerOnly) {
  std::vector<WarningKind> kinds;
  ScopedWarningHandler capture(
      [&](const std::string&) { kinds.push_back(current_warning_kind()); });
  warn("general");
  warn(WarningKind::undefined_metric, "precision is ill-defined");
  warn(WarningKind::general, "general again");
  EXPECT_EQ(kinds, (std::vector<WarningKind>{WarningKind::general, WarningKind::undefined_metric,
                                             WarningKind::general}));
  EXPECT_EQ(current_warning_kind(), WarningKind::general);
}

TEST(Warning, ThrowingHandlerPropagatesAndResetsTheKind) {
  ScopedWarningHandler thrower([](const std::string& m) { throw std::runtime_error(m); });
  try {
    warn(WarningKind::undefined_metric, "as error");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "as error");
  }
  EXPECT_EQ(current_warning_kind(), WarningKind::general);
}

TEST(Warning, ScopedHandlerRestoresThePreviousOne) {
  std::vector<std::string> outer, inner;
  ScopedWarningHandler o([&](const std::string& m) { outer.push_back(m); });
  {
    ScopedWarningHandler i([&](const std::string& m) { inner.push_back(m); });
    warn("inner");
    {
      ScopedWarningHandler silence({});
      warn("silenced");
    }
    warn("inner again");
  }
  warn("outer");
  EXPECT_EQ(inner, (std::vector<std::string>{"inner", "inner again"}));
  EXPECT_EQ(outer, (std::vector<std::string>{"outer"}));
}

TEST(Warning, HandlerIsCalledOneAtATimeFromWorkers) {
  int in_handler = 0, max_in_handler = 0, calls = 0;  // guarded by warn's mutex
  ScopedWarningHandler count([&](const std::string&) {
    ++in_handler;
    max_in_handler = std::max(max_in_handler, in_handler);
    ++calls;
    --in_handler;
  });
  parallel_for(
      200, [](std::size_t i) { warn("fold " + std::to_string(i)); }, 4);
  EXPECT_EQ(calls, 200);
  EXPECT_EQ(max_in_handler, 1);
}

}  // namespace
}  // namespace assay

// batch/system: the operating-system wrappers of batch runs — host name, UTC time stamps,
// process liveness, peak memory and CPU time, finding and running programs (exit codes, output,
// signals, absent programs), and job ranges. Private to the batch layer: the header is included
// directly.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "../../../src/batch/system.hpp"
#include "assay/core/error.hpp"
#include "test_util.hpp"

namespace assay::batch::detail {
namespace {

TEST(BatchSystem, HostAndTime) {
  EXPECT_FALSE(host_name().empty());
  const std::string now = utc_now();
  EXPECT_TRUE(std::regex_match(now, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")))
      << now;
  EXPECT_LE(now, utc_now());  // the text sorts as the time does
}

TEST(BatchSystem, ThisProcessIsAliveAndMeasured) {
  EXPECT_TRUE(process_alive(::getpid()));
  EXPECT_FALSE(process_alive(0x3fffffff));  // above any pid_max
  EXPECT_GT(peak_rss_bytes(), 0);
  EXPECT_GE(process_cpu_seconds(), 0.0);
}

TEST(BatchSystem, FindProgram) {
  const std::string sh = find_program("sh");
  ASSERT_FALSE(sh.empty());
  EXPECT_TRUE(std::filesystem::exists(sh));
  EXPECT_EQ(find_program(sh), sh);  // a path is taken as it is
  EXPECT_EQ(find_program("assay-no-such-program"), "");
  EXPECT_EQ(find_program("/no/such/dir/sh"), "");
}

TEST(BatchSystem, RunCommandReturnsExitCodeAndOutput) {
  const CommandResult r = run_command({"sh", "-c", "echo out; echo err >&2; exit 3"}, "a shell");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  const CommandResult ok = run_command({"sh", "-c", "printf 'a b'"}, "a shell");
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.out, "a b");
  const CommandResult killed = run_command({"sh", "-c", "kill -9 $$"}, "a shell");
  EXPECT_EQ(killed.exit_code, 128 + 9);
  EXPECT_THROW_MSG(run_command({"assay-no-such-program", "x"}, "install it"), Error,
                   "assay-no-such-program not found on PATH (install it)");
}

TEST(BatchSystem, RangesOfSortedJobs) {
  EXPECT_EQ(ranges({}), "");
  EXPECT_EQ(ranges({7}), "7");
  EXPECT_EQ(ranges({3, 9, 10, 11, 19, 22}), "3, 9-11, 19, 22");
  EXPECT_EQ(ranges({1, 2, 4, 5}, ","), "1-2,4-5");
}

}  // namespace
}  // namespace assay::batch::detail

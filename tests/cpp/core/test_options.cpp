#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/options.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/core/warning.hpp"
#include "test_util.hpp"

namespace assay {
namespace {

TEST(Options, UnsignedIntegersAreNeverWrappedOrClamped) {
  EXPECT_EQ(parse_unsigned("--seed", "0"), 0u);
  EXPECT_EQ(parse_unsigned("--seed", "18446744073709551615"), UINT64_MAX);
  EXPECT_THROW_MSG(parse_unsigned("--seed", "18446744073709551616"), Error,
                   "--seed: expected an integer in 0..18446744073709551615, found "
                   "\"18446744073709551616\"");
  EXPECT_THROW_MSG(parse_unsigned("--samples", "-5"), Error,
                   "--samples: expected an integer in 0..18446744073709551615, found \"-5\"");
  EXPECT_THROW_MSG(parse_unsigned("--seed", "1e3"), Error,
                   "--seed: expected an integer in 0..18446744073709551615, found \"1e3\"");
  EXPECT_THROW_MSG(parse_unsigned("--seed", ""), Error,
                   "--seed: expected an integer in 0..18446744073709551615, found \"\"");
  EXPECT_THROW_MSG(parse_unsigned("", "+1", 10), Error,
                   "expected an integer in 0..10, found \"+1\"");
}

TEST(Options, ThreadsZeroMeansAllCoresNegativeIsRefused) {
  EXPECT_EQ(checked_threads(0, "--threads"), 0);
  EXPECT_EQ(checked_threads(1, "--threads"), 1);
  EXPECT_THROW_MSG(checked_threads(-1, "--threads"), Error,
                   "--threads: expected 0 (all cores) or a positive number of threads, found -1");
  EXPECT_THROW_MSG(checked_threads(1 << 20, "--threads"), Error,
                   "--threads: expected at most 65536 threads, found 1048576");
  // From text (the CLI, the report configuration, Python): the same range and words, no cap.
  EXPECT_EQ(parse_threads("--threads", "4096"), 4096);
  EXPECT_THROW_MSG(parse_threads("--threads", "-1"), Error,
                   "--threads: expected 0 (all cores) or a positive number of threads, found -1");
  EXPECT_THROW_MSG(parse_threads("", "x"), Error,
                   "expected 0 (all cores) or a positive number of threads, found \"x\"");
}

TEST(Options, ThreadsAboveTheCoresAreCappedUnlessForced) {
  const int cores = hardware_threads();
  std::vector<std::string> warnings;
  ScopedWarningHandler capture([&](const std::string& m) { warnings.push_back(m); });
  ::unsetenv("ASSAY_THREADS_FORCE");
  EXPECT_EQ(checked_threads(cores, "--threads"), cores);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(checked_threads(1000 + cores, "--threads"), cores);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], fmt::format("--threads {} is more than the {} cores of this machine; "
                                     "using {} (--threads-force or ASSAY_THREADS_FORCE=1 uses {} "
                                     "anyway)",
                                     1000 + cores, cores, cores, 1000 + cores));
  EXPECT_EQ(checked_threads(1000 + cores, "--threads", /*force=*/true), 1000 + cores);
  ::setenv("ASSAY_THREADS_FORCE", "1", 1);
  EXPECT_EQ(checked_threads(1000 + cores, "--threads"), 1000 + cores);
  ::unsetenv("ASSAY_THREADS_FORCE");
  EXPECT_EQ(warnings.size(), 1u);
}

TEST(Options, ProbabilitiesLieInTheOpenUnitInterval) {
  check_probability("confidence", 0.95);
  EXPECT_THROW_MSG(check_probability("confidence", 7), Error,
                   "confidence: expected a number in (0, 1), found 7");
  EXPECT_THROW_MSG(check_probability("confidence", 1), Error,
                   "confidence: expected a number in (0, 1), found 1");
  EXPECT_THROW_MSG(check_probability("delta", NAN), Error,
                   "delta: expected a number in (0, 1), found nan");
  // The CLI reads them from text with the same rule and words: a number is shown as a number
  // (as the Python functions and the report configuration show theirs), other text quoted.
  EXPECT_EQ(parse_probability("--delta", "0.2"), 0.2);
  EXPECT_THROW_MSG(parse_probability("--confidence", "7"), Error,
                   "--confidence: expected a number in (0, 1), found 7");
  EXPECT_THROW_MSG(parse_probability("", "0.5x"), Error,
                   "expected a number in (0, 1), found \"0.5x\"");
  EXPECT_THROW_MSG(parse_probability("", "nan"), Error, "expected a number in (0, 1), found nan");
}

}  // namespace
}  // namespace assay

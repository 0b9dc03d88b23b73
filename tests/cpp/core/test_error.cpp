// core/error: assay::Error with and without locations, quote_found and UTF-8 checks, memory
// checks, and ASSAY_ASSERT as a logic error rather than bad input.
#include <gtest/gtest.h>

#include "assay/core/error.hpp"
#include "test_util.hpp"

namespace assay {

TEST(Error, LocationPrefixesMessage) {
  EXPECT_THROW_MSG(
      fail_at(Location{"data.csv", 12, 7}, "expected a number, found {}", quote_found("abc")),
      Error, "data.csv:12:7: expected a number, found \"abc\"");
  EXPECT_THROW_MSG(fail_at(Location{"data.csv", 0, 0}, "is empty"), Error, "data.csv: is empty");
  EXPECT_THROW_MSG(fail("y_true and y_score differ in length ({} vs {})", 120, 119), Error,
                   "y_true and y_score differ in length (120 vs 119)");
}

TEST(Error, QuoteFoundShowsOneLineOfUtf8) {
  EXPECT_EQ(quote_found(std::string("a\nb\0c\x7f", 6)), "\"a\\nb\\x00c\\x7f\"");
  EXPECT_EQ(quote_found("caf\xE9 \"x\" \\"), "\"caf\\xE9 \\\"x\\\" \\\\\"");
  EXPECT_EQ(quote_found("caf\xC3\xA9"), "\"caf\xC3\xA9\"");  // UTF-8 shown as it is
  // Cut at 40 characters, never inside a UTF-8 character.
  std::string euros;
  for (int i = 0; i < 50; ++i) euros += "\xE2\x82\xAC";
  const std::string shown = quote_found(euros);
  EXPECT_EQ(shown, "\"" + euros.substr(0, 120) + "...\"");
  EXPECT_EQ(invalid_utf8_at(shown), std::string_view::npos);
  EXPECT_EQ(invalid_utf8_at("ok \xC3\xA9 \xE9"), 6u);
  EXPECT_EQ(invalid_utf8_at("ok"), std::string_view::npos);
}

TEST(Error, FileNamesInLocationsStayOneLine) {
  EXPECT_EQ((Location{"a\nb.csv", 2, 3}.to_string()), "\"a\\nb.csv\":2:3");
  EXPECT_EQ((Location{"caf\xE9.csv", 1, 0}.to_string()), "\"caf\\xE9.csv\":1");
  EXPECT_EQ((Location{"caf\xC3\xA9.csv", 1, 1}.to_string()), "caf\xC3\xA9.csv:1:1");
}

TEST(Error, CheckMemoryRefusesWhatCannotFit) {
  EXPECT_NO_THROW(check_memory(1024, "a small buffer"));
  EXPECT_GT(allocatable_bytes(), std::size_t{1} << 20);
  try {
    check_memory(std::size_t{1} << 62, "a 2^59-voxel volume");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with(
        "needs 4611686018.4 GB for a 2^59-voxel volume, more than the "))
        << e.what();
  }
}

TEST(Error, AssertIsNotAnError) {
  EXPECT_THROW(ASSAY_ASSERT(1 + 1 == 3), std::logic_error);
  try {
    ASSAY_ASSERT(false);
  } catch (const Error&) {
    FAIL() << "ASSAY_ASSERT must not throw assay::Error";
  } catch (const std::logic_error&) {
  }
}

}  // namespace assay

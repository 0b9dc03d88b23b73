// count/numbers: exact counts as decimal and scientific text, exact ratios of big integers, and
// proportions with Wilson and Clopper-Pearson intervals (checked against R and SciPy).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "assay/core/error.hpp"
#include "assay/count/counting.hpp"
#include "test_util.hpp"

namespace assay::count {
namespace {

TEST(Numbers, ProportionIntervals) {
  const Proportion p = proportion(5, 10, 0.95);
  EXPECT_NEAR(p.exact_low, 0.18708602844739, 1e-10);  // Clopper-Pearson (R's binom.test)
  EXPECT_NEAR(p.exact_high, 0.81291397155261, 1e-10);
  EXPECT_NEAR(p.wilson_low, 0.23659309051257, 1e-10);  // R's prop.test(correct = FALSE)
  EXPECT_NEAR(p.wilson_high, 0.76340690948743, 1e-10);
  const Proportion z = proportion(0, 20, 0.95);
  EXPECT_EQ(z.exact_low, 0.0);
  EXPECT_NEAR(z.exact_high, 0.16843347098308, 1e-10);
  EXPECT_TRUE(std::isnan(proportion(0, 0).value));
}

TEST(Numbers, ScientificNotation) {
  EXPECT_EQ(to_scientific(mpz_class(12345)), "12345");
  EXPECT_EQ(to_scientific(mpz_class("332000000000000000")), "3.32e+17");
  EXPECT_EQ(to_scientific(mpz_class("999600000000000000")), "1.00e+18");
  EXPECT_EQ(to_decimal(mpz_class("123456789012345678901234567890")),
            "123456789012345678901234567890");
}

TEST(Numbers, ScientificKeepsShortNumbersWhole) {
  // Up to digits + 3 digits the number is written out; one more and it is rounded.
  EXPECT_EQ(to_scientific(mpz_class(0)), "0");
  EXPECT_EQ(to_scientific(mpz_class(999999)), "999999");
  EXPECT_EQ(to_scientific(mpz_class(1234567)), "1.23e+6");
  EXPECT_EQ(to_scientific(mpz_class(1235000)), "1.24e+6");  // half rounds up
  EXPECT_EQ(to_scientific(mpz_class(-1234567)), "-1.23e+6");
  EXPECT_EQ(to_scientific(mpz_class(-999999)), "-999999");
  EXPECT_EQ(to_scientific(mpz_class(9995000)), "1.00e+7");
}

TEST(Numbers, ScientificWithOtherDigitCounts) {
  EXPECT_EQ(to_scientific(mpz_class(123456), 1), "1e+5");
  EXPECT_EQ(to_scientific(mpz_class(1234), 1), "1234");
  EXPECT_EQ(to_scientific(mpz_class(96000), 1), "1e+5");
  EXPECT_EQ(to_scientific(mpz_class("12345678901"), 5), "1.2346e+10");
  const mpz_class two_to_100 = mpz_class(1) << 100;
  EXPECT_EQ(to_decimal(two_to_100), "1267650600228229401496703205376");
  EXPECT_EQ(to_scientific(two_to_100), "1.27e+30");
  EXPECT_EQ(to_decimal(mpz_class(-42)), "-42");
}

TEST(Numbers, RatioIsExactBeforeRounding) {
  EXPECT_EQ(ratio(mpz_class(1), mpz_class(4)), 0.25);
  EXPECT_EQ(ratio(mpz_class(1), mpz_class(3)), 1.0 / 3);
  // Numbers far beyond a double's range still give their quotient.
  const mpz_class big = mpz_class(1) << 2000;
  EXPECT_EQ(ratio(big, big * 8), 0.125);
  EXPECT_EQ(ratio(big * 3, big * 4), 0.75);
  EXPECT_EQ(ratio(mpz_class(0), mpz_class(5)), 0.0);
  EXPECT_TRUE(std::isnan(ratio(mpz_class(3), mpz_class(0))));
}

// Rates are the correctly rounded quotient, as Python's (tp + tn) / total: mpq_get_d alone
// truncates toward zero (4/5 gave 0.7999999999999999), a bug this test found.
TEST(Numbers, RatioIsCorrectlyRounded) {
  EXPECT_EQ(ratio(mpz_class(4), mpz_class(5)), 0.8);
  EXPECT_EQ(ratio(mpz_class(80), mpz_class(100)), 0.8);
  EXPECT_EQ(ratio(mpz_class(2), mpz_class(5)), 0.4);
  EXPECT_EQ(ratio(mpz_class(1), mpz_class(10)), 0.1);
  EXPECT_EQ(ratio(mpz_class(-4), mpz_class(5)), -0.8);
  // Every quotient of small integers equals the double division (which rounds correctly).
  for (int a = 0; a <= 60; ++a) {
    for (int b = 1; b <= 60; ++b) {
      EXPECT_EQ(ratio(mpz_class(a), mpz_class(b)), double(a) / double(b)) << a << "/" << b;
    }
  }
}

TEST(Numbers, ProportionAtTheEdges) {
  const Proportion all = proportion(10, 10, 0.90);
  EXPECT_EQ(all.value, 1.0);
  EXPECT_EQ(all.exact_high, 1.0);
  EXPECT_NEAR(all.exact_low, 0.7411344491069477, 1e-12);  // 0.05^(1/10)
  EXPECT_NEAR(all.wilson_low, 0.787058029916593, 1e-12);
  EXPECT_DOUBLE_EQ(all.wilson_high, 1.0);
  const Proportion rare = proportion(3, 100, 0.99);
  EXPECT_EQ(rare.k, 3u);
  EXPECT_EQ(rare.n, 100u);
  EXPECT_EQ(rare.value, 0.03);
  EXPECT_NEAR(rare.exact_low, 0.0034070701031797567, 1e-12);  // scipy.stats.beta.ppf
  EXPECT_NEAR(rare.exact_high, 0.10548125372507824, 1e-12);
  EXPECT_NEAR(rare.wilson_low, 0.007612169301778597, 1e-12);
  EXPECT_NEAR(rare.wilson_high, 0.11087527715109499, 1e-12);
  const Proportion none = proportion(0, 0, 0.95);
  EXPECT_TRUE(std::isnan(none.wilson_low));
  EXPECT_TRUE(std::isnan(none.exact_high));
}

TEST(Numbers, ConfidenceOutsideTheOpenUnitIntervalIsRefused) {
  EXPECT_THROW_MSG(proportion(1, 2, 1.0), Error, "confidence must lie in (0, 1), found 1");
  EXPECT_THROW_MSG(proportion(1, 2, 0.0), Error, "confidence must lie in (0, 1), found 0");
  EXPECT_THROW_MSG(proportion(1, 2, 95), Error, "confidence must lie in (0, 1), found 95");
  EXPECT_NO_THROW(proportion(0, 0, 95));  // n = 0 is NaN before the check
}

}  // namespace
}  // namespace assay::count

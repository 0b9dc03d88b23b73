// report/claim: a claim as JSON, and the wording its sentences share, each against its
// definition (fixed decimals as printf prints them, read back; NaN and null as undefined).
#include <gtest/gtest.h>

#include <cmath>

#include "assay/report/claim.hpp"

using assay::Json;
using namespace assay::report;

namespace {

TEST(Claim, JsonHoldsEveryField) {
  const Claim c{"regression.model", "regression", {"ridge"}, {{"n_samples", 3}}, "Regression: x."};
  const Json j = claim_json(c);
  EXPECT_EQ(j.at("kind"), "regression.model");
  EXPECT_EQ(j.at("section"), "regression");
  EXPECT_EQ(j.at("subjects"), Json::array({"ridge"}));
  EXPECT_EQ(j.at("facts").at("n_samples"), 3);
  EXPECT_EQ(j.at("text"), "Regression: x.");
}

TEST(Claim, ShownIsTheValueAsPrinted) {
  EXPECT_EQ(wording::shown(0.87351, 3), 0.874);
  EXPECT_EQ(wording::shown(0.87351, 3), wording::shown(0.87449, 3));  // a tie as printed
  EXPECT_TRUE(std::isnan(wording::shown(NAN, 3)));
  EXPECT_EQ(wording::shown(INFINITY, 3), INFINITY);
}

TEST(Claim, FactsReadNullAndMissingAsNan) {
  const Json facts = {{"a", 0.5}, {"b", nullptr}, {"list", {1.5, nullptr}}};
  EXPECT_EQ(wording::fact(facts, "a"), 0.5);
  EXPECT_TRUE(std::isnan(wording::fact(facts, "b")));
  EXPECT_TRUE(std::isnan(wording::fact(facts, "missing")));
  EXPECT_EQ(wording::fact(facts.at("list"), std::size_t{0}), 1.5);
  EXPECT_TRUE(std::isnan(wording::fact(facts.at("list"), std::size_t{1})));
  EXPECT_TRUE(std::isnan(wording::fact(facts.at("list"), std::size_t{2})));
}

TEST(Claim, Wording) {
  EXPECT_EQ(wording::fixed_or_undefined(0.12345, 3), "0.123");
  EXPECT_EQ(wording::fixed_or_undefined(NAN, 3), "undefined");
  EXPECT_EQ(wording::percent(0.1234), "12.3 %");
  EXPECT_EQ(wording::percent(0.1234, 2), "12.34 %");
  EXPECT_EQ(wording::percent(NAN), "undefined");
  EXPECT_EQ(wording::p_value_text(0.0123), "p = 0.012");
  EXPECT_EQ(wording::p_value_text(3.1e-6), "p = 3.1e-06");
  EXPECT_EQ(wording::p_value_text(0), "p < 1e-300");
  EXPECT_EQ(wording::p_value_text(NAN), "p undefined");
  EXPECT_EQ(wording::with_interval(0.87312, 0.851, 0.894, 3), "0.873 [0.851, 0.894]");
  EXPECT_EQ(wording::with_interval(0.87312, NAN, 0.894, 3), "0.873");
  EXPECT_EQ(wording::with_interval(NAN, 0.851, 0.894, 3), "undefined");
}

}  // namespace

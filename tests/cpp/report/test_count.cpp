// report/count: rendering counting results — JSON with exact counts as decimal strings, the
// text tables and the HTML page.
#include <gtest/gtest.h>

#include "assay/core/warning.hpp"
#include "assay/count/counting.hpp"
#include "assay/report/count.hpp"
#include "test_util.hpp"

namespace assay::count {
namespace {

Model always_one(std::size_t n_features) {
  Model m;
  m.kind = ModelKind::tree;
  m.n_features = n_features;
  m.n_outputs = 2;
  m.classes = {"no", "yes"};
  Tree t;
  t.feature = {0};
  t.threshold = {0};
  t.left = {-1};
  t.right = {-1};
  t.value = {{0.0, 3.0}};
  m.trees.push_back(t);
  return m;
}

CountResult reflexive_result() {
  const Spec s = load_spec(std::string(ASSAY_SOURCE_DIR) + "/examples/count/graph4.spec");
  CountParams p;
  p.property = "Reflexive";
  p.samples = {100};
  p.seed = 1;
  ScopedWarningHandler quiet(WarningHandler{});
  return count(always_one(16), s, p);
}

TEST(CountReport, JsonHoldsExactCountsAsStrings) {
  const CountResult r = reflexive_result();
  const Json j = report::count_json(r);
  EXPECT_EQ(j["domain_size"], "65536");
  EXPECT_EQ(j["labels"][1]["label"], "yes");
  EXPECT_EQ(j["labels"][1]["tp"], "4096");
  EXPECT_EQ(j["labels"][1]["fp"], "61440");
  EXPECT_EQ(j["labels"][1]["fn"], "0");
  EXPECT_DOUBLE_EQ(j["labels"][1]["precision"].get<double>(), 4096.0 / 65536);
  EXPECT_TRUE(j["labels"][0]["precision"].is_null());  // label "no" is never predicted
  EXPECT_EQ(j["samples"][0]["n"], 100);
  const Json acc = j["samples"][0]["labels"][1]["recall"];
  EXPECT_LE(acc["clopper_pearson"][0].get<double>(), acc["value"].get<double>());
  EXPECT_EQ(j["correct"], "4096");
}

TEST(CountReport, TextAndHtml) {
  const CountResult r = reflexive_result();
  const std::string text = report::count_text(r);
  EXPECT_NE(text.find("exact counting (structural) over 65536 points (16 inputs), property "
                      "Reflexive"),
            std::string::npos);
  EXPECT_NE(text.find("yes    4096  61440     0      0    0.0625     0.0625  1.0000  0.1176"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("uniform n=100"), std::string::npos);
  const report::HtmlReport page = report::count_html(r, "count");
  EXPECT_NE(page.render().find("<dt id=\"glossary-tp\">TP</dt>"), std::string::npos);
  EXPECT_EQ(page.chart_count(), 1u);
  EXPECT_NE(page.render().find("Exact counts per label"), std::string::npos);
  EXPECT_NE(page.render().find("(95% Wilson intervals)"), std::string::npos);
  CountResult r90 = r;
  r90.confidence = 0.9;  // the page names the level the intervals were computed at
  EXPECT_NE(report::count_html(r90, "count").render().find("(90% Wilson intervals)"),
            std::string::npos);
}

TEST(CountReport, RobustnessAndModelInfo) {
  RobustnessParams p;
  p.epsilon = 1;
  p.label = 1;
  p.lower = {0};
  p.upper = {255};
  const std::vector<double> x(784, 7.0);
  const Json j = report::robustness_json(robustness(always_one(784), x, p));
  mpz_class total;
  mpz_ui_pow_ui(total.get_mpz_t(), 3, 784);
  EXPECT_EQ(j["total"], total.get_str());
  EXPECT_EQ(j["count"], total.get_str());
  EXPECT_EQ(j["robustness"], 1.0);
  const std::string info = report::model_info_text(model_info(always_one(16)));
  EXPECT_NE(info.find("parameters"), std::string::npos);
  EXPECT_NE(info.find("no, yes"), std::string::npos);
}

// Up to 12 digits in full, then 3 significant digits (2^900 = 8.4527...e270).
TEST(CountReport, ShortCount) {
  EXPECT_EQ(report::short_count(mpz_class("999999999999")), "999999999999");
  EXPECT_EQ(report::short_count(mpz_class("1000000000000")), "1.00e+12");
  EXPECT_EQ(report::short_count(mpz_class(1) << 900), "8.45e+270");
}

}  // namespace
}  // namespace assay::count

// The report configuration: the schema's keys, types and defaults, and the located error of every
// kind of mistake (TOML text and in-memory JSON), then the input checks of prepare_overview.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "assay/core/error.hpp"
#include "assay/overview/config.hpp"
#include "assay/overview/overview.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using assay::Error;
using assay::Json;
using namespace assay::report;

namespace {

ReportConfig parse(const std::string& text) {
  return parse_report_config(text, "r.toml", "/data");
}

const char* const kMetrics = R"(title = "T"
[metrics]
file = "p.csv"
label = "y"
[metrics.models]
zeta = "p_z"
alpha = ["p0", "p1"]
mid = { pred = "guess" }
)";

}  // namespace

TEST(ReportConfig, ReadsMetricsWithDefaultsAndModelOrder) {
  const ReportConfig c = parse(kMetrics);
  EXPECT_EQ(c.title, "T");
  EXPECT_EQ(c.out, "/data/report.html");
  ASSERT_TRUE(c.metrics.has_value());
  EXPECT_FALSE(c.soak.has_value());
  const auto& m = *c.metrics;
  EXPECT_EQ(m.file, "/data/p.csv");
  EXPECT_EQ(m.columns.label, "y");
  ASSERT_EQ(m.models.size(), 3u);  // in the order written, not sorted
  EXPECT_EQ(m.models[0].name, "zeta");
  EXPECT_EQ(m.models[0].scores, std::vector<std::string>{"p_z"});
  EXPECT_EQ(m.models[1].scores, (std::vector<std::string>{"p0", "p1"}));
  EXPECT_EQ(m.models[2].pred, "guess");
  EXPECT_EQ(m.params.bootstrap.n_resamples, 1000u);  // the report's default: intervals
  EXPECT_EQ(m.params.bootstrap.seed, 1u);
  EXPECT_EQ(m.params.threshold, 0.5);
  EXPECT_EQ(c.chart_axis, AxisRange::fit);  // value axes fitted to the data
  EXPECT_EQ(parse("chart_axis = \"full\"\n" + std::string(kMetrics)).chart_axis, AxisRange::full);
}

TEST(ReportConfig, EverySection) {
  const ReportConfig c = parse(R"(seed = 7
threads = 2
[soak]
files = ["a.csv", "/abs/b.csv"]
label = "y"
subset = "region"
learners = ["featureless"]
learner_params = { glmnet = { alpha = 0.5 } }
[cv]
file = "a.csv"
label = "y"
drop = ["region"]
[shift]
file = "s.csv"
target = "t"
pred = "m"
uncertainty = "u"
acceptable = 9
[segment]
truth = "gt"
pred = ["m0", "m1"]
[count]
spec = "g.spec"
models = { tree = "t.json" }
samples = [100, 1000]
)");
  ASSERT_TRUE(c.soak && c.cv && c.shift && c.segment && c.count);
  EXPECT_EQ(c.soak->files, (std::vector<std::string>{"/data/a.csv", "/abs/b.csv"}));
  EXPECT_EQ(c.soak->params.splits.seed, 7u);
  EXPECT_EQ(c.soak->params.run.threads, 2);
  EXPECT_EQ(c.soak->params.run.learner_params["glmnet"]["alpha"], 0.5);
  EXPECT_EQ(c.cv->params.data.drop, std::vector<std::string>{"region"});
  EXPECT_EQ(*c.shift->params.acceptable, 9);
  EXPECT_EQ(c.shift->params.bootstrap.n_resamples, 200u);
  ASSERT_EQ(c.segment->models.size(), 1u);
  EXPECT_EQ(c.segment->models[0].pred, (std::vector<std::string>{"/data/m0", "/data/m1"}));
  EXPECT_EQ(c.count->models[0].file, "/data/t.json");
  EXPECT_EQ(c.count->params.samples, (std::vector<std::size_t>{100, 1000}));
}

TEST(ReportConfig, LocatedErrors) {
  EXPECT_THROW_MSG(parse("[metrics]\nfile = \"p.csv\"\ntreshold = 0.3\n"), Error,
                   "r.toml:3:1: [metrics] unknown key \"treshold\" (did you mean \"threshold\"? "
                   "allowed: file, label, models, weight, threshold, pos_label, ap_method, "
                   "ap_grid, bins, bin_strategy, bootstrap, confidence, seed, delimiter, decimal)");
  EXPECT_THROW_MSG(parse("[metrics]\nfile = \"p.csv\"\nlabel = \"y\"\nthreshold = \"high\"\n"
                         "models = { a = \"p\" }\n"),
                   Error, "r.toml:4:13: [metrics] threshold: expected a number, found \"high\"");
  EXPECT_THROW_MSG(parse("[metrics]\nfile = \"p.csv\"\nmodels = { a = \"p\" }\n"), Error,
                   "r.toml:1:1: [metrics] missing key \"label\"");
  EXPECT_THROW_MSG(parse("[metrics]\nfile = \"p.csv\"\nlabel = \"y\"\n"), Error,
                   "r.toml:1:1: [metrics] missing key \"models\"");
  EXPECT_THROW_MSG(parse("[metrics]\nfile = \"p.csv\"\nlabel = \"y\"\nmodels = { a = 3 }\n"), Error,
                   "r.toml:4:16: [metrics.models] a: expected a score column, an array of score "
                   "columns or a table, found 3");
  EXPECT_THROW_MSG(parse("[metrics]\nfile = \"p.csv\"\nlabel = \"y\"\nbootstrap = -1\n"
                         "models = { a = \"p\" }\n"),
                   Error,
                   "r.toml:4:13: [metrics] bootstrap: expected an integer in "
                   "0..18446744073709551615, found \"-1\"");
  EXPECT_THROW_MSG(parse("[metrics]\nfile = \"p.csv\"\nlabel = \"y\"\nap_method = \"voc\"\n"
                         "models = { a = \"p\" }\n"),
                   Error,
                   "r.toml:4:13: [metrics] ap_method: method must be one of \"step\", \"voc07\", "
                   "\"voc_allpoint\", \"coco101\", \"trapezoid\", found \"voc\"");
  EXPECT_THROW_MSG(parse("title = \"x\"\n"), Error,
                   "r.toml: no analysis to run: add at least one of [metrics], [regression], "
                   "[soak], [cv], [shift], [segment], [count], [compare]");
  EXPECT_THROW_MSG(parse("[metric]\nfile = 1\n"), Error,
                   "r.toml:1:2: unknown key \"metric\" (did you mean \"metrics\"? allowed: title, "
                   "out, seed, threads, chart_axis, metrics, soak, cv, shift, segment, count, "
                   "compare, regression)");
  EXPECT_THROW_MSG(parse("chart_axis = \"unit\"\n[metrics]\nfile = \"p.csv\"\n"), Error,
                   "r.toml:1:14: chart_axis: chart axis must be fit or full, found \"unit\"");
  EXPECT_THROW_MSG(parse("[soak]\nfile = \"a.csv\"\nfiles = [\"b.csv\"]\n"), Error,
                   "r.toml:3:9: [soak] files: give \"file\" or \"files\", not both");
  EXPECT_THROW_MSG(parse("[shift]\nfile = \"s.csv\"\ntarget = \"t\"\npred = [\"a\", \"b\"]\n"
                         "uncertainty = \"u\"\n"),
                   Error,
                   "r.toml:5:15: [shift] uncertainty: give one uncertainty column per pred column "
                   "(found 2 pred, 1 uncertainty)");
}

const char* const kCompare = R"(seed = 9
[compare]
file = "p.csv"
label = "y"
by = ["region", "age:4"]
metrics = ["roc_auc", "recall @ precision >= 90%", "brier"]
gates = ["roc_auc >= 0.8"]
gate_on = "interval"
[compare.models]
zeta = "p_z"
alpha = ["p0", "p1"]
)";

TEST(ReportConfig, ReadsCompareWithDefaultsAndModelOrder) {
  const ReportConfig c = parse(kCompare);
  ASSERT_TRUE(c.compare.has_value());
  const auto& s = *c.compare;
  EXPECT_EQ(s.file, "/data/p.csv");
  EXPECT_EQ(s.columns.label, "y");
  EXPECT_EQ(s.columns.by, (std::vector<std::string>{"region", "age:4"}));
  ASSERT_EQ(s.columns.models.size(), 2u);  // in the order written
  EXPECT_EQ(s.columns.models[0].first, "zeta");
  EXPECT_EQ(s.columns.models[1].second, (std::vector<std::string>{"p0", "p1"}));
  EXPECT_EQ(s.params.metrics.size(), 3u);
  EXPECT_EQ(s.params.bootstrap.n_resamples, 1000u);
  EXPECT_EQ(s.params.bootstrap.seed, 9u);  // the top-level seed
  EXPECT_EQ(s.params.correction, assay::compare::Correction::holm);
  EXPECT_FALSE(s.params.all_pairs);
  EXPECT_EQ(s.gates, std::vector<std::string>{"roc_auc >= 0.8"});
  EXPECT_EQ(s.gate_on, assay::compare::GateOn::interval);
}

TEST(ReportConfig, CompareErrorsAreLocated) {
  const std::string head = "[compare]\nfile = \"p.csv\"\nlabel = \"y\"\n";
  const std::string models = "models = { a = \"pa\", b = \"pb\" }\n";
  EXPECT_THROW_MSG(parse(head + "resample = 10\n" + models), Error,
                   "r.toml:4:1: [compare] unknown key \"resample\" (did you mean \"resamples\"? "
                   "allowed: file, label, weight, task, by, metrics, baseline, pairs, pos_label, "
                   "threshold, resamples, confidence, seed, test, permutations, correction, gates, "
                   "gate_on, models, delimiter, decimal)");
  EXPECT_THROW_MSG(parse(head + "resamples = \"many\"\n" + models), Error,
                   "r.toml:4:13: [compare] resamples: expected an integer in "
                   "0..18446744073709551615, found \"many\"");
  EXPECT_THROW_MSG(parse(head + "by = 3\n" + models), Error,
                   "r.toml:4:6: [compare] by: expected a non-empty string or array of strings, "
                   "found 3");
  EXPECT_THROW_MSG(parse(head + "pairs = \"every\"\n" + models), Error,
                   "r.toml:4:9: [compare] pairs: expected baseline or all, found \"every\"");
  EXPECT_THROW_MSG(parse(head + "baseline = \"c\"\n" + models), Error,
                   "r.toml:4:12: [compare] baseline: expected one of the models, found \"c\"");
  EXPECT_THROW_MSG(parse(head + "models = { a = \"pa\" }\n"), Error,
                   "r.toml:4:10: [compare] models: expected at least two models to compare, "
                   "found 1");
  try {
    parse(head + "metrics = [\"roc_auc\", \"auc_roc\"]\n" + models);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("r.toml:4:23: [compare] metrics: unknown metric "
                                          "\"auc_roc\"",
                                          0),
              0u)
        << e.what();
  }
}

TEST(ReportConfig, CompareInputsAndGatesAreCheckedBeforeAnyWork) {
  const fs::path dir = fs::path(ASSAY_BINARY_DIR) / "test-output" / "report-config-compare";
  fs::create_directories(dir);
  std::ofstream(dir / "p.csv") << "y,pa,pb\n0,0.1,0.2\n1,0.9,0.7\n0,0.3,0.4\n1,0.6,0.8\n";
  const auto config = [&](const std::string& extra) {
    return parse_report_config("[compare]\nfile = \"p.csv\"\nlabel = \"y\"\n" + extra, "r.toml",
                               dir.string());
  };
  try {
    prepare_overview(config("models = { a = \"pa\", b = \"pq\" }\n"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("r.toml:1:1: [compare] ", 0), 0u) << what;
    EXPECT_NE(what.find("\"pq\""), std::string::npos) << what;
  }
  try {
    prepare_overview(
        config("gates = [\"f1 >= 0.5\"]\nmetrics = [\"roc_auc\"]\n"
               "models = { a = \"pa\", b = \"pb\" }\n"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("r.toml:1:1: [compare] gate 1: ", 0), 0u) << what;
  }
  EXPECT_NO_THROW(prepare_overview(config("models = { a = \"pa\", b = \"pb\" }\n")));
}

TEST(ReportConfig, TomlSyntaxErrorsAreLocated) {
  try {
    parse("[metrics]\nfile = \"p.csv\nlabel = \"y\"\n");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    ASSERT_TRUE(e.location().has_value());
    EXPECT_EQ(e.location()->file, "r.toml");
    EXPECT_EQ(e.location()->line, 2);
    EXPECT_EQ(std::string(e.what()).rfind("r.toml:2:", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("TOML syntax: "), std::string::npos) << e.what();
  }
  EXPECT_THROW_MSG(read_report_config("/nonexistent/r.toml"), Error,
                   "/nonexistent/r.toml: cannot open: No such file or directory");
}

TEST(ReportConfig, JsonErrorsNameTheKeyPath) {
  const Json config = {{"metrics", {{"file", "p.csv"}, {"label", "y"}, {"models", {{"a", true}}}}}};
  EXPECT_THROW_MSG(report_config_from_json(config, "/data"), Error,
                   "config: [metrics.models] a: expected a score column, an array of score "
                   "columns or a table, found true");
  EXPECT_THROW_MSG(report_config_from_json(Json{{"count", {{"spek", "g.spec"}}}}, "/data"), Error,
                   "config: [count] unknown key \"spek\" (did you mean \"spec\"? allowed: models, "
                   "spec, property, method, time_limit, epsilon, delta, ambiguity_limit, "
                   "fraction_bits, weight_bits, activation_bits, samples, test, label, seed, "
                   "confidence, delimiter, decimal)");
  const ReportConfig c = report_config_from_json(
      Json{
          {"metrics", {{"file", "p.csv"}, {"label", "y"}, {"models", {{"b", "pb"}, {"a", "pa"}}}}}},
      "/data");
  EXPECT_EQ(c.metrics->models[0].name, "b");  // a dict keeps its order
}

TEST(ReportConfig, InputsAreCheckedBeforeAnyWork) {
  const fs::path dir = fs::path(ASSAY_BINARY_DIR) / "test-output" / "report-config";
  fs::create_directories(dir);
  std::ofstream(dir / "p.csv") << "y,p\n0,0.1\n1,0.9\n";
  const std::string toml =
      "[metrics]\nfile = \"p.csv\"\nlabel = \"y\"\nmodels = { a = \"q\" }\n"
      "[count]\nspec = \"missing.spec\"\nmodels = { t = \"t.json\" }\n";
  const ReportConfig c = parse_report_config(toml, "r.toml", dir.string());
  EXPECT_THROW_MSG(prepare_overview(c), Error,
                   fmt::format("r.toml:1:1: [metrics] {}/p.csv: no column \"q\"; "
                               "columns are: y, p",
                               dir.string()));
  const ReportConfig counting = parse_report_config(
      "[count]\nspec = \"missing.spec\"\nmodels = { t = \"t.json\" }\n", "r.toml", dir.string());
  EXPECT_THROW_MSG(
      prepare_overview(counting), Error,
      fmt::format("r.toml:1:1: [count] spec file {}/missing.spec: no such file", dir.string()));
}

TEST(ReportConfig, NanAndInfinityAreRefusedAtTheirKey) {
  // JSON has no NaN: the value used to be described as "null".
  EXPECT_THROW_MSG(parse("[segment]\ntruth = \"gt\"\nthreshold = nan\npred = \"m\"\n"), Error,
                   "r.toml:3:13: [segment] threshold: expected a number in [0, 1], found nan");
  EXPECT_THROW_MSG(parse("[metrics]\nfile = \"p.csv\"\nlabel = \"y\"\nthreshold = -inf\n"
                         "models = { a = \"p\" }\n"),
                   Error, "r.toml:4:13: [metrics] threshold: expected a finite number, found -inf");
  EXPECT_THROW_MSG(parse("[shift]\nfile = \"s.csv\"\ntarget = \"t\"\npred = \"m\"\n"
                         "uncertainty = \"u\"\nacceptable = +inf\n"),
                   Error,
                   "r.toml:6:14: [shift] acceptable: expected a number in [0, 1e+300], found inf");
  EXPECT_THROW_MSG(parse("[metrics]\nfile = \"p.csv\"\nlabel = \"y\"\nbins = nan\n"
                         "models = { a = \"p\" }\n"),
                   Error, "r.toml:4:8: [metrics] bins: expected an integer, found nan");
  EXPECT_THROW_MSG(
      parse("[count]\nspec = \"g.spec\"\nmodels = { t = \"t.json\" }\nepsilon = nan\n"), Error,
      "r.toml:4:11: [count] epsilon: expected a number in (0, 1e+09], found nan");
  EXPECT_THROW_MSG(parse("[cv]\nfile = \"a.csv\"\nlabel = \"y\"\n"
                         "learner_params = { glmnet = { alpha = nan } }\n"),
                   Error,
                   "r.toml:4:39: cv.learner_params.glmnet.alpha: expected a finite number, found "
                   "nan");
  EXPECT_THROW_MSG(parse("[soak]\nfile = \"a.csv\"\nlabel = \"y\"\nsubset = \"r\"\n"
                         "learner_params = { xgboost = { eta = [0.1, inf] } }\n"),
                   Error,
                   "r.toml:5:44: soak.learner_params.xgboost.eta[1]: expected a finite number, "
                   "found inf");
  // From a dict (Python's NaN reaches the reader as a JSON NaN).
  const Json config = {
      {"metrics",
       {{"file", "p.csv"}, {"label", "y"}, {"threshold", NAN}, {"models", {{"a", "p"}}}}}};
  EXPECT_THROW_MSG(report_config_from_json(config, "/data"), Error,
                   "config: [metrics] threshold: expected a finite number, found nan");
}

TEST(ReportConfig, ControlCharactersInTextAreRefusedWhereWritten) {
  // A NUL from a title used to reach the HTML page raw.
  EXPECT_THROW_MSG(parse("title = \"Fraud\\u0000model\"\n[cv]\nfile = \"a.csv\"\nlabel = \"y\"\n"),
                   Error,
                   "r.toml:1:9: title: expected text without control characters, found "
                   "\"Fraud\\x00model\" (byte 0x00)");
  EXPECT_THROW_MSG(parse("[metrics]\nfile = \"p.csv\"\nlabel = \"y\"\n"
                         "models = { \"a\\u001b[31m\" = \"p\" }\n"),
                   Error,
                   "r.toml:4:12: metrics.models key: expected a name without control "
                   "characters, found \"a\\x1b[31m\" (byte 0x1B)");
  EXPECT_THROW_MSG(parse("[cv]\nfiles = [\"a.csv\", \"b\\u007f.csv\"]\nlabel = \"y\"\n"), Error,
                   "r.toml:2:19: cv.files[1]: expected text without control characters, found "
                   "\"b\\x7f.csv\" (byte 0x7F)");
  // A name (a key) takes no newline either: it is printed one per line.
  EXPECT_THROW_MSG(parse("[metrics]\nfile = \"p.csv\"\nlabel = \"y\"\n"
                         "models = { \"a\\nb\" = \"p\" }\n"),
                   Error,
                   "r.toml:4:12: metrics.models key: expected a name without control "
                   "characters, found \"a\\nb\" (byte 0x0A)");
  // In text, tab and newline are whitespace, not control characters to refuse.
  EXPECT_EQ(parse("title = \"a\\tb\\nc\"\n[cv]\nfile = \"a.csv\"\nlabel = \"y\"\n").title,
            "a\tb\nc");
  EXPECT_THROW_MSG(
      report_config_from_json(Json{{"title", std::string("x\0y", 3)}, {"cv", {{"file", "a.csv"}}}},
                              "/data"),
      Error,
      "config: title: expected text without control characters, found \"x\\x00y\" "
      "(byte 0x00)");
}

TEST(ReportConfig, AFolderIsNotAConfiguration) {
  const fs::path dir = fs::path(ASSAY_BINARY_DIR) / "test-output" / "report-config-folder";
  fs::create_directories(dir);
  EXPECT_THROW_MSG(read_report_config(dir.string()), Error,
                   dir.string() + ": is a folder, expected a report config file (TOML)");
}

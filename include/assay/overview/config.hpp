// The configuration of `assay report` (and Python's assay.report.build): which data, models and
// predictions to read and which analyses to run, checked completely before any work starts.
//
// A configuration is a TOML file (docs/report-config.md has the whole schema) or, from Python, a
// dict of the same shape. Top-level keys: title, out, seed, threads,
// chart_axis; one table per analysis —
// [metrics], [regression], [soak], [cv], [shift], [segment], [count], [compare] — any subset,
// at least one.
// Inside an analysis the keys are the options of the subcommand of the same name, with '_' for
// '-' (`pos_label` is `assay metrics --pos-label`), plus a `models` table where the analysis
// compares several models side by side:
//
//   title = "Fraud model, release 3"
//   [metrics]
//   file = "predictions.csv"        # relative paths are relative to the configuration's folder
//   label = "label"
//   bootstrap = 1000
//   [metrics.models]                # model name = its score column (or columns, or {pred = COL})
//   logistic = "p_logistic"
//   boosted = "p_boosted"
//
// Example:
//   ReportConfig c = read_report_config("report.toml");
//
// Checks: every key must be known (an unknown key is an error at its line and column, naming the
// keys allowed there and the closest one), every value must have the right type and range, and
// the required keys must be there. Errors read `report.toml:12:1: [metrics] unknown key
// "treshold" (did you mean "threshold"? allowed: ...)`; for a dict, where the key is
// (`config: metrics.treshold: ...`). Whether the files exist and hold the named columns is
// checked next, by prepare_overview (overview.hpp), still before any analysis runs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "assay/compare/compare.hpp"
#include "assay/compare/gates.hpp"
#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/json.hpp"
#include "assay/count/counting.hpp"
#include "assay/metrics/evaluate.hpp"
#include "assay/metrics/regression_evaluation.hpp"
#include "assay/report/charts.hpp"
#include "assay/shift/partition.hpp"
#include "assay/shift/segment_experiment.hpp"
#include "assay/soak/cv.hpp"
#include "assay/soak/tables.hpp"

namespace assay::report {

/// Where each key and value of a configuration was written, for located errors.
class ConfigSource {
 public:
  /// `name`: the file, or "config" for an in-memory dict.
  explicit ConfigSource(std::string name = "config") : name_(std::move(name)) {}
  /// Records the place of the value at `path` (keys joined by '.', arrays as [i]).
  void set(const std::string& path, Location where) { places_[path] = std::move(where); }
  /// The place of `path`, or of its nearest recorded parent; else the source name with the
  /// path ("config: metrics.threshold").
  Location where(const std::string& path) const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::map<std::string, Location> places_;
};

/// One model of [metrics]: its score column(s), or a column of predicted labels.
struct MetricsModel {
  std::string name;
  std::vector<std::string> scores;
  std::string pred;
};

struct MetricsSection {
  std::string file;
  /// `delimiter` and `decimal` of its CSV file(s), as --delimiter/--decimal (unset: detected).
  CsvParams csv;
  /// label, weight; scores and pred come from each model.
  metrics::EvaluateColumns columns;
  std::vector<MetricsModel> models;
  /// threshold, pos_label, ap, calibration, bootstrap (report default: 1000 resamples).
  metrics::EvaluateParams params;
};

/// [regression]: regressors' predictions of one target, side by side (`assay metrics --task
/// regression`).
struct RegressionSection {
  std::string file;
  /// `delimiter` and `decimal` of its CSV file, as --delimiter/--decimal (unset: detected).
  CsvParams csv;
  /// label, models (name = prediction column, in the configuration's order), weight.
  metrics::RegressionColumns columns;
  /// bootstrap (report default: 1000 resamples), confidence, seed.
  metrics::RegressionParams params;
};

struct SoakSection {
  std::vector<std::string> files;
  /// `delimiter` and `decimal` of its CSV file(s), as --delimiter/--decimal (unset: detected).
  CsvParams csv;
  soak::SoakTableSpec spec;
  soak::SoakExperimentParams params;
};

struct CvSection {
  std::vector<std::string> files;
  /// `delimiter` and `decimal` of its CSV file(s), as --delimiter/--decimal (unset: detected).
  CsvParams csv;
  soak::CvParams params;
};

struct ShiftSection {
  std::string file;
  /// `delimiter` and `decimal` of its CSV file(s), as --delimiter/--decimal (unset: detected).
  CsvParams csv;
  shift::ShiftColumns columns;
  shift::PartitionParams params;
};

/// One model of [segment]: its prediction source(s) (several = ensemble members, averaged).
struct SegmentModel {
  std::string name;
  std::vector<std::string> pred;
};

struct SegmentSection {
  std::vector<SegmentModel> models;
  /// Everything but `pred`, shared by the models.
  shift::SegmentParams params;
};

/// One model of [count]: a model file (assay JSON or xgboost JSON).
struct CountModel {
  std::string name;
  std::string file;
};

struct CountSection {
  std::vector<CountModel> models;
  std::string spec;
  /// Optional test set (CSV) and its label column: the statistical view on it.
  std::string test;
  std::string test_label;
  /// `delimiter` and `decimal` of the test set, as --delimiter/--decimal (unset: detected).
  CsvParams csv;
  count::CountParams params;
};

/// [compare]: models scored on the same examples, compared as `assay compare` does.
struct CompareSection {
  std::string file;
  /// `delimiter` and `decimal` of its CSV file(s), as --delimiter/--decimal (unset: detected).
  CsvParams csv;
  /// label, weight, by and the models (name -> score column or columns), in written order.
  compare::CompareColumns columns;
  compare::Task task = compare::Task::automatic;
  /// metrics, baseline, pairs, pos_label, threshold, resamples (report default 1000),
  /// confidence, seed (default: the top-level seed), test, permutations, correction.
  compare::CompareParams params;
  std::vector<std::string> gates;
  compare::GateOn gate_on = compare::GateOn::point;
};

struct ReportConfig {
  /// Where keys were written (errors about a section's data point at the section).
  ConfigSource source;
  /// Folder that relative paths are relative to (the configuration's folder).
  std::string base_dir;
  /// The configuration as written (TOML read as JSON), shown at the end of the page.
  Json document = Json::object();
  /// Page title; default "How good is my model?".
  std::string title = "How good is my model?";
  /// The page's path; default "report.html" in base_dir.
  std::string out;
  /// Default seed of every analysis; default 1.
  std::uint64_t seed = 1;
  /// Worker threads of every analysis (0 = all cores; results do not depend on it).
  int threads = 0;
  /// Value axes of the dot-and-whisker and per-subject charts: fit (default) or full (the
  /// whole natural range, e.g. 0..1); charts.hpp's AxisRange.
  AxisRange chart_axis = AxisRange::fit;
  std::optional<MetricsSection> metrics;
  std::optional<RegressionSection> regression;
  std::optional<SoakSection> soak;
  std::optional<CvSection> cv;
  std::optional<ShiftSection> shift;
  std::optional<SegmentSection> segment;
  std::optional<CountSection> count;
  std::optional<CompareSection> compare;
};

/// Reads and checks a TOML configuration file. Throws assay::Error at the offending line and
/// column for a TOML syntax error, an unknown key, a wrong type or value, or a missing key.
ReportConfig read_report_config(const std::string& path);

/// Same for TOML text (`name` stands for the file in messages; relative paths resolve against
/// `base_dir`).
ReportConfig parse_report_config(const std::string& text, const std::string& name,
                                 const std::string& base_dir);

/// Same for a JSON object (Python's dict); errors name the key path ("config: metrics.label").
ReportConfig report_config_from_json(const Json& config, const std::string& base_dir,
                                     const std::string& name = "config");

/// The keys allowed in each table of the schema, the list the readers above check every key
/// against: {"" (top level), "metrics", "regression", "soak", "cv", "shift", "segment", "count",
/// "compare"} -> key names.
const std::map<std::string, std::vector<std::string>>& report_config_keys();

}  // namespace assay::report

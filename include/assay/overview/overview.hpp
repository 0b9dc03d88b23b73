// The overview report: every analysis a configuration (config.hpp) asks for, run through the
// same library entry points as its subcommand, on one self-contained HTML page — the entry point
// of `assay report` and Python's assay.report.build.
//
// Example:
//   ReportConfig config = read_report_config("report.toml");
//   PreparedOverview prepared = prepare_overview(config);  // reads and checks every input
//   Overview overview = run_overview(prepared);            // runs the analyses, builds the page
//   write_overview(overview, config.out);                  // page, CSV tables, JSON
//
// One computation path: each section calls what its subcommand calls — metrics::evaluate per
// model (`assay metrics`), metrics::evaluate_regression (`assay metrics --task regression`),
// soak::soak_experiment (`assay soak`), soak::cv_experiment (`assay
// cv`), shift::evaluate_table (`assay shift`), shift::evaluate_segmentation_files per model
// (`assay segment`), count::count per model (`assay count`) and compare::compare with its gates
// (`assay compare`) — with the parameters the configuration gives, and the JSON document holds
// each result as that subcommand's --json prints it (evaluation_json, statistics_json, cv_json,
// shift_json, segment_json, count_json, compare_json).
//
// The page, in order: a summary in plain words (one or more sentences per analysis, each linking
// to its section), a table of contents, then one section per analysis (metrics, regression,
// soak, cv, shift, segment, count, compare, in that order) with its tables and charts. Models are
// compared side by side in every section (one chart with all models, tables with one row per
// model). Every table can be downloaded from the page as CSV; write_overview also writes each one
// next to the page.
//
// Failure policy: prepare_overview throws assay::Error before any analysis runs when a file is
// missing, a column is absent or of the wrong kind, a model does not fit its spec, or the data
// do not fit an analysis (e.g. one subset for [soak]); the message starts at the section's place
// in the configuration ("report.toml:7:1: [soak] data.csv: no column ..."). An analysis that fails
// while running throws the same way.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "assay/compare/compare.hpp"
#include "assay/core/json.hpp"
#include "assay/core/table.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"
#include "assay/metrics/evaluate.hpp"
#include "assay/metrics/regression_evaluation.hpp"
#include "assay/overview/config.hpp"
#include "assay/report/claim.hpp"
#include "assay/report/html.hpp"

namespace assay::report {

/// Every input of a configuration, read and checked (prepare_overview's result).
struct PreparedOverview {
  ReportConfig config;
  /// [metrics]: one input per model, in the configuration's order.
  std::vector<metrics::EvaluationInput> metrics_inputs;
  /// [soak] and [cv]: the data sets, named by file stem.
  std::vector<std::pair<std::string, Table>> soak_tables, cv_tables;
  /// [shift]: the table.
  Table shift_table;
  /// [count]: the models (configuration order) and the spec.
  std::vector<count::Model> count_models;
  count::Spec count_spec;
  /// [compare]: the input, as `assay compare` builds it.
  compare::CompareInput compare_input;
  /// [regression]: the input, as `assay metrics --task regression` builds it.
  metrics::RegressionInput regression_input;
};

/// The sentence of `claim`, from its kind, subjects and facts only (its `text` is ignored).
/// Throws assay::Error for an unknown kind.
std::string render_claim(const Claim& claim);

/// The built report.
struct Overview {
  /// The page (write it with write_overview, which also writes its tables).
  HtmlReport page{""};
  /// {"title", "summary": [sentences], "claims": [claim_json of each sentence],
  ///  "metrics": {"models": {name: evaluation_json}, "comparisons": [each pair's DeLong test
  ///  and PR relation with every crossing's recall]}, "regression": regression_json,
  ///  "soak": statistics_json, "cv": cv_json, "shift": shift_json,
  ///  "segment": {"models": {name: segment_json}}, "count": {"models": {name: count_json}},
  ///  "compare": compare_json (with the gates),
  ///  "tables": {csv name: [{column: value} per row]} (every table of the page, as its CSV)};
  ///  only the analyses that ran. Every number the page's summary and tables show is in it.
  Json document;
  /// The summary sentences, in page order (the claims' texts).
  std::vector<std::string> summary;
  /// The same sentences as claims.
  std::vector<Claim> claims;
};

/// Reads every file the configuration names and checks that the data fit each analysis (see the
/// failure policy above). Nothing is computed yet.
PreparedOverview prepare_overview(const ReportConfig& config);

/// Runs the analyses and builds the page and the JSON document.
Overview run_overview(const PreparedOverview& prepared);

/// Before running: refuses a page `path` (given by `what`, e.g. "--out") or its "<stem>.json" that
/// is an input read by prepare_overview (or the configuration), a device or a FIFO, and a page
/// that cannot be written.
void check_overview_outputs(const std::string& path, std::string_view what);

/// Writes the page to `path`, every table's CSV into the folder "<stem>_tables" next to it (the
/// same bytes as the page's download links) and the JSON document to "<stem>.json", all or
/// nothing (OutputBatch). Checks that the outputs are writable first. `before_commit` runs when
/// every file is staged and none is visible yet; if it throws, nothing is written (the CLI
/// prints its summary there and checks stdout). Returns the files written, the page first.
std::vector<std::string> write_overview(const Overview& overview, const std::string& path,
                                        const std::function<void()>& before_commit = {});

}  // namespace assay::report

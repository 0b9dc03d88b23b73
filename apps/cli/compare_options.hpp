// The options `assay compare` and `assay metrics --models` share: each is turned from text into
// a CompareParams value here, in one place.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "assay/compare/compare.hpp"
#include "commands.hpp"

namespace assay::cli {

struct CompareOptions {
  std::string file;
  CsvDialectOptions csv_dialect;
  std::string label;
  std::vector<std::string> models;
  std::vector<std::string> by;
  std::string weight;
  std::vector<std::string> metrics;
  std::string task = "auto";
  std::string test = "auto";
  std::string correction = "holm";
  std::string pairs = "baseline";
  std::string ap_method = "step";
  std::vector<std::string> gates;
  std::string gate_on = "point";
  std::string junit;
  compare::CompareParams params;
  ReportOutputs out;
};

/// --task, --baseline, --pairs, --pos-label, --threshold, --ap-method, --resamples,
/// --confidence, --seed, --test, --permutations, --correction, --min-slice-size, --threads.
void add_compare_options(CLI::App* cmd, CompareOptions& o);

/// Parses the text options into o.params (after CLI parsing).
void finish_compare_params(CompareOptions& o);

/// "a", "name=col", "name=c1+c2+c3" -> (name, columns).
compare::CompareColumns compare_columns(const std::string& label,
                                        const std::vector<std::string>& models,
                                        const std::vector<std::string>& by,
                                        const std::string& weight);

}  // namespace assay::cli

// Rendering counting results (count/counting.hpp) three ways: a plain-text table for the
// terminal, JSON for scripts (the document Python's assay.count.count returns), and an HTML page.
//
// JSON: exact counts (tp, fp, tn, fn, domain sizes, S/N, region totals) are decimal strings, so
// that counts like 3.3e270 survive any JSON reader; ratios are numbers (NaN written as null). A
// proportion from samples is {"k", "n", "value", "wilson": [low, high], "clopper_pearson":
// [low, high]}. Text and HTML show 4 decimals; text shows counts beyond 12 digits in scientific
// notation, HTML does so for region sizes only (label and safety counts appear in full).
#pragma once

#include <string>

#include "assay/core/json.hpp"
#include "assay/count/counting.hpp"
#include "assay/count/model.hpp"
#include "assay/report/html.hpp"

namespace assay::report {

/// {"method", "property", "domain_size", "n_inputs", "seconds", "boxes", "correct", "accuracy",
///  "labels": [{"index", "label", "tp", "fp", "tn", "fn", "accuracy", "precision", "recall",
///  "f1"}], "safety": [{"name", "satisfied", "violated", "accuracy"}], "regions": [{"name",
///  "label", "total", "count", "robustness"}], "samples": [{"source", "n", "accuracy",
///  "labels": [{"index", "tp", "fp", "tn", "fn", "accuracy", "precision", "recall", "f1"}],
///  "safety": [...], "regions": [...]}]}.
Json count_json(const count::CountResult& result);

/// Exact counts per label, the Stat / Exact / Diff table of accuracy, precision, recall and F1
/// (source 002 Tables 1-2; "label" = the positive label for binary models), safety and regions.
std::string count_text(const count::CountResult& result);

/// The HTML page: the same tables and a chart of each estimate with its interval beside the
/// exact value.
HtmlReport count_html(const count::CountResult& result, const std::string& title);

/// {"total", "count", "robustness", "method", "seconds", "samples": [proportion...]}.
Json robustness_json(const count::RobustnessResult& result);

/// `assay model info`: kind, task, features, outputs, classes, trees/nodes/leaves or layers,
/// parameter count.
std::string model_info_text(const count::ModelInfo& info);

}  // namespace assay::report

// Rendering counting results (count/counting.hpp) three ways: a plain-text table for the
// terminal, JSON for scripts (the document Python's assay.count.count returns), and an HTML page.
//
// JSON: exact counts (tp, fp, tn, fn, domain sizes, S/N, region totals) are decimal strings, so
// that counts like 3.3e270 survive any JSON reader; ratios are numbers (NaN written as null). A
// proportion from samples is {"k", "n", "value", "wilson": [low, high], "clopper_pearson":
// [low, high]}. Text and HTML show 4 decimals; text shows counts beyond 12 digits in scientific
// notation, HTML does so for region sizes only (label and safety counts appear in full).
//
// Example:
//   count::CountResult r = count::count(model, spec, params);   // count/counting.hpp
//   std::cout << count_text(r);   // per label: exact counts and the Stat / Exact / Diff table
//   Json j = count_json(r);   // j["labels"][1]["tp"] a decimal string, j["accuracy"] a number
//   count_html(r, "tree.json on graph4.spec").write("count.html");
#pragma once

#include <string>

#include "assay/core/json.hpp"
#include "assay/count/count_cnf.hpp"
#include "assay/count/counting.hpp"
#include "assay/count/encode.hpp"
#include "assay/count/model.hpp"
#include "assay/report/charts.hpp"
#include "assay/report/html.hpp"

namespace assay::report {

/// {"method", "property", "domain_size", "n_inputs", "seconds", "boxes", "correct", "accuracy",
///  "labels": [{"index", "label", "tp", "fp", "tn", "fn", "accuracy", "precision", "recall",
///  "f1", "guarantee", "bounds"}], "safety": [{"name", "satisfied", "violated", "accuracy",
///  "guarantee", "bounds"}], "regions": [{"name", "label", "total", "count", "robustness",
///  "guarantee", "bounds"}], "samples": [{"source", "n", "accuracy",
///  "labels": [{"index", "tp", "fp", "tn", "fn", "accuracy", "precision", "recall", "f1"}],
///  "safety": [...], "regions": [...]}]}. "guarantee" is {"method", "exact", "bounded",
///  "epsilon", "delta", "seed" (approximate counts only), "note"}; "bounds" ({"tp": [lower,
///  upper], ...}) appears when the counts are only certified bounds. With methods exact-cnf and
///  approx, "cnf_counts" and "ambiguous" say how many formulas were counted and how many inputs
///  were settled by evaluating the model.
Json count_json(const count::CountResult& result);

/// Exact counts per label, the Stat / Exact / Diff table of accuracy, precision, recall and F1
/// (QuantifyML paper, Tables 1-2; "label" = the positive label for binary models), safety and
/// regions.
std::string count_text(const count::CountResult& result);

/// The HTML page: the same tables and a chart of each estimate with its interval beside the
/// exact value (interval_chart; its value axis fits the values unless `axis` is full, 0..1).
HtmlReport count_html(const count::CountResult& result, const std::string& title,
                      AxisRange axis = AxisRange::fit);

/// `assay count --cnf`: {"file", "count", "guarantee": {"method", "exact", "bounded",
///  "epsilon", "delta", "seed", "note"}, "bounds": [lower, upper] (bounded only), "variables",
///  "clauses", "xors", "projected", "seconds"}; counts as decimal strings.
Json cnf_count_json(const count::CnfCountResult& result, const std::string& file);
std::string cnf_count_text(const count::CnfCountResult& result, const std::string& file);

/// `assay encode`: {"query", "arithmetic", "exact", "ambiguous", "variables", "clauses", "xors",
///  "projected", "inputs": [{"name", "size", "bits": [...]}], "file"}.
Json encoding_json(const count::Encoding& e, const std::string& file);
std::string encoding_text(const count::Encoding& e, const std::string& file);

/// {"total", "count", "robustness", "method", "seconds", "samples": [proportion...]}.
Json robustness_json(const count::RobustnessResult& result);

/// `assay model info`: kind, task, features, outputs, classes, trees/nodes/leaves or layers,
/// parameter count.
std::string model_info_text(const count::ModelInfo& info);

/// A count as the text and the pages show it: up to 12 digits in full, larger ones with 3
/// significant digits (short_count(mpz_class(1) << 900) == "8.45e+270").
std::string short_count(const mpz_class& count);

}  // namespace assay::report

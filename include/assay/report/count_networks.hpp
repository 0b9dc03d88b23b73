// Rendering a domain-splitting count of a VNN-LIB property (count/domain_split.hpp): JSON for
// scripts (what Python's assay.count.count_vnnlib returns), text for the terminal, and an HTML
// page with the chart of the certified interval against time beside the sampling estimate.
//
// JSON: {"method": "split", "model", "property", "domain": "continuous" | "grid", "inputs",
//  "outputs", "regions", "decision": "violated" | "holds" | "unknown", "finished",
//  "unsafe": {"lower", "upper"}, "safe": {"lower", "upper"}, "volume" (continuous),
//  "total", "unsafe_count": [lower, upper] (grid; decimal strings),
//  "counterexample": {"x", "y", "source"} | null, "boxes": {"bounded", "safe", "unsafe",
//  "enumerated", "open"}, "seconds", "decision_seconds" (null when undecided), "stopped_by",
//  "sample": {"k", "n", "value", "clopper_pearson": [lo, hi], "confidence"},
//  "trace": [{"seconds", "lower", "upper", "boxes"}]}.
//
// Example:
//   count::SplitResult r = count::count_unsafe(model, property, params);   // domain_split.hpp
//   Json j = split_json(r, "net.onnx", "prop_2.vnnlib");   // j["decision"], j["unsafe"]["upper"]
//   std::cout << split_text(r, "net.onnx", "prop_2.vnnlib");
//   split_html(r, "net.onnx", "prop_2.vnnlib").write("split.html");
#pragma once

#include <string>

#include "assay/core/json.hpp"
#include "assay/count/domain_split.hpp"
#include "assay/report/charts.hpp"
#include "assay/report/html.hpp"

namespace assay::report {

Json split_json(const count::SplitResult& result, const std::string& model,
                const std::string& property);

std::string split_text(const count::SplitResult& result, const std::string& model,
                       const std::string& property);

/// The certified interval [lower, upper] of the unsafe share against time (a band), with the
/// sampling estimate and its Clopper-Pearson interval as a rule and a band across the plot.
Json split_interval_chart(const count::SplitResult& result, const ChartParams& params = {});

HtmlReport split_html(const count::SplitResult& result, const std::string& model,
                      const std::string& property);

}  // namespace assay::report

// Rendering a VNN-COMP benchmark run (count/instances.hpp): the summary of `assay count
// --instances` as JSON (what Python's assay.count.run_instances returns), a text table for the
// terminal and CSV (one row per instance).
//
// JSON: {"method": "instances", "instances": CSV, "results": folder | null, "time_limit" (the
//  cap, 0 = none), "seconds", "interrupted", "counts": {"sat", "unsat", "timeout", "unknown",
//  "error", "not run", "decided"}, "rows": [{"line", "network", "property", "timeout",
//  "time_limit", "result", "seconds", "unsafe": {"lower", "upper"}, "boxes", "stopped_by",
//  "message", "result_file" | null, "counterexample": {"x", "y"} | null}]}.
// CSV columns: line, network, property, result, seconds, time_limit, unsafe_lower,
//  unsafe_upper, boxes, stopped_by, result_file, message.
//
// Example:
//   count::InstancesResult r;   // what count::run_instances returns; no rows here
//   r.file = "mnistfc_instances.csv";
//   Json j = instances_json(r);
//   j["counts"]["decided"].get<int>();   // 0
//   instances_text(r);          // "0 instances of mnistfc_instances.csv: 0 decided" ...
//   instances_csv(r);           // "line,network,property,result,seconds,time_limit" ...
#pragma once

#include <string>

#include "assay/core/json.hpp"
#include "assay/count/instances.hpp"

namespace assay::report {

Json instances_json(const count::InstancesResult& result);
/// One row per instance (network, property, result, seconds, certified unsafe share), then the
/// counts, and the messages of instances that ended "unknown" or "error".
std::string instances_text(const count::InstancesResult& result);
std::string instances_csv(const count::InstancesResult& result);

}  // namespace assay::report

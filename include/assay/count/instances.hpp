// VNN-COMP benchmarks: an instances CSV (one verification instance per row: network, VNN-LIB
// property, time limit in seconds; no header; paths relative to the CSV's folder) run instance
// by instance with count_unsafe (domain_split.hpp), each answer written as the competition's
// result file, plus one summary row per instance.
//
//   mnist-net_256x2.onnx,prop_0_0.03.vnnlib,120          <- mnistfc_instances.csv
//
//   InstanceList.rows[i]    = {line, network and property as written, their paths resolved
//                              against the CSV's folder, timeout}
//   InstancesResult.rows[i] = {the row, result "sat" | "unsat" | "timeout" | "unknown" | "error"
//                              | "not run", seconds, certified unsafe share [lower, upper],
//                              counterexample, message, result file}
//
// Example:
//   InstanceList list = parse_instances("net.onnx,sub/prop_1.vnnlib,120 \r\n\n", "b/i.csv");
//   list.rows[0].network_path;    // "b/net.onnx"
//   list.rows[0].timeout;         // 120
//   result_file_names(list)[0];   // "net_prop_1.txt"
//   parse_instances("net.onnx,p.vnnlib,0\n", "i.csv");
//       // throws: i.csv:1:19: expected a time limit in seconds > 0, found "0"
//
// Rows may end in CRLF and carry spaces around cells; blank lines are skipped. Refused with
// "file:line:col: ..." before anything runs: too few or too many columns, an empty path, a time
// limit that is not a number in (0, 1e9]; then (run_instances) a network or property that cannot
// be read, and a property whose input or output count differs from its network's. A benchmark
// with a broken row thus fails in seconds, not after hours of the rows before it. Each network
// is read once however many rows share it.
//
// Results: each instance runs count_unsafe with stop_when_decided, the row's time limit (capped
// by InstancesParams::time_limit) and the other SplitParams given. Its result file (in
// InstancesParams::results, named by result_file_names) is written atomically when it ends;
// the first line is the answer:
//
//   sat                 a counterexample, confirmed here by a plain forward pass (the
//   ((X_0 0.5)          network's outputs at x satisfy the unsafe condition of a box of the
//    (X_1 -0.25)        property holding x), written as VNN-COMP 2022 and later expect: the
//    (Y_0 1.75)         shortest decimals that read back as the same doubles
//    (Y_1 0.125))
//   unsat               every box proven safe
//   timeout             the time limit ended the run
//   unknown             stopped by something else (max_boxes, the memory budget, an
//                       interrupt), a proven-unsafe box whose centre the forward pass does not
//                       confirm, or an error on this instance (the summary says "error" and
//                       the message, e.g. an activation the bounds do not cover)
//
// An interrupt (core/interrupt.hpp) ends the run after the current instance: the rows after it
// are "not run" and get no file.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assay/count/count_result.hpp"
#include "assay/count/domain_split.hpp"

namespace assay::count {

/// One row of an instances CSV.
struct Instance {
  std::size_t line = 0;       ///< 1-based line in the CSV
  std::string network;        ///< as written
  std::string property;       ///< as written
  std::string network_path;   ///< resolved against the CSV's folder
  std::string property_path;  ///< resolved against the CSV's folder
  double timeout = 0.0;       ///< seconds, > 0
};

struct InstanceList {
  std::string file;  ///< the CSV, as named
  std::vector<Instance> rows;
};

/// Parses instances CSV text; `file` names it in messages and its folder resolves the paths.
InstanceList parse_instances(std::string_view text, const std::string& file);
/// Reads and parses an instances CSV ("cannot open instances file ..." when it cannot).
InstanceList load_instances(const std::string& path);

/// One result file name per row: "<network stem>_<property stem>.txt" with characters other
/// than letters, digits, '.', '-' and '_' replaced by '_'; names that two rows would share get
/// "_line<N>" before ".txt".
std::vector<std::string> result_file_names(const InstanceList& list);

/// The text of a VNN-COMP result file: `result` alone, or for "sat" with x and y the
/// counterexample "((X_0 v)\n (X_1 v)\n ... (Y_m v))".
std::string vnncomp_result_text(const std::string& result, const std::vector<double>& x = {},
                                const std::vector<double>& y = {});

/// A number as written in result files: the shortest decimal that reads back as `v`, without an
/// exponent ("0.00001", "-3", "0.1").
std::string exact_decimal(double v);

struct InstancesParams {
  /// Cap on every row's time limit in seconds (0 = the rows' own limits).
  double time_limit = 0.0;
  /// Folder of the result files ("" = write none); created when missing.
  std::string results;
  /// The splitting options of every instance (its time_limit and stop_when_decided are set per
  /// row: the row's limit, true).
  SplitParams split;
};

struct InstanceOutcome {
  Instance row;
  /// "sat", "unsat", "timeout", "unknown", "error" or "not run".
  std::string result = "not run";
  double time_limit = 0.0;  ///< the limit this instance ran with
  double seconds = 0.0;     ///< time of count_unsafe
  /// The certified unsafe share of the box (count_unsafe's interval).
  double unsafe_lower = 0.0, unsafe_upper = 1.0;
  /// The statistical estimate beside it: the uniform sample (n = 0 when none was drawn) and its
  /// Clopper-Pearson interval at `confidence`.
  Proportion sample;
  double confidence = 0.999;
  std::string route;  ///< "input splitting" or "relu branch and bound"
  std::uint64_t boxes = 0;
  std::string stopped_by;
  std::string message;      ///< why "unknown" or "error" ("" otherwise)
  std::string result_file;  ///< path written ("" when none)
  std::vector<double> counterexample, counterexample_outputs;  ///< for "sat"
};

struct InstancesResult {
  std::string file;
  std::string results;
  double time_limit = 0.0;
  std::vector<InstanceOutcome> rows;
  bool interrupted = false;
  double seconds = 0.0;  ///< whole run, loading included
};

/// Loads every network and property of `list` (each network once) and checks them, refuses
/// result files that would replace an input, then runs the instances in order (see above).
InstancesResult run_instances(const InstanceList& list, const InstancesParams& params = {});

}  // namespace assay::count

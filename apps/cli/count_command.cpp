// `assay count --model M.json --spec S.spec [--property NAME] ...`, `assay count --cnf F.cnf`,
// `assay count --model net.onnx --vnnlib P.vnnlib [--time-limit S] [--max-boxes N]`,
// `assay count --instances B_instances.csv --results DIR [--time-limit S] [--csv-out F]`,
// `assay encode --model M --spec S --out F.cnf` and `assay model info M.json`.
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/core/json.hpp"
#include "assay/core/output_file.hpp"
#include "assay/count/cnf.hpp"
#include "assay/count/count_cnf.hpp"
#include "assay/count/counting.hpp"
#include "assay/count/domain_split.hpp"
#include "assay/count/encode.hpp"
#include "assay/count/instances.hpp"
#include "assay/count/model.hpp"
#include "assay/count/onnx.hpp"
#include "assay/count/spec.hpp"
#include "assay/count/vnnlib.hpp"
#include "assay/report/count.hpp"
#include "assay/report/count_instances.hpp"
#include "assay/report/count_networks.hpp"
#include "commands.hpp"
#include "options.hpp"

namespace assay::cli {
namespace {

struct CountOptions {
  std::string model;
  std::string spec;
  std::string cnf;
  std::string projection;
  count::CountParams params;
  std::string method = "auto";  // parsed where its branch knows which methods apply
  ReportOutputs out;
  CsvDialectOptions csv_dialect;  // of --test
  report::AxisRange chart_axis = report::AxisRange::fit;
  std::string test;
  std::string label;
  std::string vnnlib;
  std::string instances;
  std::string results;
  bool stop_when_decided = false;
  std::string bounds = "linear";
  double max_memory_mb = 0;
  CLI::Option* confidence = nullptr;
};

// Ctrl-C during a count asks it to stop cleanly: sampling and splitting report what they have
// (samples drawn so far, certified intervals so far), then the command exits with status 130;
// an exact count that has no partial answer ends with a message. A second Ctrl-C ends the
// process at once (the handler is reset on the first).
void on_count_sigint(int /*signal*/) {
  request_interrupt();
  static const char kMessage[] =
      "\nassay: stopping at the next checkpoint (press Ctrl-C again to abort)\n";
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
}

class CtrlC {
 public:
  CtrlC() {
    struct sigaction sa {};
    sa.sa_handler = on_count_sigint;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_);
  }
  ~CtrlC() { sigaction(SIGINT, &old_, nullptr); }
  CtrlC(const CtrlC&) = delete;
  CtrlC& operator=(const CtrlC&) = delete;

  /// Runs the count; an exact count interrupted without a partial answer ends the command.
  template <class F>
  auto run(F count) const {
    try {
      return count();
    } catch (const Interrupted&) {
      std::fputs("assay: interrupted before the count finished; nothing to report\n", stderr);
      throw ExitCode{130};
    }
  }
  /// After the (partial) report is written: exit status 130 when it was interrupted.
  void exit_if_interrupted() const {
    if (!interrupt_requested()) return;
    std::fputs("assay: interrupted: the report above holds what was counted so far\n", stderr);
    throw ExitCode{130};
  }

 private:
  InterruptScope scope_;
  struct sigaction old_ {};
};

// --max-memory: megabytes in (0, 1e12], as Python's max_memory.
const CLI::Validator& megabytes_rule() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (!text.empty() && end == text.c_str() + text.size() && v > 0 && v <= 1e12) return {};
        return fmt::format("expected megabytes in (0, 1e12], found {}", quote_found(text));
      },
      "MB");
  return validator;
}

// --time-limit: count::check_time_limit's rule and wording.
const CLI::Validator& time_limit_rule() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        if (text.empty()) return R"(expected seconds (0 = no limit), found "")";
        char* end = nullptr;
        double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size()) v = std::nan("");  // not a number
        try {
          count::check_time_limit("", v, text);
        } catch (const Error& e) {
          return e.message();
        }
        return {};
      },
      "SECONDS");
  return validator;
}

struct EncodeOptions {
  std::string model;
  std::string spec;
  std::string out;
  count::EncodeParams params;
  bool json = false;
};

// The options of the CNF methods, shared by counting a model and counting a CNF file.
void add_cnf_options(CLI::App* cmd, count::CountParams& p) {
  cmd->add_option(
         "--time-limit", p.time_limit,
         "exact-cnf/approx/split: seconds per count (0 = none; auto: exact-cnf for "
         "this (60 if 0), then approx for this (if 0: 60 for a model, none for --cnf)); also "
         "stops each uniform "
         "sample (at most 1e9); --instances: caps each row's time limit")
      ->check(time_limit_rule());
  cmd->add_option("--epsilon", p.epsilon, "approx: tolerance (estimate within a factor 1+eps)")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--delta", p.delta, "approx: the guarantee holds with probability 1-delta")
      ->capture_default_str()
      ->check(open_probability());
}

void add_fixed_point_options(CLI::App* cmd, int& fraction, int& weight, int& activation) {
  cmd->add_option("--fraction-bits", fraction,
                  "CNF encoding of ensembles: fractional bits of leaf values (0 = the fewest "
                  "that are exact, up to 24, else 10 + log2(trees + 1))")
      ->check(integer_in(0, 60));
  cmd->add_option("--weight-bits", weight,
                  "CNF encoding of networks: significant bits of quantised weights")
      ->capture_default_str()
      ->check(integer_in(2, 40));
  cmd->add_option("--activation-bits", activation,
                  "CNF encoding of networks: fractional bits of activations")
      ->capture_default_str()
      ->check(integer_in(0, 40));
}

void run_count_cnf(CountOptions& o) {
  if (!o.model.empty() || !o.spec.empty() || !o.params.property.empty() || !o.test.empty()) {
    fail("--cnf counts a formula: --model, --spec, --property and --test do not apply");
  }
  if (!o.out.html.empty()) fail("--html is not available with --cnf");
  o.out.check({{o.cnf, "the --cnf file"}, {o.projection, "the --projection file"}});
  count::Cnf f = count::read_dimacs_file(o.cnf);
  if (!o.projection.empty()) count::read_projection_file(f, o.projection);
  o.params.method = count::parse_count_method(o.method, count::kCnfCountMethods, "for a CNF file");
  const count::CnfCountParams p = count::cnf_count_params(o.params);
  const CtrlC ctrl_c;
  const count::CnfCountResult r = ctrl_c.run([&] { return count::count_cnf(f, p); });
  o.out.write(
      report::cnf_count_json(r, o.cnf), [&] { return report::cnf_count_text(r, o.cnf); },
      [] { return report::HtmlReport(""); });
  ctrl_c.exit_if_interrupted();
}

// `--vnnlib`: the unsafe share of a VNN-LIB property's input box, by domain splitting.
void run_count_vnnlib(const CountOptions& o) {
  if (o.model.empty()) fail("--vnnlib needs --model (an ONNX file or an assay network)");
  if (!o.spec.empty() || !o.cnf.empty() || !o.params.property.empty() || !o.test.empty()) {
    fail("--vnnlib states the property: --spec, --cnf, --property and --test do not apply");
  }
  static constexpr count::CountMethod kSplit[] = {count::CountMethod::automatic,
                                                  count::CountMethod::split};
  try {
    count::parse_count_method(o.method, kSplit);
  } catch (const Error&) {
    fail("--vnnlib counts with method split, found --method {}", o.method);
  }
  if (o.params.samples.size() > 1)
    fail("--vnnlib takes one --samples size, found {}", o.params.samples.size());
  const count::BoundMethod bounds = count::parse_bound_method(o.bounds, "--bounds");
  o.out.check({{o.model, "the --model file"}, {o.vnnlib, "the --vnnlib file"}});
  const count::Model model = count::load_any_model(o.model);
  const count::VnnProperty property = count::load_vnnlib(o.vnnlib);
  count::SplitParams p = count::split_params(o.params);
  p.stop_when_decided = o.stop_when_decided;
  p.bounds = bounds;
  if (o.confidence->count() > 0) p.confidence = o.params.confidence;
  const CtrlC ctrl_c;
  const count::SplitResult r = count::count_unsafe(model, property, p);
  o.out.write(
      report::split_json(r, o.model, o.vnnlib),
      [&] { return report::split_text(r, o.model, o.vnnlib); },
      [&] { return report::split_html(r, o.model, o.vnnlib); });
  ctrl_c.exit_if_interrupted();
}

// `--instances`: a VNN-COMP benchmark, one result file per instance in --results DIR.
void run_count_instances(CountOptions& o) {
  if (o.results.empty()) fail("--instances needs --results DIR (the folder of the result files)");
  if (!o.model.empty() || !o.vnnlib.empty() || !o.spec.empty() || !o.cnf.empty() ||
      !o.params.property.empty() || !o.test.empty()) {
    fail(
        "--instances names the networks and properties: --model, --vnnlib, --spec, --cnf, "
        "--property and --test do not apply");
  }
  if (!o.out.html.empty()) fail("--html is not available with --instances");
  if (o.stop_when_decided)
    fail("--stop-when-decided is implied by --instances (every instance stops once decided)");
  static constexpr count::CountMethod kSplit[] = {count::CountMethod::automatic,
                                                  count::CountMethod::split};
  try {
    count::parse_count_method(o.method, kSplit);
  } catch (const Error&) {
    fail("--instances counts with method split, found --method {}", o.method);
  }
  if (o.params.samples.size() > 1)
    fail("--instances takes one --samples size, found {}", o.params.samples.size());
  const count::BoundMethod bounds = count::parse_bound_method(o.bounds, "--bounds");
  o.out.check({{o.instances, "the --instances file"}});
  const count::InstanceList list = count::load_instances(o.instances);
  count::InstancesParams p;
  p.split = count::split_params(o.params);
  p.split.bounds = bounds;
  if (o.confidence->count() > 0) p.split.confidence = o.params.confidence;
  p.time_limit = o.params.time_limit;
  p.results = o.results;
  const CtrlC ctrl_c;
  const count::InstancesResult r = count::run_instances(list, p);
  o.out.write(
      report::instances_json(r), [&] { return report::instances_text(r); },
      [] { return report::HtmlReport(""); }, report::instances_csv(r));
  ctrl_c.exit_if_interrupted();
}

struct ModelOptions {
  std::string file;
  bool json = false;
};

}  // namespace

Action add_count_command(CLI::App& app, const GlobalOptions& /*global*/) {
  auto options = std::make_shared<CountOptions>();
  auto* cmd = app.add_subcommand(
      "count",
      "Exact counts over a whole bounded input domain (QuantifyML): TP/FP/TN/FN per label,\n"
      "safety and robustness, beside estimates from uniform samples. With --cnf: the projected\n"
      "model count of a DIMACS CNF file (exact, or approximate with an (epsilon, delta) "
      "guarantee).");
  cmd->add_option("--model", options->model, "model: assay JSON, xgboost JSON or ONNX (.onnx)");
  cmd->add_option("--spec", options->spec, "domain and properties (.spec file)");
  cmd->add_option("--cnf", options->cnf,
                  "count a DIMACS CNF file instead (plain or .gz; projection from `c ind` / "
                  "`c p show` lines)");
  cmd->add_option("--vnnlib", options->vnnlib,
                  "count the unsafe share of a VNN-LIB property's input box (domain splitting)");
  cmd->add_option("--instances", options->instances,
                  "run a VNN-COMP benchmark: a CSV of network,property,time limit rows (paths "
                  "relative to it); one result file per instance in --results, a summary on "
                  "stdout");
  cmd->add_option("--results", options->results,
                  "--instances: folder of the result files (created when missing)")
      ->check(output_file_name());
  cmd->add_option("--csv-out", options->out.extra, "--instances: also write the summary as CSV")
      ->check(output_file_name());
  options->out.extra_name = "--csv-out";
  cmd->add_option("--max-boxes", options->params.max_boxes,
                  "split: largest number of boxes bounded (0 = none; deterministic)")
      ->check(non_negative_integer());
  cmd->add_option("--max-memory", options->max_memory_mb,
                  "split/--vnnlib: megabytes the undecided boxes may take (default: half the "
                  "memory available at the start); reaching it stops with the certified interval")
      ->check(megabytes_rule());
  cmd->add_flag("--stop-when-decided", options->stop_when_decided,
                "--vnnlib: stop as soon as the property is decided (holds or violated)");
  cmd->add_option("--bounds", options->bounds, "--vnnlib: linear (default) or interval bounds");
  cmd->add_option("--projection", options->projection,
                  "with --cnf: a file of projected variables (comma or space separated)");
  cmd->add_option("--property", options->params.property,
                  "count one predicate (as the truth of label 1), safety property or region");
  cmd->add_option("--method", options->method,
                  "auto, structural, enumerate, exact-cnf, approx or split (with --cnf: auto, "
                  "exact-cnf or approx)")
      ->capture_default_str();
  add_cnf_options(cmd, options->params);
  cmd->add_option("--ambiguity-limit", options->params.ambiguity_limit,
                  "exact-cnf/approx: settle at most this many inputs where a fixed-point circuit "
                  "may disagree with the model (beyond: bounds)")
      ->capture_default_str()
      ->check(non_negative_integer());
  add_fixed_point_options(cmd, options->params.fraction_bits, options->params.weight_bits,
                          options->params.activation_bits);
  cmd->add_option("--samples", options->params.samples,
                  "uniform sample sizes for the statistical view, e.g. 100,1000,10000")
      ->delimiter(',')
      ->check(non_negative_integer());
  cmd->add_option("--test", options->test,
                  "test set (CSV): the statistical view on it; feature columns in model order");
  cmd->add_option("--label", options->label, "column of --test with the true class names");
  add_seed_option(cmd, options->params.seed, "seed of the samples and of approx's hashes");
  options->confidence = cmd->add_option("--confidence", options->params.confidence,
                                        "confidence level of intervals (--vnnlib: 0.999)")
                            ->capture_default_str()
                            ->check(open_probability());
  add_threads_option(cmd, options->params.threads,
                     "worker threads for enumeration (0 = all cores; results do not depend on it)");
  options->out.add_options(cmd, "print JSON (exact counts as decimal strings)");
  options->csv_dialect.add_to(cmd);
  add_chart_axis_option(cmd, options->chart_axis);

  return [cmd, options] {
    if (!cmd->parsed()) return;
    auto& o = *options;
    o.params.max_memory = static_cast<std::uint64_t>(o.max_memory_mb * 1e6);
    if (!o.instances.empty()) {
      run_count_instances(o);
      return;
    }
    if (!o.results.empty() || !o.out.extra.empty())
      fail("--results and --csv-out apply to --instances only");
    if (!o.vnnlib.empty()) {
      run_count_vnnlib(o);
      return;
    }
    if (!o.cnf.empty()) {
      run_count_cnf(o);
      return;
    }
    if (!o.projection.empty()) fail("--projection applies to --cnf only");
    if (o.model.empty() || o.spec.empty()) {
      fail("give --model M and --spec S (or --cnf F.cnf to count a formula)");
    }
    if (!o.label.empty() && o.test.empty()) fail("--label {} needs --test T.csv", o.label);
    o.out.check(
        {{o.model, "the --model file"}, {o.spec, "the --spec file"}, {o.test, "the --test set"}});
    const count::Model model = count::load_any_model(o.model);
    const count::Spec spec = count::load_spec(o.spec);
    if (!o.test.empty()) {
      if (o.label.empty()) fail("--test needs --label COL (the column of true class names)");
      CsvParams csv = o.csv_dialect.applied_to({});
      csv.categorical = {o.label};
      count::set_test_set(o.params, model, read_csv(o.test, csv), o.label);
    }
    o.params.method = count::parse_count_method(o.method);
    const CtrlC ctrl_c;
    const count::CountResult result =
        ctrl_c.run([&] { return count::count(model, spec, o.params); });
    o.out.write(
        report::count_json(result), [&] { return report::count_text(result); },
        [&] {
          return report::count_html(result, "assay count: " + o.model + " on " + o.spec,
                                    o.chart_axis);
        });
    ctrl_c.exit_if_interrupted();
  };
}

Action add_encode_command(CLI::App& app, const GlobalOptions& /*global*/) {
  auto options = std::make_shared<EncodeOptions>();
  auto* cmd = app.add_subcommand(
      "encode",
      "Write one counting query as a DIMACS CNF whose projected model count is the number of\n"
      "inputs of the domain that satisfy it (QuantifyML's route; GANAK, d4, ApproxMC and\n"
      "`assay count --cnf` read it).");
  cmd->add_option("--model", options->model, "model: assay JSON or xgboost JSON")->required();
  cmd->add_option("--spec", options->spec, "domain and properties (.spec file)")->required();
  cmd->add_option("--property", options->params.property,
                  "the predicate (truth of label 1), safety property or region");
  cmd->add_option("--query", options->params.query,
                  "tp, fp, tn, fn, truth, predicted; satisfied, violated, pre; robust, "
                  "not-robust, region (default tp / violated / robust)");
  cmd->add_option("--label", options->params.label,
                  "label index of tp/fp/tn/fn/truth/predicted (default 1 for two labels, else 0)")
      ->check(non_negative_integer());
  cmd->add_option("--out", options->out, "the CNF file to write (.gz: compressed)")
      ->required()
      ->check(output_file_name());
  add_fixed_point_options(cmd, options->params.fraction_bits, options->params.weight_bits,
                          options->params.activation_bits);
  cmd->add_flag("--json", options->json, "print a JSON summary instead of text");
  return [cmd, options] {
    if (!cmd->parsed()) return;
    const auto& o = *options;
    note_inputs({{o.model, "the --model file"}, {o.spec, "the --spec file"}});
    check_writable(o.out, "--out");
    const count::Encoding e =
        count::encode(count::load_model(o.model), count::load_spec(o.spec), o.params);
    count::write_dimacs_file(e.cnf, o.out);
    if (o.json) {
      std::cout << report::encoding_json(e, o.out).dump(2) << '\n';
    } else {
      std::cout << report::encoding_text(e, o.out);
    }
  };
}

Action add_model_command(CLI::App& app, const GlobalOptions& /*global*/) {
  auto options = std::make_shared<ModelOptions>();
  auto* cmd = app.add_subcommand("model", "Inspect models (assay JSON or xgboost JSON)");
  cmd->require_subcommand(1);
  auto* info = cmd->add_subcommand("info", "Kind, inputs, outputs and parameter count of a model");
  info->add_option("file", options->file, "model file")->required();
  info->add_flag("--json", options->json, "print JSON");
  return [info, options] {
    if (!info->parsed()) return;
    const auto model_info = count::model_info(count::load_any_model(options->file));
    if (options->json) {
      std::cout << count::model_info_json(model_info).dump(2) << '\n';
    } else {
      std::cout << report::model_info_text(model_info);
    }
  };
}

}  // namespace assay::cli

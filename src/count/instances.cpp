// VNN-COMP instances CSV: read, checked whole before any instance runs, then each instance run
// with count_unsafe and its result file written (see instances.hpp).
#include "assay/count/instances.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/core/output_file.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/warning.hpp"
#include "assay/count/count_params.hpp"
#include "assay/count/onnx.hpp"
#include "input_file.hpp"

namespace assay::count {

namespace {

namespace fs = std::filesystem;

struct Cell {
  std::string_view text;
  std::size_t column = 1;  // 1-based, of the first character after trimming
};

std::vector<Cell> split_cells(std::string_view line) {
  std::vector<Cell> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    std::string_view cell =
        line.substr(start, comma == std::string_view::npos ? line.npos : comma - start);
    std::size_t column = start + 1;
    while (!cell.empty() && (cell.front() == ' ' || cell.front() == '\t')) {
      cell.remove_prefix(1);
      ++column;
    }
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t')) cell.remove_suffix(1);
    cells.push_back({cell, column});
    if (comma == std::string_view::npos) return cells;
    start = comma + 1;
  }
}

double parse_timeout(const Cell& cell, const Location& where) {
  const std::string text(cell.text);
  char* end = nullptr;
  const double v = text.empty() ? std::nan("") : std::strtod(text.c_str(), &end);
  const bool number = !text.empty() && end == text.c_str() + text.size() && std::isfinite(v);
  if (!number || v <= 0 || v > kMaxTimeLimit) {
    fail_at(where, "expected a time limit in seconds > 0{}, found {}",
            number && v > kMaxTimeLimit ? " and at most 1e9" : "", quote_found(text));
  }
  return v;
}

std::string resolve(const std::string& folder, std::string_view path) {
  const fs::path p{std::string(path)};
  if (p.is_absolute() || folder.empty()) return p.lexically_normal().string();
  return (fs::path(folder) / p).lexically_normal().string();
}

Instance parse_row(std::string_view line, std::size_t number, const std::string& file,
                   const std::string& folder) {
  const std::vector<Cell> cells = split_cells(line);
  const auto at = [&](std::size_t column) {
    return Location{file, static_cast<std::int64_t>(number), static_cast<std::int64_t>(column)};
  };
  if (cells.size() != 3) {
    const std::size_t column = cells.size() > 3 ? cells[3].column : line.size() + 1;
    fail_at(at(column),
            "expected 3 columns (network, property, time limit in seconds), found {}: {}",
            cells.size(), quote_found(line));
  }
  static constexpr const char* kWhat[] = {"a network file", "a property file"};
  for (std::size_t c = 0; c < 2; ++c) {
    if (cells[c].text.empty()) fail_at(at(cells[c].column), "expected {}, found \"\"", kWhat[c]);
  }
  Instance row;
  row.line = number;
  row.network = std::string(cells[0].text);
  row.property = std::string(cells[1].text);
  row.network_path = resolve(folder, cells[0].text);
  row.property_path = resolve(folder, cells[1].text);
  row.timeout = parse_timeout(cells[2], at(cells[2].column));
  return row;
}

std::string safe_stem(const std::string& path) {
  std::string stem = fs::path(path).stem().string();
  for (char& ch : stem) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '_';
    if (!keep) ch = '_';
  }
  return stem;
}

// --- running ----------------------------------------------------------------------------------

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Every network (once each) and property of the list, read and matched before any run.
struct Benchmark {
  std::map<std::string, std::shared_ptr<const Model>> networks;
  std::vector<std::shared_ptr<const Model>> network_of;  // per row
  std::vector<VnnProperty> properties;                   // per row
};

// Rethrows a loader's error at the row that named the file.
template <class Load>
auto at_row(const InstanceList& list, const Instance& row, Load load) {
  try {
    return load();
  } catch (const Error& e) {
    fail_at(Location{list.file, static_cast<std::int64_t>(row.line), 0}, "{}", e.what());
  }
}

Benchmark load_benchmark(const InstanceList& list) {
  Benchmark b;
  for (const Instance& row : list.rows) {
    auto& net = b.networks[row.network_path];
    if (!net) {
      net = at_row(list, row,
                   [&] { return std::make_shared<const Model>(load_any_model(row.network_path)); });
    }
    b.network_of.push_back(net);
    b.properties.push_back(at_row(list, row, [&] { return load_vnnlib(row.property_path); }));
    const Model& m = *net;
    const VnnProperty& p = b.properties.back();
    const Location where{list.file, static_cast<std::int64_t>(row.line), 0};
    if (m.n_features != p.n_inputs) {
      fail_at(where, "the network {} has {} inputs but {} declares {} (X_0..X_{})",
              row.network_path, m.n_features, p.file, p.n_inputs, p.n_inputs - 1);
    }
    if (m.n_outputs != p.n_outputs) {
      fail_at(where, "the network {} has {} outputs but {} declares {} (Y_0..Y_{})",
              row.network_path, m.n_outputs, p.file, p.n_outputs, p.n_outputs - 1);
    }
  }
  return b;
}

// The counterexample confirmed by a plain forward pass: the network's outputs at x (in y) satisfy
// the unsafe condition of a box of the property that holds x.
bool confirmed(const Model& m, const VnnProperty& p, const std::vector<double>& x,
               std::vector<double>& y) {
  if (x.size() != m.n_features) return false;
  y = predict_scores(m, x);
  for (const VnnRegion& r : p.regions) {
    bool inside = true;
    for (std::size_t i = 0; i < x.size() && inside; ++i)
      inside = r.lo[i] <= x[i] && x[i] <= r.hi[i];
    if (inside && unsafe_at(r, x.data(), y.data())) return true;
  }
  return false;
}

void judge(const SplitResult& r, const Model& m, const VnnProperty& p, InstanceOutcome& out) {
  out.unsafe_lower = r.unsafe_lower;
  out.unsafe_upper = r.unsafe_upper;
  out.sample = r.sample;
  out.confidence = r.confidence;
  out.route = r.route;
  out.boxes = r.boxes;
  out.stopped_by = r.stopped_by;
  if (r.decision == "holds") {
    out.result = "unsat";
  } else if (r.decision == "violated") {
    std::vector<double> y;
    if (r.counterexample && confirmed(m, p, *r.counterexample, y)) {
      out.result = "sat";
      out.counterexample = *r.counterexample;
      out.counterexample_outputs = std::move(y);
    } else {
      out.result = "unknown";
      out.message = fmt::format(
          "violated ({}), but the forward pass at the point found does not satisfy the unsafe "
          "condition (rounding at the boundary): no counterexample to report",
          r.counterexample_source);
    }
  } else if (r.stopped_by == "time limit") {
    out.result = "timeout";
  } else {
    out.result = "unknown";
    out.message = r.stop_message.empty() ? "stopped by " + r.stopped_by : r.stop_message;
  }
}

// Runs one instance; errors of count_unsafe (e.g. an activation the bounds do not cover) become
// result "error". Warnings other than the stop message (which the outcome carries) are passed on
// naming the instance.
InstanceOutcome run_one(const Instance& row, const Model& m, const VnnProperty& p,
                        const InstancesParams& params) {
  InstanceOutcome out;
  out.row = row;
  SplitParams sp = params.split;
  sp.time_limit = params.time_limit > 0 ? std::min(params.time_limit, row.timeout) : row.timeout;
  sp.stop_when_decided = true;
  out.time_limit = sp.time_limit;
  std::vector<std::string> warnings;
  std::mutex mutex;
  const auto start = Clock::now();
  try {
    SplitResult r;
    {
      const ScopedWarningHandler capture([&](const std::string& message) {
        const std::lock_guard lock(mutex);
        warnings.push_back(message);
      });
      r = count_unsafe(m, p, sp);
    }
    out.seconds = seconds_since(start);
    judge(r, m, p, out);
    for (const auto& w : warnings) {
      if (w != r.stop_message) warn(fmt::format("{} on {}: {}", row.property, row.network, w));
    }
  } catch (const Error& e) {
    out.seconds = seconds_since(start);
    out.result = "error";
    out.message = e.what();
  }
  return out;
}

std::vector<std::string> file_names_checked(const InstanceList& list,
                                            const InstancesParams& params) {
  if (params.results.empty()) return {};
  const std::vector<std::string> names = result_file_names(list);
  check_derived_outputs(params.results, names, fmt::format("results folder {}", params.results));
  prepare_output_folder(params.results, true);
  return names;
}

}  // namespace

InstanceList parse_instances(std::string_view text, const std::string& file) {
  InstanceList list;
  list.file = file;
  const std::string folder = fs::path(file).parent_path().string();
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
  std::size_t number = 0;
  while (!text.empty()) {
    ++number;
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    list.rows.push_back(parse_row(line, number, file, folder));
  }
  if (list.rows.empty()) {
    fail_at(Location{file, 0, 0}, "expected rows \"network,property,time limit\", found none");
  }
  return list;
}

InstanceList load_instances(const std::string& path) {
  const std::string text = detail::read_input_file(
      path, "an instances CSV file", fmt::format("cannot open instances file \"{}\"", path));
  return parse_instances(text, path);
}

std::vector<std::string> result_file_names(const InstanceList& list) {
  std::vector<std::string> names;
  std::map<std::string, int> uses;
  for (const Instance& row : list.rows) {
    names.push_back(safe_stem(row.network) + "_" + safe_stem(row.property));
    ++uses[names.back()];
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (uses[names[i]] > 1) names[i] += fmt::format("_line{}", list.rows[i].line);
    names[i] += ".txt";
  }
  return names;
}

std::string exact_decimal(double v) {
  char buffer[400];  // the longest fixed form of a double (1e308, or 1e-323's digits) fits
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::fixed);
  if (ec != std::errc{}) return fmt::format("{}", v);
  return {buffer, end};
}

std::string vnncomp_result_text(const std::string& result, const std::vector<double>& x,
                                const std::vector<double>& y) {
  std::string s = result + "\n";
  if (result != "sat" || (x.empty() && y.empty())) return s;
  const auto entry = [&](char name, std::size_t i, double v) {
    s += fmt::format("{}({}_{} {})", s.size() == result.size() + 1 ? "(" : "\n ", name, i,
                     exact_decimal(v));
  };
  for (std::size_t i = 0; i < x.size(); ++i) entry('X', i, x[i]);
  for (std::size_t j = 0; j < y.size(); ++j) entry('Y', j, y[j]);
  return s + ")\n";
}

InstancesResult run_instances(const InstanceList& list, const InstancesParams& params) {
  check_time_limit("time_limit", params.time_limit);
  const auto start = Clock::now();
  const Benchmark bench = load_benchmark(list);
  const std::vector<std::string> names = file_names_checked(list, params);
  InstancesResult result;
  result.file = list.file;
  result.results = params.results;
  result.time_limit = params.time_limit;
  Progress progress("count: instances", list.rows.size());
  for (std::size_t i = 0; i < list.rows.size(); ++i) {
    const Instance& row = list.rows[i];
    if (result.interrupted) {
      InstanceOutcome skipped;
      skipped.row = row;
      result.rows.push_back(std::move(skipped));
      continue;
    }
    InstanceOutcome out = run_one(row, *bench.network_of[i], bench.properties[i], params);
    if (!names.empty()) {
      out.result_file = (fs::path(params.results) / names[i]).string();
      const std::string answer = out.result == "error" ? "unknown" : out.result;
      write_file_atomic(out.result_file, vnncomp_result_text(answer, out.counterexample,
                                                             out.counterexample_outputs));
    }
    result.interrupted = out.stopped_by == "interrupted" || interrupt_requested();
    result.rows.push_back(std::move(out));
    progress.advance();
  }
  progress.finish();
  result.seconds = seconds_since(start);
  return result;
}

}  // namespace assay::count

// Bindings for the core I/O layer: CSV and .npy reading (assay.io wraps them).
#include "assay/core/csv.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/npy.hpp"
#include "assay/core/options.hpp"
#include "assay/core/output_file.hpp"
#include "assay/core/task.hpp"
#include "assay/core/thread_pool.hpp"
#include "bindings.hpp"

namespace assay::python {

namespace {

/// read_csv -> list of (name, values) for numeric columns or (name, (codes, categories)) for
/// categorical ones, in file order; numeric vectors move into numpy without a copy.
py::list read_csv_columns(const std::string& path, std::vector<std::string> categorical,
                          std::vector<std::string> numeric, bool allow_missing, bool comments,
                          const std::string& delimiter, int threads, const std::string& decimal,
                          std::size_t max_stream_bytes) {
  CsvParams params;
  params.categorical = std::move(categorical);
  params.numeric = std::move(numeric);
  params.allow_missing = allow_missing;
  params.comments = comments;
  params.delimiter = parse_delimiter(delimiter, "delimiter");
  params.decimal = parse_decimal(decimal, "decimal");
  params.max_stream_bytes = max_stream_bytes;
  params.threads = threads;
  Table table;
  {
    const WithoutGil without_gil;
    table = read_csv(path, params);
  }
  py::list out;
  for (Column& c : table.columns()) {
    if (c.is_numeric()) {
      out.append(py::make_tuple(c.name, true, to_numpy(std::move(c.values))));
    } else {
      py::list categories;
      for (const std::string& s : c.categories) {
        categories.append(py::str(s));  // UTF-8 expected; invalid bytes raise UnicodeDecodeError
      }
      out.append(
          py::make_tuple(c.name, false, py::make_tuple(to_numpy(std::move(c.codes)), categories)));
    }
  }
  return out;
}

}  // namespace

void bind_core(py::module_& m) {
  m.def(
      "set_num_threads",
      [](int n) {
        if (n < 0) fail("set_num_threads: expected n >= 0 (0 = the default), found {}", n);
        set_num_threads(n);
      },
      py::arg("n"), "Sets the process-wide default thread count (0 = back to the default).");
  m.def("get_num_threads", &default_threads,
        "The thread count that threads = 0 (n_jobs = None) means now.");
  m.def("read_csv", &read_csv_columns, py::arg("path"), py::arg("categorical"), py::arg("numeric"),
        py::arg("allow_missing"), py::arg("comments"), py::arg("delimiter"), py::arg("threads"),
        py::arg("decimal") = "auto", py::arg("max_stream_bytes") = 0,
        "Reads a CSV file: list of (name, is_numeric, float64 array | (int32 codes, categories)).");
  m.def(
      "read_npy",
      [](const std::string& path) {
        NpyArray a = [&] {
          const WithoutGil without_gil;
          return read_npy(path);
        }();
        return py::make_tuple(py::tuple(py::cast(a.shape)), to_numpy(std::move(a.data)), a.dtype);
      },
      py::arg("path"), "Reads a .npy file: (shape, float64 data in C order, dtype string).");
  m.def(
      "_checked_threads",
      [](std::int64_t requested, const std::string& name) {
        return checked_threads(requested, name);
      },
      py::arg("requested"), py::arg("name"),
      "The CLI's --threads rule: 0 = all cores, negative refused, capped at the cores (warning).");
  // The option rules of core/options.hpp, so that Python's arguments are refused in the CLI's
  // words (python/assay/_options.py).
  m.def(
      "_parse_unsigned",
      [](const std::string& name, const std::string& text) { return parse_unsigned(name, text); },
      py::arg("name"), py::arg("text"), "The CLI's rule for seeds and counts (0..2^64-1).");
  m.def(
      "_parse_threads",
      [](const std::string& name, const std::string& text) { return parse_threads(name, text); },
      py::arg("name"), py::arg("text"), "The CLI's --threads rule on text (range only, no cap).");
  m.def(
      "_parse_probability",
      [](const std::string& name, const std::string& text) {
        return parse_probability(name, text);
      },
      py::arg("name"), py::arg("text"), "The CLI's --confidence rule on text: (0, 1).");
  m.def(
      "_check_probability",
      [](const std::string& name, double value) { check_probability(name, value); },
      py::arg("name"), py::arg("value"), "The rule of confidence levels: a number in (0, 1).");
  m.def(
      "_parse_task_kind",
      [](const std::string& text, const std::string& name) {
        return std::string(to_string(parse_task_kind(text, name)));
      },
      py::arg("text"), py::arg("name"), "The --task rule: classification or regression.");
  m.def(
      "_write_file_atomic",
      [](const std::string& path, const py::bytes& data) {
        const std::string bytes = data;
        const WithoutGil without_gil;
        write_file_atomic(path, bytes);
      },
      py::arg("path"), py::arg("data"),
      "Writes bytes to path atomically (temporary in the same folder, fsync, rename).");
  m.def(
      "_check_outputs",
      [](const std::vector<std::pair<std::string, std::string>>& outputs,
         const std::vector<std::pair<std::string, std::string>>& inputs) {
        const InputFilesScope scope;
        for (const auto& [path, role] : inputs) note_input(path, role);
        for (const auto& [path, what] : outputs) check_writable(path, what);
      },
      py::arg("outputs"), py::arg("inputs"),
      "Before any work: refuses an output (path, argument name) that is one of the inputs (path, "
      "role), however spelled, or not a regular file, or cannot be written.");
}

}  // namespace assay::python

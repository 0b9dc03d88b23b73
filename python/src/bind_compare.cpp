// assay.compare.compare: the Python twin of `assay compare`. The arrays become the columns of an
// in-memory table that compare::compare_input reads exactly as it reads a CSV file's columns
// (labels, slices, bins and predicted classes are encoded in that one place).
#include <fmt/format.h>

#include "assay/compare/compare.hpp"
#include "assay/compare/gates.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/table.hpp"
#include "assay/report/compare.hpp"
#include "bindings.hpp"

namespace assay::python {
namespace {

// The one place where Python's options become compare::CompareParams (the CLI's names).
compare::CompareParams compare_params(const py::dict& options) {
  compare::CompareParams p;
  for (const auto& [key, value] : options) {
    const auto name = key.cast<std::string>();
    if (name == "metrics") {
      p.metrics = value.cast<std::vector<std::string>>();
    } else if (name == "baseline") {
      p.baseline = value.cast<std::string>();
    } else if (name == "pairs") {
      p.all_pairs = compare::parse_pairs(value.cast<std::string>());
    } else if (name == "pos_label") {
      p.pos_label = label_name(value);
    } else if (name == "threshold") {
      p.threshold = value.cast<double>();
    } else if (name == "ap_method") {
      p.ap.method = metrics::parse_ap_method(value.cast<std::string>());
    } else if (name == "n_resamples") {
      p.bootstrap.n_resamples = value.cast<std::size_t>();
    } else if (name == "confidence") {
      p.bootstrap.confidence = value.cast<double>();
    } else if (name == "seed") {
      p.bootstrap.seed = value.cast<std::uint64_t>();
    } else if (name == "threads") {
      p.bootstrap.threads = value.cast<int>();
    } else if (name == "test") {
      p.test = compare::parse_test(value.cast<std::string>());
    } else if (name == "n_permutations") {
      p.n_permutations = value.cast<std::size_t>();
    } else if (name == "correction") {
      p.correction = compare::parse_correction(value.cast<std::string>());
    } else if (name == "min_slice_size") {
      p.min_slice_size = value.cast<std::size_t>();
    } else {
      ASSAY_ASSERT(false && "unknown compare option");
    }
  }
  return p;
}

}  // namespace

void bind_compare(py::module_& m) {
  m.def(
      "_compare",
      [](const py::list& columns, const std::string& label,
         const std::vector<std::pair<std::string, std::vector<std::string>>>& models,
         const std::vector<std::string>& by, const std::string& weight, const std::string& task,
         const py::dict& options, const std::vector<std::string>& gates, const std::string& gate_on,
         const std::string& html, bool progress) {
        Table table;
        for (const auto& item : columns) {
          const auto pair = item.cast<py::tuple>();
          table.add_column(array_column(pair[1].cast<py::array>(), pair[0].cast<std::string>()));
        }
        const auto params = compare_params(options);
        const auto on = compare::parse_gate_on(gate_on, "gate_on");
        compare::CompareColumns cols{label, models, by, weight};
        const ProgressScope progress_scope(progress);
        std::string json;
        {
          const WithoutGil without_gil;
          auto input = compare::compare_input(table, cols, compare::parse_task(task));
          const auto result = compare::compare(std::move(input), params);
          const auto outcomes =
              compare::evaluate_gates(compare::parse_gates(gates, result), result, on);
          json = report::compare_json(result, outcomes).dump();
          if (!html.empty()) report::compare_html(result, outcomes, "assay compare").write(html);
        }
        return json;
      },
      py::arg("columns"), py::arg("label"), py::arg("models"), py::arg("by"), py::arg("weight"),
      py::arg("task"), py::arg("options"), py::arg("gates"), py::arg("gate_on"), py::arg("html"),
      py::arg("progress"));
}

}  // namespace assay::python

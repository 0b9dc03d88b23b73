// Bindings of assay/compare/statistics.hpp: the statistics of a paired comparison.
#include "assay/compare/statistics.hpp"

#include "bindings.hpp"

namespace assay::python {
namespace {

py::tuple interval_tuple(const compare::Interval& ci) {
  return py::make_tuple(ci.value, ci.low, ci.high);
}

py::dict delong_dict(const compare::DelongDetail& d) {
  py::dict out;
  out["auc_model"] = d.auc_model;
  out["auc_baseline"] = d.auc_baseline;
  out["difference"] = d.difference;
  out["standard_error"] = d.standard_error;
  out["low"] = d.low;
  out["high"] = d.high;
  out["z"] = d.z;
  out["p_value"] = d.p_value;
  return out;
}

}  // namespace

void bind_compare_statistics(py::module_& m) {
  m.def(
      "compare_percentile_interval",
      [](const Array<double>& replicates, double estimate, double confidence) {
        return interval_tuple(
            compare::percentile_interval(view_1d(replicates, "replicates"), estimate, confidence));
      },
      py::arg("replicates"), py::arg("estimate"), py::arg("confidence"));

  m.def(
      "compare_bca_interval",
      [](const Array<double>& replicates, double estimate, const Array<double>& jackknife,
         double confidence, const std::string& what) {
        return interval_tuple(compare::bca_interval(view_1d(replicates, "replicates"), estimate,
                                                    view_1d(jackknife, "jackknife"), confidence,
                                                    what));
      },
      py::arg("replicates"), py::arg("estimate"), py::arg("jackknife"), py::arg("confidence"),
      py::arg("what") = "the difference");

  m.def(
      "compare_bootstrap_p_value",
      [](const Array<double>& replicates) {
        return compare::bootstrap_p_value(view_1d(replicates, "replicates"));
      },
      py::arg("replicates"));

  m.def(
      "compare_permutation_p_value",
      [](const Array<double>& null_statistics, double observed) {
        return compare::permutation_p_value(view_1d(null_statistics, "null_statistics"), observed);
      },
      py::arg("null_statistics"), py::arg("observed"));

  m.def(
      "compare_mcnemar_exact",
      [](double b, double c) {
        const auto r = compare::mcnemar_exact(b, c);
        py::dict out;
        out["p_value"] = r.p_value;
        out["mid_p"] = r.mid_p;
        return out;
      },
      py::arg("b"), py::arg("c"));

  m.def(
      "compare_adjust_p_values",
      [](const Array<double>& p_values, const std::string& method) {
        const auto correction = compare::parse_correction(method);
        return to_numpy(compare::adjust_p_values(view_1d(p_values, "p_values"), correction));
      },
      py::arg("p_values"), py::arg("method"));

  m.def(
      "compare_delong_difference",
      [](const Array<std::uint8_t>& y_true, const Array<double>& score_model,
         const Array<double>& score_baseline, const std::optional<Array<double>>& weights,
         double confidence) {
        const auto y = view_1d(y_true, "y_true");
        const auto a = view_1d(score_model, "score_model");
        const auto b = view_1d(score_baseline, "score_baseline");
        const auto w = weights ? view_1d(*weights, "sample_weight") : std::span<const double>{};
        compare::DelongDetail d;
        {
          const WithoutGil without_gil;
          d = compare::delong_difference(y, a, b, w, confidence);
        }
        return delong_dict(d);
      },
      py::arg("y_true"), py::arg("score_model"), py::arg("score_baseline"),
      py::arg("sample_weight") = py::none(), py::arg("confidence") = 0.95);
}

}  // namespace assay::python

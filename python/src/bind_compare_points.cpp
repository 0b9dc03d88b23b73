// Bindings of assay/compare/operating_point.hpp (python/assay/_compare_points.py wraps them).
// Labels arrive binarised (uint8 0/1); the GIL is released while sorting and choosing.
#include <cmath>
#include <limits>

#include "assay/compare/operating_point.hpp"
#include "assay/metrics/ranking.hpp"
#include "bindings.hpp"

namespace assay::python {

namespace {

/// The threshold chosen under `spec` and its counts, unscaled back to the caller's weights.
py::dict choose_point(const Array<std::uint8_t>& y, const Array<double>& s,
                      const std::optional<Array<double>>& w, const std::string& spec_text) {
  const auto yv = view_1d(y, "y_true");
  const auto sv = view_1d(s, "y_score");
  const std::span<const double> wv = w ? view_1d(*w, "sample_weight") : std::span<const double>{};
  compare::PointMetricSpec spec;
  compare::ChosenPoint point;
  double value = std::numeric_limits<double>::quiet_NaN();
  int scale = 0;
  {
    const WithoutGil without_gil;
    spec = compare::parse_point_metric(spec_text);
    const auto points = metrics::RankedScores(yv, sv).operating_points(wv);
    point = compare::choose_point(points, spec);
    if (point.feasible) value = compare::point_value(point, spec.metric, spec.rule);
    scale = points.scale_exponent;
  }
  const auto count = [&](double c) { return point.feasible ? std::ldexp(c, -scale) : value; };
  py::dict out;
  out["feasible"] = point.feasible;
  out["threshold"] = point.feasible ? point.threshold : value;
  out["tp"] = count(point.tp);
  out["fp"] = count(point.fp);
  out["fn"] = count(point.fn);
  out["tn"] = count(point.tn);
  out["value"] = value;
  out["text"] = spec.text;
  return out;
}

}  // namespace

void bind_compare_points(py::module_& m) {
  m.def("compare_choose_point", &choose_point, py::arg("y_true"), py::arg("y_score"),
        py::arg("sample_weight"), py::arg("spec"),
        "Chooses a threshold under an operating-point metric `METRIC@RULE`; returns dict(feasible, "
        "threshold, tp, fp, fn, tn, value, text) with NaN threshold, counts and value when no "
        "candidate qualifies.");
}

}  // namespace assay::python

// Bindings for the regression metrics (assay.metrics wraps them in python/assay/_regression.py).
// y_true / y_pred arrive as C-order float64 (n,) or (n, m) arrays; the GIL is released while
// computing. Functions return per-output numpy arrays; averaging is one more call.
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "assay/core/radix_sort.hpp"
#include "assay/metrics/regression.hpp"
#include "bindings.hpp"

namespace assay::python {
namespace {

using Weights = std::optional<Array<double>>;

metrics::RegressionData data_of(const Array<double>& y, const Array<double>& p, const Weights& w) {
  if (y.ndim() > 2 || p.ndim() > 2) fail("y_true and y_pred must be 1-D or 2-D");
  metrics::RegressionData d;
  d.y_true = {y.data(), static_cast<std::size_t>(y.size())};
  d.y_pred = {p.data(), static_cast<std::size_t>(p.size())};
  d.n_outputs = y.ndim() == 2 ? static_cast<std::size_t>(y.shape(1)) : 1;
  if (w) d.sample_weight = view_1d(*w, "sample_weight");
  return d;
}

// Calls `compute(data)` without the GIL; returns its per-output vector as numpy.
template <typename F>
py::array_t<double> per_output(const Array<double>& y, const Array<double>& p, const Weights& w,
                               F&& compute) {
  const auto d = data_of(y, p, w);
  std::vector<double> out;
  {
    const WithoutGil without_gil;
    out = compute(d);
  }
  return to_numpy(std::move(out));
}

py::tuple parts_to_python(metrics::ScoreParts&& parts) {
  return py::make_tuple(to_numpy(std::move(parts.numerator)),
                        to_numpy(std::move(parts.denominator)));
}

}  // namespace

void bind_regression(py::module_& m) {
  // Stable ascending argsort of doubles (-0.0 equal to +0.0, as numpy's stable sort), by the
  // radix sort the ranking metrics use: the one sort of the weighted quantiles.
  m.def(
      "_stable_argsort",
      [](const Array<double>& values) {
        auto v = view_1d(values, "values");
        std::vector<std::int64_t> order(v.size()), buffer(v.size());
        {
          const WithoutGil without_gil;
          std::iota(order.begin(), order.end(), std::int64_t{0});
          detail::radix_sort(order.data(), buffer.data(), order.size(),
                             [&](std::int64_t i) { return detail::ascending_key(v[i]); });
        }
        return to_numpy(std::move(order));
      },
      py::arg("values"));

  // name: mse, rmse, mae, mape, msle, rmsle, median_ae, pinball
  m.def("reg_per_output", [](const std::string& name, const Array<double>& y,
                             const Array<double>& p, const Weights& w, double alpha) {
    return per_output(y, p, w, [&](const metrics::RegressionData& d) {
      if (name == "mse" || name == "rmse") return metrics::mean_squared_error(d, name == "mse");
      if (name == "mae") return metrics::mean_absolute_error(d);
      if (name == "mape") return metrics::mean_absolute_percentage_error(d);
      if (name == "msle" || name == "rmsle") {
        return metrics::mean_squared_log_error(d, name == "msle");
      }
      if (name == "median_ae") return metrics::median_absolute_error(d);
      if (name == "pinball") return metrics::mean_pinball_loss(d, alpha);
      fail("unknown regression metric {}", quote_found(name));
    });
  });

  // name: r2, explained_variance, d2_pinball -> (numerator, denominator) per output
  m.def("reg_score_parts", [](const std::string& name, const Array<double>& y,
                              const Array<double>& p, const Weights& w, double alpha) {
    const auto d = data_of(y, p, w);
    metrics::ScoreParts parts;
    {
      const WithoutGil without_gil;
      if (name == "r2") {
        parts = metrics::r2_parts(d);
      } else if (name == "explained_variance") {
        parts = metrics::explained_variance_parts(d);
      } else if (name == "d2_pinball") {
        parts = metrics::d2_pinball_parts(d, alpha);
      } else {
        fail("unknown regression score {}", quote_found(name));
      }
    }
    return parts_to_python(std::move(parts));
  });

  m.def("reg_assemble_score",
        [](const Array<double>& num, const Array<double>& den, bool force_finite) {
          metrics::ScoreParts parts;
          auto vn = view_1d(num, "numerator");
          auto vd = view_1d(den, "denominator");
          parts.numerator.assign(vn.begin(), vn.end());
          parts.denominator.assign(vd.begin(), vd.end());
          return to_numpy(metrics::assemble_score(parts, force_finite));
        });

  // how: "raw_values" | "uniform_average" | "variance_weighted", or output weights
  m.def("reg_average_outputs", [](const Array<double>& values, const py::object& how,
                                  const std::optional<Array<double>>& denominators) {
    metrics::OutputAverage avg;
    if (py::isinstance<py::str>(how)) {
      avg.kind = metrics::parse_output_average(how.cast<std::string>());
    } else {
      auto weights = how.cast<Array<double>>();
      auto vw = view_1d(weights, "multioutput");
      avg.kind = metrics::OutputAverage::Kind::weights;
      avg.weights.assign(vw.begin(), vw.end());
    }
    auto v = view_1d(values, "values");
    std::span<const double> den;
    if (denominators) den = view_1d(*denominators, "denominators");
    return metrics::average_outputs({v.begin(), v.end()}, avg, den)[0];
  });

  m.def("reg_max_error", [](const Array<double>& y, const Array<double>& p) {
    const auto d = data_of(y, p, std::nullopt);
    const WithoutGil without_gil;
    return metrics::max_error(d);
  });

  m.def("reg_tweedie", [](const Array<double>& y, const Array<double>& p, const Weights& w,
                          double power, bool d2) {
    const auto d = data_of(y, p, w);
    const WithoutGil without_gil;
    return d2 ? metrics::d2_tweedie_score(d, power) : metrics::mean_tweedie_deviance(d, power);
  });
}

}  // namespace assay::python

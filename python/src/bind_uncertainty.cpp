#include "assay/metrics/scaled_weights.hpp"
#include "assay/metrics/uncertainty.hpp"

#include "bindings.hpp"

namespace assay::python {
namespace {

py::dict bootstrap_to_dict(metrics::BootstrapResult&& r) {
  py::dict d;
  d["estimate"] = r.estimate;
  d["low"] = r.low;
  d["high"] = r.high;
  d["standard_error"] = r.standard_error;
  d["confidence"] = r.params.confidence;
  d["n_resamples"] = r.params.n_resamples;
  d["seed"] = r.params.seed;
  d["n_undefined"] = r.n_undefined;
  d["replicates"] = to_numpy(std::move(r.replicates));
  return d;
}

py::dict summary_to_dict(const metrics::RunSummary& s) {
  py::dict d;
  d["mean"] = s.mean;
  d["sd"] = s.sd;
  d["min"] = s.min;
  d["max"] = s.max;
  d["n"] = s.n;
  return d;
}

}  // namespace

void bind_uncertainty(py::module_& m) {
  // The library's rule for resample counts (the CLI's --bootstrap validator applies it too).
  m.def(
      "_check_resample_count",
      [](std::size_t n, const std::string& name) { metrics::check_resample_count(n, 1, name); },
      py::arg("n"), py::arg("name"));

  // Weights rescaled as every metric sums them (assay/metrics/scaled_weights.hpp), for the
  // Python functions that build a confusion matrix first and take ratios of it (kappa, LR+/-).
  m.def(
      "_scaled_weights",
      [](const Array<double>& weights) -> py::object {
        const metrics::ScaledWeights scaled(view_1d(weights, "sample_weight"));
        if (!scaled.rescaled()) return py::object(weights);
        return to_numpy(std::vector<double>(scaled.span().begin(), scaled.span().end()));
      },
      py::arg("weights"));

  // The metric is a Python callable of the resample counts (float64 array of length n); it runs
  // on the caller's thread with the GIL held, so threads = 1.
  m.def(
      "_bootstrap_counts",
      [](std::size_t n, const py::function& metric, const Array<double>& base_weights,
         std::size_t n_resamples, double confidence, std::uint64_t seed) {
        metrics::BootstrapParams params;
        params.n_resamples = n_resamples;
        params.confidence = confidence;
        params.seed = seed;
        params.threads = 1;
        auto weights = base_weights.size() ? view_1d(base_weights, "sample_weight")
                                           : std::span<const double>{};
        auto result = metrics::bootstrap(
            n,
            [&](std::span<const double> w) {
              py::array_t<double> counts(static_cast<py::ssize_t>(w.size()), w.data());
              return metric(counts).cast<double>();
            },
            weights, params);
        return bootstrap_to_dict(std::move(result));
      },
      py::arg("n"), py::arg("metric"), py::arg("base_weights"), py::arg("n_resamples"),
      py::arg("confidence"), py::arg("seed"));

  // ROC AUC / AP of binary labels: scores sorted once, resamples rescanned in parallel.
  m.def(
      "_bootstrap_ranking",
      [](const Array<std::uint8_t>& y_true, const Array<double>& y_score,
         const Array<double>& base_weights, const std::string& metric, const std::string& method,
         const std::string& grid, const std::string& tie_mode, std::size_t n_resamples,
         double confidence, std::uint64_t seed, int threads) {
        metrics::BootstrapParams params;
        params.n_resamples = n_resamples;
        params.confidence = confidence;
        params.seed = seed;
        params.threads = threads;
        metrics::ApParams ap;
        ap.method = metrics::parse_ap_method(method);
        ap.grid = metrics::parse_ap_grid(grid);
        ap.tie_mode = metrics::parse_tie_mode(tie_mode);
        const auto kind = metric == "roc_auc" ? metrics::RankingMetric::roc_auc
                                              : metrics::RankingMetric::average_precision;
        auto y = view_1d(y_true, "y_true");
        auto s = view_1d(y_score, "y_score");
        auto w = base_weights.size() ? view_1d(base_weights, "sample_weight")
                                     : std::span<const double>{};
        metrics::BootstrapResult result;
        {
          const WithoutGil without_gil;
          result = metrics::bootstrap_ranking(y, s, w, kind, ap, params);
        }
        return bootstrap_to_dict(std::move(result));
      },
      py::arg("y_true"), py::arg("y_score"), py::arg("base_weights"), py::arg("metric"),
      py::arg("method"), py::arg("grid"), py::arg("tie_mode"), py::arg("n_resamples"),
      py::arg("confidence"), py::arg("seed"), py::arg("threads"));

  m.def(
      "summarize_runs",
      [](const Array<double>& values) {
        return summary_to_dict(metrics::summarize_runs(view_1d(values, "values")));
      },
      py::arg("values"));

  m.def(
      "summarize_runs_by",
      [](const Array<double>& values, const Array<double>& by) {
        auto grouped = metrics::summarize_runs_by(view_1d(values, "values"), view_1d(by, "by"));
        py::dict d;
        std::vector<double> mean, sd, min, max;
        std::vector<std::int64_t> n;
        for (const auto& s : grouped.summaries) {
          mean.push_back(s.mean);
          sd.push_back(s.sd);
          min.push_back(s.min);
          max.push_back(s.max);
          n.push_back(static_cast<std::int64_t>(s.n));
        }
        d["by"] = to_numpy(std::move(grouped.by));
        d["mean"] = to_numpy(std::move(mean));
        d["sd"] = to_numpy(std::move(sd));
        d["min"] = to_numpy(std::move(min));
        d["max"] = to_numpy(std::move(max));
        d["n"] = to_numpy(std::move(n));
        return d;
      },
      py::arg("values"), py::arg("by"));
}

}  // namespace assay::python

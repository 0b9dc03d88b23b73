// Bindings of the shift layer: retention curves, ensemble measures, regression metrics, OOD
// detection, the partition table, threshold tuning and generalisation inputs. Results are dicts
// of numpy arrays and floats; python/assay/_shift.py shapes them into result objects.
#include "assay/report/shift.hpp"
#include "assay/shift/ensemble.hpp"
#include "assay/shift/partition.hpp"
#include "assay/shift/regression.hpp"
#include "assay/shift/retention.hpp"
#include "bindings.hpp"

namespace assay::python {
namespace {

using shift::RetentionParams;

RetentionParams retention_params(const std::string& convention) {
  return {shift::parse_retention_convention(convention)};
}

py::dict retention_dict(shift::RetentionResult&& r) {
  py::dict d;
  d["curve"] = to_numpy(std::move(r.curve));
  d["r_auc"] = r.r_auc;
  d["convention"] = std::string(shift::to_string(r.convention));
  return d;
}

py::dict f1_dict(shift::F1RetentionResult&& r) {
  py::dict d;
  d["curve"] = to_numpy(std::move(r.curve));
  d["f1_auc"] = r.f1_auc;
  d["f1_at_95"] = r.f1_at_95;
  d["n_acceptable"] = r.n_acceptable;
  return d;
}

py::dict interval_dict(metrics::BootstrapResult&& b) {
  py::dict d;
  d["estimate"] = b.estimate;
  d["low"] = b.low;
  d["high"] = b.high;
  d["standard_error"] = b.standard_error;
  d["n_undefined"] = b.n_undefined;
  d["replicates"] = to_numpy(std::move(b.replicates));
  return d;
}

// A C-contiguous float64 array of exactly `dims` dimensions, with its shape.
std::span<const double> view_nd(const Array<double>& a, int dims, const char* what,
                                std::vector<std::size_t>& shape) {
  if (a.ndim() != dims) {
    fail("{} must be a {}-D array, found {} dimensions", what, dims, a.ndim());
  }
  shape.clear();
  for (int k = 0; k < dims; ++k) shape.push_back(static_cast<std::size_t>(a.shape(k)));
  return {a.data(), static_cast<std::size_t>(a.size())};
}

std::span<const double> optional_1d(const Array<double>& a, const char* what) {
  return a.size() ? view_1d(a, what) : std::span<const double>{};
}

}  // namespace

namespace {

/// Retention and risk-coverage curves (R-AUC, PRR, AURC, F1 retention).
void register_retention(py::module_& m) {
  m.def(
      "_retention_curve",
      [](const Array<double>& errors, const Array<double>& uncertainty,
         const std::string& convention) {
        auto p = retention_params(convention);
        auto e = view_1d(errors, "errors");
        auto u = view_1d(uncertainty, "uncertainty");
        shift::RetentionResult r;
        {
          const WithoutGil without_gil;
          r = shift::retention_curve(e, u, p);
        }
        return retention_dict(std::move(r));
      },
      py::arg("errors"), py::arg("uncertainty"), py::arg("convention"));
  m.def(
      "_oracle_retention_curve",
      [](const Array<double>& errors, const std::string& convention) {
        return retention_dict(
            shift::oracle_retention_curve(view_1d(errors, "errors"), retention_params(convention)));
      },
      py::arg("errors"), py::arg("convention"));
  m.def(
      "_random_retention_curve",
      [](const Array<double>& errors, const std::string& convention) {
        return retention_dict(
            shift::random_retention_curve(view_1d(errors, "errors"), retention_params(convention)));
      },
      py::arg("errors"), py::arg("convention"));
  m.def(
      "_prr",
      [](const Array<double>& errors, const Array<double>& uncertainty,
         const std::string& convention) {
        const auto r = shift::prr(view_1d(errors, "errors"), view_1d(uncertainty, "uncertainty"),
                                  retention_params(convention));
        py::dict d;
        d["prr"] = r.prr;
        d["r_auc"] = r.r_auc;
        d["random_auc"] = r.random_auc;
        d["oracle_auc"] = r.oracle_auc;
        return d;
      },
      py::arg("errors"), py::arg("uncertainty"), py::arg("convention"));
  m.def(
      "_risk_coverage",
      [](const Array<double>& errors, const Array<double>& uncertainty) {
        auto r =
            shift::risk_coverage(view_1d(errors, "errors"), view_1d(uncertainty, "uncertainty"));
        py::dict d;
        d["coverage"] = to_numpy(std::move(r.coverage));
        d["selective_risk"] = to_numpy(std::move(r.selective_risk));
        d["generalized_risk"] = to_numpy(std::move(r.generalized_risk));
        d["aurc"] = r.aurc;
        d["augrc"] = r.augrc;
        d["e_aurc"] = r.e_aurc;
        d["e_augrc"] = r.e_augrc;
        return d;
      },
      py::arg("errors"), py::arg("uncertainty"));
  m.def(
      "_f1_retention",
      [](const Array<double>& errors, const Array<double>& uncertainty, double threshold,
         double beta, const std::string& ordering) {
        const shift::F1RetentionParams p{threshold, beta};
        auto e = view_1d(errors, "errors");
        if (ordering == "oracle") return f1_dict(shift::oracle_f1_retention(e, p));
        if (ordering == "random") return f1_dict(shift::random_f1_retention(e, p));
        auto u = view_1d(uncertainty, "uncertainty");
        shift::F1RetentionResult r;
        {
          const WithoutGil without_gil;
          r = shift::f1_retention(e, u, p);
        }
        return f1_dict(std::move(r));
      },
      py::arg("errors"), py::arg("uncertainty"), py::arg("threshold"), py::arg("beta"),
      py::arg("ordering"));
}

/// Ensemble uncertainty measures and Gaussian / ensemble NLL.
void register_ensemble_uncertainty(py::module_& m) {
  m.def(
      "_ensemble_uncertainty",
      [](const Array<double>& probs, double epsilon, int threads) {
        std::vector<std::size_t> s;
        auto data = view_nd(probs, 3, "probs", s);
        shift::EnsembleUncertainty r;
        {
          const WithoutGil without_gil;
          r = shift::ensemble_uncertainty(data, s[0], s[1], s[2], {epsilon, threads});
        }
        py::dict d;
        d["entropy_of_expected"] = to_numpy(std::move(r.entropy_of_expected));
        d["expected_entropy"] = to_numpy(std::move(r.expected_entropy));
        d["mutual_information"] = to_numpy(std::move(r.mutual_information));
        d["epkl"] = to_numpy(std::move(r.epkl));
        d["reverse_mutual_information"] = to_numpy(std::move(r.reverse_mutual_information));
        d["confidence"] = to_numpy(std::move(r.confidence));
        return d;
      },
      py::arg("probs"), py::arg("epsilon"), py::arg("threads"));
  m.def(
      "_ensemble_uncertainty_regression",
      [](const Array<double>& preds, double epsilon, int threads) {
        std::vector<std::size_t> s;
        auto data = view_nd(preds, 3, "preds", s);
        if (s[2] != 2)
          fail("preds must have shape (members, samples, 2), found last axis {}", s[2]);
        shift::RegressionEnsembleUncertainty r;
        {
          const WithoutGil without_gil;
          r = shift::ensemble_uncertainty_regression(data, s[0], s[1], {epsilon, threads});
        }
        py::dict d;
        d["mean"] = to_numpy(std::move(r.mean));
        d["total_variance"] = to_numpy(std::move(r.total_variance));
        d["data_uncertainty"] = to_numpy(std::move(r.data_uncertainty));
        d["knowledge_uncertainty"] = to_numpy(std::move(r.knowledge_uncertainty));
        d["epkl_reg"] = to_numpy(std::move(r.epkl_reg));
        d["epkl"] = to_numpy(std::move(r.epkl));
        return d;
      },
      py::arg("preds"), py::arg("epsilon"), py::arg("threads"));
  m.def(
      "_gaussian_nll",
      [](const Array<double>& y, const Array<double>& mean, const Array<double>& var,
         double epsilon) {
        return to_numpy(shift::gaussian_nll(view_1d(y, "y"), view_1d(mean, "mean"),
                                            view_1d(var, "var"), epsilon));
      },
      py::arg("y"), py::arg("mean"), py::arg("var"), py::arg("epsilon"));
  m.def(
      "_ensemble_nll",
      [](const Array<double>& y, const Array<double>& preds, double epsilon) {
        std::vector<std::size_t> s;
        auto data = view_nd(preds, 3, "preds", s);
        if (s[2] != 2)
          fail("preds must have shape (members, samples, 2), found last axis {}", s[2]);
        return to_numpy(shift::ensemble_nll(view_1d(y, "y"), data, s[0], s[1], epsilon));
      },
      py::arg("y"), py::arg("preds"), py::arg("epsilon"));
}

/// Regression metrics with bootstrap intervals, OOD detection.
void register_regression_and_ood(py::module_& m) {
  m.def(
      "_regression_metrics",
      [](const Array<double>& y_true, const Array<double>& y_pred,
         const Array<double>& sample_weight, std::size_t n_resamples, double confidence,
         std::uint64_t seed, int threads) {
        shift::RegressionParams params;
        params.bootstrap.n_resamples = n_resamples;
        params.bootstrap.confidence = confidence;
        params.bootstrap.seed = seed;
        params.bootstrap.threads = threads;
        auto y = view_1d(y_true, "y_true");
        auto p = view_1d(y_pred, "y_pred");
        auto w = optional_1d(sample_weight, "sample_weight");
        shift::RegressionMetrics r;
        {
          const WithoutGil without_gil;
          r = shift::regression_metrics(y, p, w, params);
        }
        py::dict d;
        d["rmse"] = interval_dict(std::move(r.rmse));
        d["mae"] = interval_dict(std::move(r.mae));
        d["mape"] = interval_dict(std::move(r.mape));
        d["r2"] = interval_dict(std::move(r.r2));
        return d;
      },
      py::arg("y_true"), py::arg("y_pred"), py::arg("sample_weight"), py::arg("n_resamples"),
      py::arg("confidence"), py::arg("seed"), py::arg("threads"));
  m.def(
      "_ood_detection",
      [](const Array<std::uint8_t>& shifted, const Array<double>& uncertainty) {
        const auto r =
            shift::ood_detection(view_1d(shifted, "shifted"), view_1d(uncertainty, "uncertainty"));
        py::dict d;
        d["auroc"] = r.auroc;
        d["aupr"] = r.aupr;
        d["average_precision"] = r.average_precision;
        d["fpr_at_95"] = r.fpr_at_95;
        d["n_in"] = r.n_in;
        d["n_shifted"] = r.n_shifted;
        return d;
      },
      py::arg("shifted"), py::arg("uncertainty"));
}

/// Partition tables, threshold tuning and generalisation sets.
void register_partitions(py::module_& m) {
  // models: list of (name, prediction, uncertainty). Returns the JSON document as a string and
  // writes the HTML page when `html` is not empty.
  m.def(
      "_evaluate_partitions",
      [](const Array<double>& target, const py::list& models, const py::object& partition,
         const Array<std::uint8_t>& shifted, const std::string& convention,
         const std::string& error, py::object acceptable, double beta, std::size_t n_resamples,
         double confidence, std::uint64_t seed, const std::string& html) {
        shift::PartitionInput input;
        auto t = view_1d(target, "target");
        input.target.assign(t.begin(), t.end());
        for (const auto& item : models) {
          auto tuple = item.cast<py::tuple>();
          shift::ModelInput model;
          model.name = tuple[0].cast<std::string>();
          auto pred = tuple[1].cast<Array<double>>();
          auto unc = tuple[2].cast<Array<double>>();
          auto p = view_1d(pred, "prediction");
          auto u = view_1d(unc, "uncertainty");
          model.prediction.assign(p.begin(), p.end());
          model.uncertainty.assign(u.begin(), u.end());
          input.models.push_back(std::move(model));
        }
        if (!partition.is_none()) input.partition = partition.cast<std::vector<std::string>>();
        if (shifted.size()) {
          auto s = view_1d(shifted, "shifted");
          input.shifted.assign(s.begin(), s.end());
        }
        shift::PartitionParams params;
        params.convention = shift::parse_retention_convention(convention);
        params.error = shift::parse_error_kind(error);
        if (!acceptable.is_none()) params.acceptable = acceptable.cast<double>();
        params.beta = beta;
        params.bootstrap.n_resamples = n_resamples;
        params.bootstrap.confidence = confidence;
        params.bootstrap.seed = seed;
        shift::ShiftEvaluation ev;
        {
          const WithoutGil without_gil;
          ev = shift::evaluate_partitions(input, params);
        }
        if (!html.empty()) report::shift_html(ev, "assay shift").write(html);
        return report::shift_json(ev).dump();
      },
      py::arg("target"), py::arg("models"), py::arg("partition"), py::arg("shifted"),
      py::arg("convention"), py::arg("error"), py::arg("acceptable"), py::arg("beta"),
      py::arg("n_resamples"), py::arg("confidence"), py::arg("seed"), py::arg("html"));
  m.def(
      "_tune_threshold",
      [](const Array<std::uint8_t>& y_true, const Array<double>& score,
         const std::vector<std::string>& partition, const std::string& tune_on,
         const std::string& metric) {
        const auto r = shift::tune_threshold(view_1d(y_true, "y_true"), view_1d(score, "score"),
                                             partition, tune_on, shift::parse_tune_metric(metric));
        py::dict d;
        d["threshold"] = r.threshold;
        d["tuned_value"] = r.tuned_value;
        py::dict values;
        for (std::size_t i = 0; i < r.sets.size(); ++i) values[py::str(r.sets[i])] = r.values[i];
        d["values"] = values;
        return d;
      },
      py::arg("y_true"), py::arg("score"), py::arg("partition"), py::arg("tune_on"),
      py::arg("metric"));
  m.def(
      "_generalisation_inputs",
      [](const Array<double>& low, const Array<double>& high, std::size_t n, std::uint64_t seed) {
        auto lo = view_1d(low, "low");
        auto hi = view_1d(high, "high");
        return to_numpy_2d(shift::generalisation_inputs(lo, hi, n, seed), n, lo.size());
      },
      py::arg("low"), py::arg("high"), py::arg("n"), py::arg("seed"));
}

}  // namespace

void bind_shift(py::module_& m) {
  register_retention(m);
  register_ensemble_uncertainty(m);
  register_regression_and_ood(m);
  register_partitions(m);
}

}  // namespace assay::python

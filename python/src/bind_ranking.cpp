// Bindings for ranking metrics (assay.metrics wraps them in python/assay/_ranking.py). Labels
// arrive already binarised (uint8 0/1, or class codes); the GIL is released while computing.
#include <optional>

#include "assay/metrics/ranking.hpp"
#include "bindings.hpp"

namespace assay::python {

namespace {

using metrics::ApParams;

/// A read-only view of a C-order 2-D array as (data, rows, cols).
template <typename T>
std::span<const T> view_2d(const Array<T>& a, const char* what, std::size_t& cols) {
  if (a.ndim() != 2) fail("{} must be a 2-D array, found {} dimensions", what, a.ndim());
  cols = static_cast<std::size_t>(a.shape(1));
  return {a.data(), static_cast<std::size_t>(a.size())};
}

std::span<const double> optional_view(const std::optional<Array<double>>& a, const char* what) {
  if (!a) return {};
  return view_1d(*a, what);
}

ApParams make_params(const std::string& method, const std::string& grid,
                     const std::string& tie_mode, std::optional<double> n_pos) {
  ApParams p;
  p.method = metrics::parse_ap_method(method);
  p.grid = metrics::parse_ap_grid(grid);
  p.tie_mode = metrics::parse_tie_mode(tie_mode);
  p.n_pos = n_pos;
  return p;
}

py::array_t<double> vec(std::vector<double>&& v) {
  return to_numpy(std::move(v));
}

}  // namespace

namespace {

/// Precision-recall and ROC curves.
void register_curves(py::module_& m) {
  m.def(
      "ranking_precision_recall_curve",
      [](const Array<std::uint8_t>& y, const Array<double>& s,
         const std::optional<Array<double>>& w, bool drop) {
        auto yv = view_1d(y, "y_true");
        auto sv = view_1d(s, "y_score");
        auto wv = optional_view(w, "sample_weight");
        metrics::PrCurve c;
        {
          const WithoutGil without_gil;
          c = metrics::precision_recall_curve(yv, sv, wv, drop);
        }
        return py::make_tuple(vec(std::move(c.precision)), vec(std::move(c.recall)),
                              vec(std::move(c.thresholds)));
      },
      py::arg("y_true"), py::arg("y_score"), py::arg("sample_weight"),
      py::arg("drop_intermediate"));

  m.def(
      "ranking_roc_curve",
      [](const Array<std::uint8_t>& y, const Array<double>& s,
         const std::optional<Array<double>>& w, bool drop) {
        auto yv = view_1d(y, "y_true");
        auto sv = view_1d(s, "y_score");
        auto wv = optional_view(w, "sample_weight");
        metrics::RocCurve c;
        {
          const WithoutGil without_gil;
          c = metrics::roc_curve(yv, sv, wv, drop);
        }
        return py::make_tuple(vec(std::move(c.fpr)), vec(std::move(c.tpr)),
                              vec(std::move(c.thresholds)));
      },
      py::arg("y_true"), py::arg("y_score"), py::arg("sample_weight"),
      py::arg("drop_intermediate"));

  // The counts behind every binary curve (scikit-learn's _binary_clf_curve), for the curves
  // Python assembles itself (det_curve, confusion_matrix_at_thresholds): (fps, tps, thresholds,
  // scale exponent), scores decreasing; the counts are the true sums times 2^exponent.
  m.def(
      "ranking_operating_points",
      [](const Array<std::uint8_t>& y, const Array<double>& s,
         const std::optional<Array<double>>& w) {
        auto yv = view_1d(y, "y_true");
        auto sv = view_1d(s, "y_score");
        auto wv = optional_view(w, "sample_weight");
        metrics::OperatingPoints points;
        {
          const WithoutGil without_gil;
          points = metrics::operating_points(yv, sv, wv);
        }
        return py::make_tuple(vec(std::move(points.fp)), vec(std::move(points.tp)),
                              vec(std::move(points.threshold)), points.scale_exponent);
      },
      py::arg("y_true"), py::arg("y_score"), py::arg("sample_weight"));
}

/// Average precision (every convention), binary and multilabel.
void register_average_precision(py::module_& m) {
  m.def(
      "ranking_average_precision",
      [](const Array<std::uint8_t>& y, const Array<double>& s,
         const std::optional<Array<double>>& w, const std::string& method, const std::string& grid,
         const std::string& tie_mode, std::optional<double> n_pos) {
        auto yv = view_1d(y, "y_true");
        auto sv = view_1d(s, "y_score");
        auto wv = optional_view(w, "sample_weight");
        const ApParams p = make_params(method, grid, tie_mode, n_pos);
        const WithoutGil without_gil;
        return metrics::average_precision(yv, sv, wv, p);
      },
      py::arg("y_true"), py::arg("y_score"), py::arg("sample_weight"), py::arg("method"),
      py::arg("grid"), py::arg("tie_mode"), py::arg("n_pos"));

  m.def(
      "ranking_average_precision_multilabel",
      [](const Array<std::uint8_t>& y, const Array<double>& s,
         const std::optional<Array<double>>& w, const std::string& average,
         const std::string& method, const std::string& grid, const std::string& tie_mode,
         std::optional<double> n_pos) {
        std::size_t k = 0;
        std::size_t k_score = 0;
        auto yv = view_2d(y, "y_true", k);
        auto sv = view_2d(s, "y_score", k_score);
        if (k != k_score) fail("y_true has {} columns but y_score has {}", k, k_score);
        auto wv = optional_view(w, "sample_weight");
        const ApParams p = make_params(method, grid, tie_mode, n_pos);
        const auto avg = metrics::parse_score_average(average);
        std::vector<double> out;
        {
          const WithoutGil without_gil;
          out = metrics::average_precision_multilabel(yv, sv, k, wv, avg, p);
        }
        return vec(std::move(out));
      },
      py::arg("y_true"), py::arg("y_score"), py::arg("sample_weight"), py::arg("average"),
      py::arg("method"), py::arg("grid"), py::arg("tie_mode"), py::arg("n_pos"));
}

/// ROC AUC: binary, multilabel and multiclass (OvR / OvO).
void register_roc_auc(py::module_& m) {
  m.def(
      "ranking_roc_auc",
      [](const Array<std::uint8_t>& y, const Array<double>& s,
         const std::optional<Array<double>>& w, std::optional<double> max_fpr) {
        auto yv = view_1d(y, "y_true");
        auto sv = view_1d(s, "y_score");
        auto wv = optional_view(w, "sample_weight");
        const WithoutGil without_gil;
        return metrics::roc_auc(yv, sv, wv, max_fpr);
      },
      py::arg("y_true"), py::arg("y_score"), py::arg("sample_weight"), py::arg("max_fpr"));

  m.def(
      "ranking_roc_auc_multilabel",
      [](const Array<std::uint8_t>& y, const Array<double>& s,
         const std::optional<Array<double>>& w, const std::string& average,
         std::optional<double> max_fpr) {
        std::size_t k = 0;
        std::size_t k_score = 0;
        auto yv = view_2d(y, "y_true", k);
        auto sv = view_2d(s, "y_score", k_score);
        if (k != k_score) fail("y_true has {} columns but y_score has {}", k, k_score);
        auto wv = optional_view(w, "sample_weight");
        const auto avg = metrics::parse_score_average(average);
        std::vector<double> out;
        {
          const WithoutGil without_gil;
          out = metrics::roc_auc_multilabel(yv, sv, k, wv, avg, max_fpr);
        }
        return vec(std::move(out));
      },
      py::arg("y_true"), py::arg("y_score"), py::arg("sample_weight"), py::arg("average"),
      py::arg("max_fpr"));

  m.def(
      "ranking_roc_auc_multiclass",
      [](const Array<std::int32_t>& y, const Array<double>& s,
         const std::optional<Array<double>>& w, const std::string& average,
         const std::string& multi_class) {
        std::size_t k = 0;
        auto yv = view_1d(y, "y_true");
        auto sv = view_2d(s, "y_score", k);
        auto wv = optional_view(w, "sample_weight");
        const auto avg = metrics::parse_score_average(average);
        const auto mc = metrics::parse_multi_class(multi_class);
        std::vector<double> out;
        {
          const WithoutGil without_gil;
          out = metrics::roc_auc_multiclass(yv, sv, k, wv, avg, mc);
        }
        return vec(std::move(out));
      },
      py::arg("y_true"), py::arg("y_score"), py::arg("sample_weight"), py::arg("average"),
      py::arg("multi_class"));
}

/// Interpolated precision and mean average precision over classes.
void register_mean_average_precision(py::module_& m) {
  m.def(
      "ranking_interpolated_precision",
      [](const Array<double>& p, const Array<double>& r) {
        return vec(metrics::interpolated_precision(view_1d(p, "precision"), view_1d(r, "recall")));
      },
      py::arg("precision"), py::arg("recall"));

  m.def(
      "ranking_mean_average_precision",
      [](const Array<std::uint8_t>& y, const Array<double>& s,
         const std::optional<Array<double>>& w, const std::string& method, const std::string& grid,
         const std::string& tie_mode) {
        std::size_t k = 0;
        std::size_t k_score = 0;
        auto yv = view_2d(y, "y_true", k);
        auto sv = view_2d(s, "y_score", k_score);
        if (k != k_score) fail("y_true has {} columns but y_score has {}", k, k_score);
        auto wv = optional_view(w, "sample_weight");
        const ApParams p = make_params(method, grid, tie_mode, std::nullopt);
        metrics::MeanApResult r;
        {
          const WithoutGil without_gil;
          r = metrics::mean_average_precision(yv, sv, k, wv, p);
        }
        return py::make_tuple(r.map, vec(std::move(r.per_class)), r.excluded);
      },
      py::arg("y_true"), py::arg("y_score"), py::arg("sample_weight"), py::arg("method"),
      py::arg("grid"), py::arg("tie_mode"));
}

/// DeLong's test of two ROC AUCs and the comparison of two PR curves.
void register_curve_tests(py::module_& m) {
  m.def(
      "ranking_delong_roc_test",
      [](const Array<std::uint8_t>& y, const Array<double>& a, const Array<double>& b) {
        auto yv = view_1d(y, "y_true");
        auto av = view_1d(a, "score_a");
        auto bv = view_1d(b, "score_b");
        metrics::DelongResult r;
        {
          const WithoutGil without_gil;
          r = metrics::delong_roc_test(yv, av, bv);
        }
        std::vector<double> cov = {r.covariance[0][0], r.covariance[0][1], r.covariance[1][0],
                                   r.covariance[1][1]};
        py::dict d;
        d["auc_a"] = r.auc_a;
        d["auc_b"] = r.auc_b;
        d["covariance"] = to_numpy_2d(std::move(cov), 2, 2);
        d["z"] = r.z;
        d["p_value"] = r.p_value;
        return d;
      },
      py::arg("y_true"), py::arg("score_a"), py::arg("score_b"));

  m.def(
      "ranking_compare_pr_curves",
      [](const Array<std::uint8_t>& y, const Array<double>& a, const Array<double>& b,
         const std::string& method, const std::string& grid, const std::string& tie_mode) {
        auto yv = view_1d(y, "y_true");
        auto av = view_1d(a, "score_a");
        auto bv = view_1d(b, "score_b");
        const ApParams p = make_params(method, grid, tie_mode, std::nullopt);
        metrics::PrComparison r;
        {
          const WithoutGil without_gil;
          r = metrics::compare_pr_curves(yv, av, bv, p);
        }
        py::dict d;
        d["dominant"] =
            r.dominant.empty() ? py::object(py::none()) : py::object(py::str(r.dominant));
        d["crossings"] = vec(std::move(r.crossings));
        d["ap_a"] = r.ap_a;
        d["ap_b"] = r.ap_b;
        return d;
      },
      py::arg("y_true"), py::arg("score_a"), py::arg("score_b"), py::arg("method"), py::arg("grid"),
      py::arg("tie_mode"));
}

/// RankedScores: the sorted scores, for resampling without sorting again.
void register_ranked_scores(py::module_& m) {
  // The sorted structure, for resampling without re-sorting (weights in original order).
  py::class_<metrics::RankedScores>(m, "RankedScores")
      .def(py::init([](const Array<std::uint8_t>& y, const Array<double>& s) {
             auto yv = view_1d(y, "y_true");
             auto sv = view_1d(s, "y_score");
             const WithoutGil without_gil;
             return std::make_unique<metrics::RankedScores>(yv, sv);
           }),
           py::arg("y_true"), py::arg("y_score"))
      .def("__len__", &metrics::RankedScores::size)
      .def(
          "roc_auc",
          [](const metrics::RankedScores& r, const std::optional<Array<double>>& w,
             std::optional<double> max_fpr) {
            auto wv = optional_view(w, "sample_weight");
            const WithoutGil without_gil;
            return r.roc_auc(wv, max_fpr);
          },
          py::arg("sample_weight") = py::none(), py::arg("max_fpr") = py::none())
      .def(
          "average_precision",
          [](const metrics::RankedScores& r, const std::optional<Array<double>>& w,
             const std::string& method, const std::string& grid, const std::string& tie_mode,
             std::optional<double> n_pos) {
            auto wv = optional_view(w, "sample_weight");
            const ApParams p = make_params(method, grid, tie_mode, n_pos);
            const WithoutGil without_gil;
            return r.average_precision(wv, p);
          },
          py::arg("sample_weight") = py::none(), py::arg("method") = "step",
          py::arg("grid") = "exact", py::arg("tie_mode") = "group", py::arg("n_pos") = py::none());
}

}  // namespace

void bind_ranking(py::module_& m) {
  m.def(
      "_parse_score_average", [](const std::string& name) { metrics::parse_score_average(name); },
      py::arg("name"),
      "metrics::parse_score_average's rule: none, micro, macro, weighted, samples.");
  register_curves(m);
  register_average_precision(m);
  register_roc_auc(m);
  register_mean_average_precision(m);
  register_curve_tests(m);
  register_ranked_scores(m);
}

}  // namespace assay::python

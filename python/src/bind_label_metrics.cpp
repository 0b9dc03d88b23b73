// Bindings for the label and ranking metrics added for scikit-learn parity: label inspection,
// per-label 2x2 matrices, Jaccard, Hamming, kappa, likelihood ratios, hinge loss, top-k
// accuracy, DET curve, trapezoid area, multilabel ranking metrics and DCG. Private to
// assay.metrics (prefixed "lm_"); the GIL is released while computing.
#include <optional>

#include "assay/metrics/calibration.hpp"
#include "assay/metrics/classification.hpp"
#include "assay/metrics/confusion.hpp"
#include "assay/metrics/label_ranking.hpp"
#include "assay/metrics/labels.hpp"
#include "assay/metrics/ranking.hpp"
#include "bindings.hpp"

namespace assay::python {
namespace {

using Codes = Array<std::int32_t>;
using Weights = std::optional<Array<double>>;
using Indicator = Array<std::uint8_t>;

std::span<const double> weights_view(const Weights& w) {
  if (!w) return {};
  return view_1d(*w, "sample_weight");
}

// A C-order 2-D array as (flat span, columns).
template <typename T>
std::pair<std::span<const T>, std::size_t> matrix(const Array<T>& a, const char* what) {
  if (a.ndim() != 2) fail("{} must be a 2-D array, found {} dimensions", what, a.ndim());
  return {{a.data(), static_cast<std::size_t>(a.size())}, static_cast<std::size_t>(a.shape(1))};
}

// (matched weight, total weight, matched / total, mismatched / total) of two raw label arrays
// compared value by value.
template <typename T>
py::tuple agreement(const Array<T>& t, const Array<T>& p, const Weights& w) {
  auto vt = view_1d(t, "y_true");
  auto vp = view_1d(p, "y_pred");
  auto vw = weights_view(w);
  metrics::LabelAgreement r;
  {
    const WithoutGil without_gil;
    r = metrics::label_agreement(vt, vp, vw);
  }
  return py::make_tuple(r.matched, r.total, r.fraction, r.mismatch_fraction);
}

metrics::LabelCounts counts_of(const Codes& t, const Codes& p, std::int32_t k, const Codes& select,
                               const Weights& w) {
  auto counts =
      metrics::label_counts(view_1d(t, "y_true"), view_1d(p, "y_pred"), k, weights_view(w));
  return metrics::select_counts(counts, view_1d(select, "labels"));
}

py::array_t<double> matrices_2x2(std::vector<double>&& flat) {
  const std::size_t m = flat.size() / 4;
  auto out = to_numpy(std::move(flat));
  return out.reshape({static_cast<py::ssize_t>(m), py::ssize_t{2}, py::ssize_t{2}});
}

metrics::DcgParams dcg_params(std::optional<std::size_t> k, double log_base, bool ignore_ties) {
  metrics::DcgParams p;
  p.k = k;
  p.log_base = log_base;
  p.ignore_ties = ignore_ties;
  return p;
}

void bind_label_parts(py::module_& m) {
  m.def("cls_inspect_float_labels", [](const Array<double>& values) {
    auto v = view_1d(values, "y");
    metrics::FloatLabelCheck r;
    {
      const WithoutGil without_gil;
      r = metrics::inspect_float_labels(v);
    }
    return py::make_tuple(r.first_nan, r.first_inf, r.integral);
  });

  m.def("lm_confusion_matrix_integer",
        [](const Codes& t, const Codes& p, std::int32_t k, const Array<std::int64_t>& w) {
          auto vt = view_1d(t, "y_true");
          auto vp = view_1d(p, "y_pred");
          auto vw = view_1d(w, "sample_weight");
          std::vector<std::int64_t> out;
          {
            const WithoutGil without_gil;
            out = metrics::confusion_matrix_integer(vt, vp, k, vw);
          }
          const auto kk = static_cast<std::size_t>(k);
          return to_numpy_2d(std::move(out), kk, kk);
        });

  m.def("lm_multiclass_confusion_2x2", [](const Codes& t, const Codes& p, std::int32_t k,
                                          const Codes& select, const Weights& w, double total) {
    auto counts = counts_of(t, p, k, select, w);
    const double totals[] = {total};
    return matrices_2x2(metrics::multilabel_confusion_matrix(counts, totals));
  });

  m.def("lm_multilabel_confusion_2x2", [](const Indicator& t, const Indicator& p, const Weights& w,
                                          bool samplewise, double total) {
    auto [vt, l] = matrix(t, "y_true");
    auto [vp, l2] = matrix(p, "y_pred");
    check_same_length(l, l2, "y_true columns", "y_pred columns");
    auto vw = weights_view(w);
    std::vector<double> out;
    {
      const WithoutGil without_gil;
      if (samplewise) {
        out = metrics::samplewise_confusion_matrix(vt, vp, l, vw);
      } else {
        auto counts = metrics::multilabel_counts(vt, vp, l, vw, false);
        const double totals[] = {total};
        out = metrics::multilabel_confusion_matrix(counts, totals);
      }
    }
    return matrices_2x2(std::move(out));
  });

  m.def("lm_jaccard_multiclass",
        [](const Codes& t, const Codes& p, std::int32_t k, const Codes& select, const Weights& w,
           const std::string& average, const std::string& zd) {
          auto counts = counts_of(t, p, k, select, w);
          return to_numpy(metrics::jaccard_score(counts, metrics::parse_average(average),
                                                 metrics::parse_zero_division(zd)));
        });

  m.def("lm_jaccard_multilabel", [](const Indicator& t, const Indicator& p, const Weights& w,
                                    const std::string& average, const std::string& zd) {
    auto [vt, l] = matrix(t, "y_true");
    auto [vp, l2] = matrix(p, "y_pred");
    check_same_length(l, l2, "y_true columns", "y_pred columns");
    auto vw = weights_view(w);
    const auto avg = metrics::parse_average(average);
    const bool samplewise = avg == metrics::Average::samples;
    auto counts = metrics::multilabel_counts(vt, vp, l, vw, samplewise);
    return to_numpy(metrics::jaccard_score(counts, avg, metrics::parse_zero_division(zd), vw));
  });

  m.def("lm_hamming_multilabel", [](const Indicator& t, const Indicator& p, const Weights& w) {
    auto [vt, l] = matrix(t, "y_true");
    auto [vp, l2] = matrix(p, "y_pred");
    check_same_length(l, l2, "y_true columns", "y_pred columns");
    auto vw = weights_view(w);
    const WithoutGil without_gil;
    return metrics::hamming_loss(vt, vp, l, vw);
  });

  // (matched weight, total weight, fractions matched and mismatched) from raw numeric labels.
  m.def("lm_agreement_i64", &agreement<std::int64_t>);
  m.def("lm_agreement_f64", &agreement<double>);

  m.def("lm_mismatch_rate", [](const Codes& t, const Codes& p, const Weights& w) {
    auto vt = view_1d(t, "y_true");
    auto vp = view_1d(p, "y_pred");
    auto vw = weights_view(w);
    const WithoutGil without_gil;
    return metrics::mismatch_rate(vt, vp, vw);
  });

  m.def("lm_cohen_kappa", [](const Array<double>& confusion, const std::string& weights) {
    auto [v, k] = matrix(confusion, "confusion");
    return metrics::cohen_kappa(v, k, metrics::parse_kappa_weights(weights));
  });

  m.def("lm_log_loss_indicator", [](const Indicator& t, const Array<double>& p, double eps,
                                    bool normalize, const Weights& w) {
    auto [vt, l] = matrix(t, "y_true");
    auto [vp, l2] = matrix(p, "y_pred");
    if (l != l2) fail("y_true and y_pred have different shape");
    auto vw = weights_view(w);
    const WithoutGil without_gil;
    return metrics::log_loss_indicator(vt, vp, l, eps, normalize, vw);
  });

  m.def("lm_likelihood_ratios", [](const Array<double>& confusion, bool warn_undefined) {
    auto v = std::span<const double>(confusion.data(), static_cast<std::size_t>(confusion.size()));
    auto r = metrics::class_likelihood_ratios(v, warn_undefined);
    return py::make_tuple(r.positive, r.negative);
  });
}

void bind_score_parts(py::module_& m) {
  m.def("lm_hinge_binary",
        [](const Codes& t, std::int32_t positive, const Array<double>& d, const Weights& w) {
          auto vt = view_1d(t, "y_true");
          auto vd = view_1d(d, "pred_decision");
          auto vw = weights_view(w);
          const WithoutGil without_gil;
          return metrics::hinge_loss_binary(vt, positive, vd, vw);
        });

  m.def("lm_hinge_multiclass", [](const Codes& t, const Array<double>& d, const Weights& w) {
    auto vt = view_1d(t, "y_true");
    auto [vd, k] = matrix(d, "pred_decision");
    auto vw = weights_view(w);
    const WithoutGil without_gil;
    return metrics::hinge_loss_multiclass(vt, vd, k, vw);
  });

  m.def("lm_top_k_accuracy", [](const Codes& t, const Array<double>& s, std::size_t k,
                                bool normalize, const Weights& w) {
    auto vt = view_1d(t, "y_true");
    auto [vs, classes] = matrix(s, "y_score");
    auto vw = weights_view(w);
    const WithoutGil without_gil;
    return metrics::top_k_accuracy(vt, vs, classes, k, normalize, vw);
  });

  m.def("lm_top_1_accuracy_binary", [](const Codes& t, const Array<double>& s, double threshold,
                                       bool normalize, const Weights& w) {
    auto vt = view_1d(t, "y_true");
    auto vs = view_1d(s, "y_score");
    auto vw = weights_view(w);
    const WithoutGil without_gil;
    return metrics::top_1_accuracy_binary(vt, vs, threshold, normalize, vw);
  });

  m.def("lm_det_curve", [](const Array<std::uint8_t>& y, const Array<double>& s, const Weights& w) {
    auto vy = view_1d(y, "y_true");
    auto vs = view_1d(s, "y_score");
    auto vw = weights_view(w);
    metrics::DetCurve c;
    {
      const WithoutGil without_gil;
      c = metrics::det_curve(vy, vs, vw);
    }
    return py::make_tuple(to_numpy(std::move(c.fpr)), to_numpy(std::move(c.fnr)),
                          to_numpy(std::move(c.thresholds)));
  });

  m.def("lm_trapezoid_area", [](const Array<double>& x, const Array<double>& y) {
    return metrics::trapezoid_area(view_1d(x, "x"), view_1d(y, "y"));
  });
}

void bind_label_ranking(py::module_& m) {
  // name: "coverage" | "lrap" | "ranking_loss"
  m.def("lm_multilabel_ranking",
        [](const std::string& name, const Indicator& t, const Array<double>& s, const Weights& w) {
          auto [vt, l] = matrix(t, "y_true");
          auto [vs, l2] = matrix(s, "y_score");
          if (l != l2) fail("y_true and y_score have different shape");
          auto vw = weights_view(w);
          const WithoutGil without_gil;
          if (name == "coverage") return metrics::coverage_error(vt, vs, l, vw);
          if (name == "lrap") return metrics::label_ranking_average_precision(vt, vs, l, vw);
          return metrics::label_ranking_loss(vt, vs, l, vw);
        });

  m.def("lm_dcg", [](const Array<double>& t, const Array<double>& s, std::optional<std::size_t> k,
                     double log_base, bool ignore_ties, bool normalized, const Weights& w) {
    auto [vt, l] = matrix(t, "y_true");
    auto [vs, l2] = matrix(s, "y_score");
    if (l != l2) fail("y_true and y_score have different shape");
    auto vw = weights_view(w);
    const auto params = dcg_params(k, log_base, ignore_ties);
    const WithoutGil without_gil;
    auto per_sample = normalized ? metrics::ndcg_per_sample(vt, vs, l, params)
                                 : metrics::dcg_per_sample(vt, vs, l, params);
    return metrics::average_samples(per_sample, vw);
  });
}

}  // namespace

void bind_label_metrics(py::module_& m) {
  bind_label_parts(m);
  bind_score_parts(m);
  bind_label_ranking(m);
}

}  // namespace assay::python

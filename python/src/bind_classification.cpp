// Bindings for label encoding, confusion matrices, P/R/F, accuracy, thresholds, calibration.
// Functions are private to assay._classification (prefixed "cls_"); the GIL is released while
// computing.
#include <optional>

#include "assay/metrics/calibration.hpp"
#include "assay/metrics/classification.hpp"
#include "assay/metrics/confusion.hpp"
#include "assay/metrics/labels.hpp"
#include "assay/metrics/scaled_weights.hpp"
#include "bindings.hpp"

namespace assay::python {
namespace {

using metrics::LabelCounts;
using Codes = Array<std::int32_t>;
using Weights = std::optional<Array<double>>;

std::span<const double> weights_view(const Weights& w) {
  if (!w) return {};
  return view_1d(*w, "sample_weight");
}

// n x L indicator matrix as bytes; returns the span and L.
std::pair<std::span<const std::uint8_t>, std::size_t> indicator_view(const Array<std::uint8_t>& a,
                                                                     const char* what) {
  if (a.ndim() != 2) fail("{} must be a 2-D indicator matrix, found {} dimensions", what, a.ndim());
  return {{a.data(), static_cast<std::size_t>(a.size())}, static_cast<std::size_t>(a.shape(1))};
}

std::pair<std::span<const double>, std::size_t> matrix_view(const Array<double>& a,
                                                            const char* what) {
  if (a.ndim() == 1) return {{a.data(), static_cast<std::size_t>(a.size())}, 1};
  if (a.ndim() != 2) fail("{} must be 1-D or 2-D, found {} dimensions", what, a.ndim());
  return {{a.data(), static_cast<std::size_t>(a.size())}, static_cast<std::size_t>(a.shape(1))};
}

metrics::PrfParams prf_params(double beta, const std::string& average, const std::string& zd,
                              bool wp, bool wr, bool wf) {
  metrics::PrfParams p;
  p.beta = beta;
  p.average = metrics::parse_average(average);
  p.zero_division = metrics::parse_zero_division(zd);
  p.warn_precision = wp;
  p.warn_recall = wr;
  p.warn_fscore = wf;
  return p;
}

py::tuple prf_to_python(metrics::PrfResult&& r) {
  if (r.support.empty() && r.precision.size() == 1) {
    return py::make_tuple(r.precision[0], r.recall[0], r.fscore[0], py::none());
  }
  return py::make_tuple(to_numpy(std::move(r.precision)), to_numpy(std::move(r.recall)),
                        to_numpy(std::move(r.fscore)), to_numpy(std::move(r.support)));
}

py::dict calibration_to_python(metrics::CalibrationResult&& r) {
  py::dict bins;
  bins["lower"] = to_numpy(std::move(r.bins.lower));
  bins["upper"] = to_numpy(std::move(r.bins.upper));
  bins["count"] = to_numpy(std::move(r.bins.count));
  bins["accuracy"] = to_numpy(std::move(r.bins.accuracy));
  bins["confidence"] = to_numpy(std::move(r.bins.confidence));
  py::dict out;
  out["error"] = r.error;
  out["bins"] = bins;
  return out;
}

template <typename T>
py::tuple encode_pair(const Array<T>& a, const Array<T>& b, const std::string& na,
                      const std::string& nb) {
  auto va = view_1d(a, na.c_str());
  auto vb = view_1d(b, nb.c_str());
  metrics::EncodedLabels<T> e;
  {
    const WithoutGil without_gil;
    e = metrics::encode_labels<T>(va, vb, na.c_str(), nb.c_str());
  }
  return py::make_tuple(to_numpy(std::move(e.classes)), to_numpy(std::move(e.codes)),
                        to_numpy(std::move(e.codes2)));
}

template <typename T>
py::array_t<std::int32_t> encode_listed(const Array<T>& values, const Array<T>& classes,
                                        const std::string& name) {
  auto v = view_1d(values, name.c_str());
  auto c = view_1d(classes, "labels");
  std::vector<std::int32_t> out;
  {
    const WithoutGil without_gil;
    out = metrics::encode_with_classes<T>(v, c, name.c_str());
  }
  return to_numpy(std::move(out));
}

}  // namespace

namespace {

/// Class codes from labels, and the shared length check.
void register_label_encoding(py::module_& m) {
  m.def("cls_encode_i64", &encode_pair<std::int64_t>);
  m.def("cls_encode_f64", &encode_pair<double>);
  m.def("cls_encode_listed_i64", &encode_listed<std::int64_t>);
  m.def("cls_encode_listed_f64", &encode_listed<double>);
  m.def("cls_check_same_length", [](std::size_t a, std::size_t b, const std::string& na,
                                    const std::string& nb) { check_same_length(a, b, na, nb); });
}

/// Confusion matrices: plain, straight from small integer labels, grouped.
void register_confusion_matrices(py::module_& m) {
  m.def("cls_confusion_matrix", [](const Codes& t, const Codes& p, std::int32_t k, const Weights& w,
                                   const std::string& normalize) {
    auto vt = view_1d(t, "y_true");
    auto vp = view_1d(p, "y_pred");
    auto vw = weights_view(w);
    auto norm = metrics::parse_normalize(normalize);
    std::vector<double> out;
    {
      const WithoutGil without_gil;
      out = metrics::confusion_matrix(vt, vp, k, vw, norm);
    }
    const auto kk = static_cast<std::size_t>(k);
    return to_numpy_2d(std::move(out), kk, kk);
  });

  m.def("cls_confusion_matrix_direct",
        [](const Array<std::int64_t>& t, const Array<std::int64_t>& p, const Weights& w,
           const std::string& normalize) -> py::object {
          auto vt = view_1d(t, "y_true");
          auto vp = view_1d(p, "y_pred");
          auto vw = weights_view(w);
          auto norm = metrics::parse_normalize(normalize);
          std::vector<std::int64_t> classes;
          std::vector<double> matrix;
          bool done = false;
          {
            const WithoutGil without_gil;
            done = metrics::confusion_matrix_direct(vt, vp, vw, norm, classes, matrix);
          }
          if (!done) return py::none();
          const std::size_t k = classes.size();
          return py::make_tuple(to_numpy(std::move(classes)), to_numpy_2d(std::move(matrix), k, k));
        });

  m.def("cls_grouped_confusion_matrix", [](const Codes& t, const Codes& p, const Codes& rows,
                                           const Codes& cols, std::int32_t nr, std::int32_t nc,
                                           const Weights& w) {
    auto out = metrics::grouped_confusion_matrix(
        view_1d(t, "y_true"), view_1d(p, "y_pred"), view_1d(rows, "row_groups"),
        view_1d(cols, "col_groups"), nr, nc, weights_view(w));
    return to_numpy_2d(std::move(out), static_cast<std::size_t>(nr), static_cast<std::size_t>(nc));
  });
}

/// Precision, recall and F-beta: multiclass, direct, multilabel.
void register_precision_recall_f(py::module_& m) {
  m.def("cls_prf_multiclass",
        [](const Codes& t, const Codes& p, std::int32_t k, const Codes& select, const Weights& w,
           double beta, const std::string& average, const std::string& zd, bool wp, bool wr,
           bool wf) {
          auto vt = view_1d(t, "y_true");
          auto vp = view_1d(p, "y_pred");
          auto vs = view_1d(select, "labels");
          auto vw = weights_view(w);
          auto params = prf_params(beta, average, zd, wp, wr, wf);
          metrics::PrfResult r;
          {
            const WithoutGil without_gil;
            auto counts = metrics::select_counts(metrics::label_counts(vt, vp, k, vw), vs);
            r = metrics::precision_recall_fscore(counts, params);
          }
          return prf_to_python(std::move(r));
        });

  // Same as cls_prf_multiclass with all classes, straight from small-range integer labels;
  // None when the range is too wide.
  m.def("cls_prf_direct",
        [](const Array<std::int64_t>& t, const Array<std::int64_t>& p, const Weights& w,
           double beta, const std::string& average, const std::string& zd, bool wp, bool wr,
           bool wf) -> py::object {
          auto vt = view_1d(t, "y_true");
          auto vp = view_1d(p, "y_pred");
          auto vw = weights_view(w);
          auto params = prf_params(beta, average, zd, wp, wr, wf);
          std::vector<std::int64_t> classes;
          std::vector<double> matrix;
          metrics::PrfResult r;
          {
            const WithoutGil without_gil;
            // Counts of rescaled weights (the matrix's cells would overflow for 1e308 weights);
            // the support is unscaled by the counts' exponent.
            const metrics::ScaledWeights scaled(vw);
            if (!metrics::confusion_matrix_direct(vt, vp, scaled.span(), metrics::Normalize::none,
                                                  classes, matrix)) {
              return py::none();
            }
            auto counts = metrics::label_counts_from_confusion(matrix, classes.size());
            counts.scale_exponent += scaled.exponent();
            r = metrics::precision_recall_fscore(counts, params);
          }
          return py::make_tuple(to_numpy(std::move(classes)), prf_to_python(std::move(r)));
        });

  m.def("cls_prf_multilabel", [](const Array<std::uint8_t>& t, const Array<std::uint8_t>& p,
                                 const Weights& w, double beta, const std::string& average,
                                 const std::string& zd, bool wp, bool wr, bool wf) {
    auto [vt, l] = indicator_view(t, "y_true");
    auto [vp, l2] = indicator_view(p, "y_pred");
    check_same_length(l, l2, "y_true columns", "y_pred columns");
    auto vw = weights_view(w);
    auto params = prf_params(beta, average, zd, wp, wr, wf);
    metrics::PrfResult r;
    {
      const WithoutGil without_gil;
      const bool samplewise = params.average == metrics::Average::samples;
      auto counts = metrics::multilabel_counts(vt, vp, l, vw, samplewise);
      r = metrics::precision_recall_fscore(counts, params, vw);
    }
    return prf_to_python(std::move(r));
  });
}

/// Accuracy (multiclass and multilabel), balanced accuracy, MCC, binary rates.
void register_accuracies(py::module_& m) {
  m.def("cls_accuracy", [](const Codes& t, const Codes& p, std::int32_t k,
                           const std::string& average, bool normalize, const Weights& w,
                           const std::optional<Array<double>>& class_weight) {
    metrics::AccuracyParams params;
    if (average == "micro") {
      params.average = metrics::AccuracyAverage::micro;
    } else if (average == "macro") {
      params.average = metrics::AccuracyAverage::macro;
    } else if (average == "weighted") {
      params.average = metrics::AccuracyAverage::weighted;
    } else {
      fail("average must be 'micro', 'macro' or 'weighted', found {}", quote_found(average));
    }
    params.normalize = normalize;
    auto cw = class_weight ? view_1d(*class_weight, "class_weight") : std::span<const double>{};
    auto vt = view_1d(t, "y_true");
    auto vp = view_1d(p, "y_pred");
    auto vw = weights_view(w);
    const WithoutGil without_gil;
    return metrics::accuracy_score(vt, vp, k, params, vw, cw);
  });

  m.def("cls_multilabel_accuracy", [](const Array<std::uint8_t>& t, const Array<std::uint8_t>& p,
                                      bool normalize, const Weights& w) {
    auto [vt, l] = indicator_view(t, "y_true");
    auto [vp, l2] = indicator_view(p, "y_pred");
    check_same_length(l, l2, "y_true columns", "y_pred columns");
    return metrics::multilabel_accuracy(vt, vp, l, normalize, weights_view(w));
  });

  m.def("cls_balanced_accuracy",
        [](const Codes& t, const Codes& p, std::int32_t k, const Weights& w, bool adjusted) {
          return metrics::balanced_accuracy_score(view_1d(t, "y_true"), view_1d(p, "y_pred"), k,
                                                  weights_view(w), adjusted);
        });

  m.def("cls_matthews_corrcoef",
        [](const Codes& t, const Codes& p, std::int32_t k, const Weights& w) {
          return metrics::matthews_corrcoef(view_1d(t, "y_true"), view_1d(p, "y_pred"), k,
                                            weights_view(w));
        });

  m.def("cls_binary_rates",
        [](const Codes& t, const Codes& p, std::int32_t positive, const Weights& w) {
          auto r = metrics::binary_rates(view_1d(t, "y_true"), view_1d(p, "y_pred"), positive,
                                         weights_view(w));
          py::dict d;
          d["tp"] = r.tp;
          d["fp"] = r.fp;
          d["tn"] = r.tn;
          d["fn"] = r.fn;
          d["recall"] = r.recall;
          d["precision"] = r.precision;
          d["specificity"] = r.specificity;
          d["fpr"] = r.fpr;
          d["fnr"] = r.fnr;
          d["fdr"] = r.fdr;
          d["npv"] = r.npv;
          d["accuracy"] = r.accuracy;
          d["f1"] = r.f1;
          d["mcc"] = r.mcc;
          return d;
        });
}

/// Predicted labels from scores: threshold, argmax, one-vs-all.
void register_decisions(py::module_& m) {
  m.def("cls_threshold", [](const Array<double>& s, double t) {
    auto out = metrics::threshold_scores(view_1d(s, "y_score"), t);
    return to_numpy(std::move(out));
  });
  m.def("cls_argmax", [](const Array<double>& s) {
    auto [v, k] = matrix_view(s, "y_score");
    return to_numpy(metrics::argmax_rows(v, k));
  });
  m.def("cls_one_vs_all", [](const Array<double>& s, double t) {
    auto [v, k] = matrix_view(s, "y_score");
    return to_numpy_2d(metrics::one_vs_all(v, k, t), v.size() / k, k);
  });
}

/// Calibration error, Brier score and log loss of probabilities.
void register_probability_losses(py::module_& m) {
  m.def("cls_calibration_error", [](const Codes& t, const Array<double>& prob,
                                    std::int32_t positive, const std::string& multiclass,
                                    std::int32_t bins, const std::string& strategy,
                                    const std::string& norm, const Weights& w) {
    metrics::CalibrationParams params;
    params.bins = bins;
    params.strategy = metrics::parse_bin_strategy(strategy);
    params.norm = metrics::parse_calibration_norm(norm);
    auto vt = view_1d(t, "y_true");
    auto vw = weights_view(w);
    if (prob.ndim() == 1) {
      auto vp = view_1d(prob, "y_prob");
      metrics::CalibrationResult r;
      {
        const WithoutGil without_gil;
        r = metrics::calibration_error_binary(vt, positive, vp, params, vw);
      }
      return py::object(calibration_to_python(std::move(r)));
    }
    auto [vp, k] = matrix_view(prob, "y_prob");
    if (multiclass == "top_label") {
      metrics::CalibrationResult r;
      {
        const WithoutGil without_gil;
        r = metrics::calibration_error_top_label(vt, vp, k, params, vw);
      }
      return py::object(calibration_to_python(std::move(r)));
    }
    if (multiclass != "classwise") {
      fail("multiclass must be 'top_label' or 'classwise', found {}", quote_found(multiclass));
    }
    std::vector<metrics::CalibrationResult> rs;
    {
      const WithoutGil without_gil;
      rs = metrics::calibration_error_classwise(vt, vp, k, params, vw);
    }
    py::list out;
    for (auto& r : rs) out.append(calibration_to_python(std::move(r)));
    return py::object(out);
  });

  m.def("cls_brier_score_loss",
        [](const Codes& t, std::int32_t positive, const Array<double>& p, const Weights& w) {
          return metrics::brier_score_loss(view_1d(t, "y_true"), positive, view_1d(p, "y_prob"),
                                           weights_view(w));
        });

  m.def("cls_log_loss", [](const Codes& t, std::int32_t k, const Array<double>& p, double eps,
                           bool normalize, const Weights& w) {
    auto [vp, cols] = matrix_view(p, "y_pred");
    auto vt = view_1d(t, "y_true");
    auto vw = weights_view(w);
    const WithoutGil without_gil;
    return metrics::log_loss(vt, k, vp, cols, eps, normalize, vw);
  });
}

}  // namespace

void bind_classification(py::module_& m) {
  m.def(
      "_parse_average", [](const std::string& name) { metrics::parse_average(name); },
      py::arg("name"),
      "metrics::parse_average's rule: none, binary, micro, macro, weighted or samples.");
  register_label_encoding(m);
  register_confusion_matrices(m);
  register_precision_recall_f(m);
  register_accuracies(m);
  register_decisions(m);
  register_probability_losses(m);
}

}  // namespace assay::python

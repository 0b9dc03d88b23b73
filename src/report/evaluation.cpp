#include "assay/report/evaluation.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "assay/report/charts.hpp"
#include "report_util.hpp"

namespace assay::report {
namespace {

std::string number(double v, int decimals = 4) {
  if (std::isnan(v)) return std::string(kMissingText);
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::abs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.{}f}", v, decimals);
}

std::string fixed(double v) {
  if (std::isnan(v)) return std::string(kMissingText);
  return fmt::format("{:.4f}", v);
}

// A run's value may be any number (a loss of 1e12, a rate of 1e-9): 4 decimals in the usual
// range, 4 significant digits beyond it (not 300 digits of 1e308).
std::string run_value(double v) {
  const double a = std::abs(v);
  if (std::isfinite(v) && a != 0 && (a >= 1e6 || a < 1e-3)) return fmt::format("{:.4g}", v);
  return fixed(v);
}

// The stable key of a summary metric, as assay compare names the metric: the same key for the
// same idea on binary and multi-class labels ("ROC AUC" and "ROC AUC (one-vs-rest, macro)" are
// both roc_auc), so code can look metrics up without the display label.
std::string summary_id(const std::string& label) {
  static const std::pair<std::string_view, std::string_view> exact[] = {
      {"accuracy", "accuracy"},
      {"balanced accuracy", "balanced_accuracy"},
      {"precision", "precision"},
      {"precision (macro)", "precision_macro"},
      {"recall", "recall"},
      {"recall (macro)", "recall_macro"},
      {"specificity", "specificity"},
      {"F1", "f1"},
      {"F1 (macro)", "f1_macro"},
      {"F1 (weighted)", "f1_weighted"},
      {"MCC", "mcc"},
      {"ROC AUC", "roc_auc"},
      {"ROC AUC (one-vs-rest, macro)", "roc_auc"},
      {"Brier score", "brier"},
      {"log loss", "log_loss"},
      {"ECE", "ece"},
      {"ECE (top label)", "ece"}};
  for (const auto& [from, to] : exact) {
    if (label == from) return std::string(to);
  }
  // "average precision (step)" and "mAP (step)": the method is a parameter, not the metric.
  if (label.starts_with("average precision (") || label.starts_with("mAP ("))
    return "average_precision";
  // A label this table does not know yet: snake_case of its words.
  std::string id;
  for (const char c : label) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      id += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!id.empty() && id.back() != '_') {
      id += '_';
    }
  }
  while (!id.empty() && id.back() == '_') id.pop_back();
  return id;
}

bool has_interval(const metrics::Evaluation& ev) {
  return ev.params.bootstrap.n_resamples > 0;
}

// Display width of UTF-8 text: one per code point (continuation bytes 10xxxxxx do not count),
// so cells such as "1.20±0.30" line up.
std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string pad(const std::string& s, std::size_t width, bool right = false) {
  const std::size_t w = display_width(s);
  if (w >= width) return s;
  return right ? std::string(width - w, ' ') + s : s + std::string(width - w, ' ');
}

std::string render_columns(const std::vector<std::string>& header,
                           std::vector<std::vector<std::string>> rows,
                           std::size_t left_aligned = 1) {
  // One format per column and NaN for missing values, as the pages show them.
  unify_number_columns(rows, left_aligned);
  std::vector<std::size_t> width(header.size());
  for (std::size_t j = 0; j < header.size(); ++j) width[j] = display_width(header[j]);
  for (const auto& r : rows) {
    for (std::size_t j = 0; j < r.size(); ++j) width[j] = std::max(width[j], display_width(r[j]));
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t j = 0; j < cells.size(); ++j) {
      if (j) out += "  ";
      out += pad(cells[j], width[j], j >= left_aligned);
    }
    out += '\n';
  };
  line(header);
  for (const auto& r : rows) line(r);
  return out;
}

std::vector<std::vector<double>> matrix_rows(const metrics::Evaluation& ev) {
  const std::size_t k = ev.classes.size();
  std::vector<std::vector<double>> rows(k, std::vector<double>(k));
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t j = 0; j < k; ++j) rows[i][j] = ev.confusion[i * k + j];
  }
  return rows;
}

std::string describe(const metrics::Evaluation& ev) {
  std::string out = fmt::format("{} samples", ev.n_samples);
  if (ev.weighted) out += fmt::format(" (total weight {})", number(ev.total_weight));
  out += fmt::format(", {} classes", ev.classes.size());
  if (ev.binary) out += fmt::format(", positive class \"{}\"", ev.positive_class);
  out += fmt::format("; predictions: {}", ev.prediction_rule);
  if (has_interval(ev)) {
    const auto& b = ev.params.bootstrap;
    out += fmt::format("; intervals: {:g}% percentile bootstrap, {} resamples, seed {}",
                       100 * b.confidence, b.n_resamples, b.seed);
  }
  return out;
}

std::vector<std::vector<std::string>> summary_rows(const metrics::Evaluation& ev) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : ev.summary) {
    std::vector<std::string> row{e.name, fixed(e.value)};
    if (has_interval(ev)) row.push_back(fmt::format("[{}, {}]", fixed(e.low), fixed(e.high)));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<std::string> summary_header(const metrics::Evaluation& ev) {
  std::vector<std::string> h{"metric", "value"};
  if (has_interval(ev))
    h.push_back(fmt::format("{:g}% interval", 100 * ev.params.bootstrap.confidence));
  return h;
}

std::vector<std::vector<std::string>> class_rows(const metrics::Evaluation& ev, bool scores) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : ev.per_class) {
    std::vector<std::string> row{c.name, fixed(c.precision), fixed(c.recall), fixed(c.f1),
                                 number(c.support)};
    if (scores) {
      row.push_back(fixed(c.roc_auc));
      row.push_back(fixed(c.average_precision));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<std::string> class_header(bool scores) {
  std::vector<std::string> h{"class", "precision", "recall", "F1", "support"};
  if (scores) {
    h.push_back("ROC AUC");
    h.push_back("AP");
  }
  return h;
}

}  // namespace

std::string evaluation_text(const metrics::Evaluation& ev) {
  const bool scores = !ev.pr_curves.empty();
  std::string out = describe(ev) + "\n\n";
  out += render_columns(summary_header(ev), summary_rows(ev));
  out += "\n";
  out += render_columns(class_header(scores), class_rows(ev, scores));
  out += "\nconfusion matrix (rows: true class, columns: predicted class)\n";
  std::vector<std::string> header{"true \\ pred"};
  header.insert(header.end(), ev.classes.begin(), ev.classes.end());
  std::vector<std::vector<std::string>> rows;
  const auto m = matrix_rows(ev);
  for (std::size_t i = 0; i < m.size(); ++i) {
    std::vector<std::string> row{ev.classes[i]};
    for (double v : m[i]) row.push_back(number(v));
    rows.push_back(std::move(row));
  }
  out += render_columns(header, rows);
  for (const auto& note : ev.notes) out += "\nnote: " + note;
  if (!ev.notes.empty()) out += "\n";
  return out;
}

Json evaluation_json(const metrics::Evaluation& ev, bool with_curves) {
  Json j;
  j["n_samples"] = ev.n_samples;
  j["total_weight"] = ev.total_weight;
  j["classes"] = ev.classes;
  j["binary"] = ev.binary;
  j["positive_class"] = ev.binary ? Json(ev.positive_class) : Json(nullptr);
  j["prediction_rule"] = ev.prediction_rule;
  Json summary = Json::object();
  for (const auto& e : ev.summary) {
    summary[e.name] = {
        {"id", summary_id(e.name)}, {"value", e.value}, {"low", e.low}, {"high", e.high}};
  }
  j["summary"] = summary;
  Json per_class = Json::array();
  for (const auto& c : ev.per_class) {
    per_class.push_back({{"class", c.name},
                         {"precision", c.precision},
                         {"recall", c.recall},
                         {"f1", c.f1},
                         {"support", c.support},
                         {"roc_auc", c.roc_auc},
                         {"average_precision", c.average_precision}});
  }
  j["per_class"] = per_class;
  j["confusion_matrix"] = matrix_rows(ev);
  if (ev.calibration) {
    const auto& b = ev.calibration->bins;
    j["calibration"] = {
        {"error", ev.calibration->error},
        {"norm", ev.params.calibration.norm == metrics::CalibrationNorm::l1   ? "l1"
                 : ev.params.calibration.norm == metrics::CalibrationNorm::l2 ? "l2"
                                                                              : "max"},
        {"bins",
         {{"lower", b.lower},
          {"upper", b.upper},
          {"count", b.count},
          {"accuracy", b.accuracy},
          {"confidence", b.confidence}}}};
  } else {
    j["calibration"] = nullptr;
  }
  if (with_curves) {
    auto curves = [](const std::vector<metrics::CurveSeries>& list, const char* x, const char* y) {
      Json out = Json::array();
      for (const auto& c : list) {
        Json one{{"class", c.name}, {x, c.x}, {y, c.y}, {"area", c.area}};
        if (!c.y_interpolated.empty()) one["interpolated_precision"] = c.y_interpolated;
        out.push_back(one);
      }
      return out;
    };
    j["curves"] = {{"pr", curves(ev.pr_curves, "recall", "precision")},
                   {"roc", curves(ev.roc_curves, "fpr", "tpr")}};
  }
  const auto& p = ev.params;
  j["params"] = {{"threshold", p.threshold},
                 {"ap_method", std::string(metrics::to_string(p.ap.method))},
                 {"calibration_bins", p.calibration.bins},
                 {"bootstrap", p.bootstrap.n_resamples},
                 {"confidence", p.bootstrap.confidence},
                 {"seed", p.bootstrap.seed}};
  j["notes"] = ev.notes;
  return j;
}

HtmlReport evaluation_html(const metrics::Evaluation& ev, const std::string& title,
                           const std::string& model) {
  HtmlReport page(title);
  // Binary curves are the model's (named after it); multi-class curves are the classes'.
  const bool named = ev.binary && !model.empty();
  const auto series_name = [&](const std::string& name) { return named ? model : name; };
  page.add_paragraph((model.empty() ? "" : "Model: " + model + ". ") + describe(ev));
  page.add_heading("Summary");
  page.add_table(summary_header(ev), summary_rows(ev));
  const bool scores = !ev.pr_curves.empty();

  if (scores) {
    std::vector<PrSeries> pr;
    for (const auto& c : ev.pr_curves)
      pr.push_back({series_name(c.name), c.x, c.y, c.y_interpolated, c.area});
    ChartParams pr_params;
    pr_params.title =
        fmt::format("Precision-recall (AP: {})", metrics::to_string(ev.params.ap.method));
    // One curve per class; binary: the positive class's, named after the model when it has one.
    pr_params.legend_title = named ? "Model" : ev.binary ? "Positive class" : "Class";
    page.add_chart("Precision-recall curve: raw (solid) and interpolated (dotted)",
                   pr_curve_chart(pr, pr_params));
    if (!ev.roc_curves.empty()) {
      std::vector<RocSeries> roc;
      for (const auto& c : ev.roc_curves) roc.push_back({series_name(c.name), c.x, c.y, c.area});
      ChartParams roc_params;
      roc_params.legend_title = pr_params.legend_title;
      page.add_chart("ROC curve", roc_curve_chart(roc, roc_params));
    }
  }
  page.add_chart("Confusion matrix (rows: true class, columns: predicted class)",
                 confusion_matrix_chart(ev.confusion, ev.classes, ev.classes, false));
  if (ev.calibration) {
    const auto& b = ev.calibration->bins;
    bool any = std::any_of(b.count.begin(), b.count.end(), [](double c) { return c > 0; });
    if (any) {
      const ReliabilityBins bins{
          b.lower,      b.upper,
          b.count,      b.accuracy,
          b.confidence, ev.binary ? ReliabilityKind::positive_class : ReliabilityKind::top_label};
      page.add_chart(ev.binary ? "Reliability diagram (probability of the positive class)"
                               : "Reliability diagram (top-label confidence)",
                     reliability_chart(bins));
    }
  }
  page.add_heading("Per class");
  page.add_table(class_header(scores), class_rows(ev, scores));
  for (const auto& note : ev.notes) page.add_paragraph("Note: " + note);
  page.add_json("All numbers (JSON)", evaluation_json(ev, false));
  return page;
}

}  // namespace assay::report

namespace assay::report {

std::string runs_text(const metrics::GroupedRunSummary& runs, const std::string& by_name) {
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < runs.by.size(); ++i) {
    const auto& s = runs.summaries[i];
    rows.push_back({by_name.empty() ? "all runs" : fmt::format("{}", runs.by[i]), run_value(s.mean),
                    run_value(s.sd), run_value(s.min), run_value(s.max), fmt::format("{}", s.n)});
  }
  return render_columns({by_name, "mean", "sd", "min", "max", "n"}, rows);
}

Json runs_json(const metrics::GroupedRunSummary& runs) {
  Json j;
  j["by"] = runs.by;
  Json mean = Json::array(), sd = Json::array(), min = Json::array(), max = Json::array(),
       n = Json::array();
  for (const auto& s : runs.summaries) {
    mean.push_back(s.mean);
    sd.push_back(s.sd);
    min.push_back(s.min);
    max.push_back(s.max);
    n.push_back(s.n);
  }
  j["mean"] = mean;
  j["sd"] = sd;
  j["min"] = min;
  j["max"] = max;
  j["n"] = n;
  return j;
}

HtmlReport runs_html(const metrics::GroupedRunSummary& runs, const std::string& x_title,
                     const std::string& y_title, bool log_x, const std::string& title) {
  HtmlReport page(title);
  page.add_paragraph(
      fmt::format("{} across runs: mean ± standard deviation (ddof = 1) at each value of {}.",
                  y_title, x_title));
  TrendSeries series{y_title, runs.by, {}, {}};
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < runs.by.size(); ++i) {
    const auto& s = runs.summaries[i];
    series.mean.push_back(s.mean);
    series.sd.push_back(s.sd);
    rows.push_back({fmt::format("{}", runs.by[i]), fixed(s.mean), fixed(s.sd), fixed(s.min),
                    fixed(s.max), fmt::format("{}", s.n)});
  }
  page.add_chart(fmt::format("{} against {} (mean ± SD)", y_title, x_title),
                 trend_chart({series}, x_title, y_title, log_x));
  page.add_table({x_title, "mean", "sd", "min", "max", "n"}, rows);
  return page;
}

}  // namespace assay::report

namespace assay::report::detail {

std::string fixed4(double value) {
  return fixed(value);
}
std::string text_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows,
                       std::size_t left_aligned) {
  return render_columns(header, rows, left_aligned);
}

}  // namespace assay::report::detail

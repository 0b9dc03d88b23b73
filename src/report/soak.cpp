#include "assay/report/soak.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "report_util.hpp"

namespace assay::report {
namespace {

using soak::Comparison;
using soak::SoakStatistics;
using soak::TrainSetSummary;
using soak::TrainSubsets;

constexpr double kLevel = 0.05;

// Rows of the SOAK paper's Figure 3 from top to bottom: mlr3resampling's pvalue() order.
const std::vector<std::string> kTrainRows = {"all", "all-same", "same", "other-same", "other"};

std::string comparison_name(TrainSubsets compared) {
  return std::string(soak::to_string(compared)) + "-same";
}

std::string p_label(double p) {
  if (std::isnan(p)) return "P=" + std::string(kMissingText);
  if (p < 1e-4) return "P<0.0001";
  return fmt::format("P={:.4f}", p);
}

std::string mean_sd(double mean, double sd) {
  if (std::isnan(mean)) return std::string(kMissingText);
  if (std::isnan(sd)) return fmt::format("{:.2f}", mean);
  return fmt::format("{:.2f}\u00b1{:.2f}", mean, sd);
}

std::string signed2(double v) {
  return std::isnan(v) ? std::string(kMissingText) : fmt::format("{:+.2f}", v);
}

std::string p_text(double p) {
  if (std::isnan(p)) return std::string(kMissingText);
  if (p < 1e-4) return fmt::format("{:.1e}", p);
  return fmt::format("{:.4f}", p);
}

// Test subsets in the order they first appear (the experiment lists them in design order).
std::vector<std::string> test_subsets_of(const SoakStatistics& s, const std::string& data,
                                         const std::string& learner) {
  std::vector<std::string> out;
  for (const auto& t : s.summaries) {
    if (t.data == data && t.learner == learner &&
        std::find(out.begin(), out.end(), t.test_subset) == out.end())
      out.push_back(t.test_subset);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> data_learner_pairs(const SoakStatistics& s) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& t : s.summaries) {
    std::pair<std::string, std::string> key{t.data, t.learner};
    if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
  }
  return out;
}

const TrainSetSummary* find_summary(const SoakStatistics& s, const std::string& data,
                                    const std::string& learner, const std::string& subset,
                                    TrainSubsets train) {
  for (const auto& t : s.summaries) {
    if (t.data == data && t.learner == learner && t.test_subset == subset &&
        t.train_subsets == train && t.n_train_groups == 0)
      return &t;
  }
  return nullptr;
}

const Comparison* find_comparison(const SoakStatistics& s, const std::string& data,
                                  const std::string& learner, const std::string& subset,
                                  TrainSubsets compared) {
  for (const auto& c : s.comparisons) {
    if (c.data == data && c.learner == learner && c.test_subset == subset &&
        c.compared == compared && c.n_train_groups == 0)
      return &c;
  }
  return nullptr;
}

// Higher is worse for every error measure; for AUC higher is better.
bool compared_is_worse(const Comparison& c, const std::string& measure) {
  const double d = c.paired.mean_difference;
  return measure == "auc" ? d < 0 : d > 0;
}

std::string measure_title(const std::string& measure) {
  if (measure == "error_percent") return "test error (%)";
  if (measure == "auc") return "test AUC";
  if (measure == "mse") return "test MSE";
  if (measure == "mae") return "test MAE";
  return measure;
}

}  // namespace

std::string soak_verdict(const Comparison& c, const std::string& measure) {
  const double p = c.paired.p_value;
  if (std::isnan(p)) {
    return "undefined (" +
           (c.paired.undefined_reason.empty() ? std::string("no test")
                                              : c.paired.undefined_reason) +
           ")";
  }
  const bool significant = p < kLevel;
  const bool worse = compared_is_worse(c, measure);
  if (c.compared == TrainSubsets::other) {
    if (!significant) return "other subsets predict as well";
    return worse ? "other subsets predict worse" : "other subsets predict better";
  }
  if (!significant) return "combining subsets makes no significant difference";
  return worse ? "combining subsets hurts" : "combining subsets helps";
}

Json soak_error_chart(const SoakStatistics& s, const std::string& data, const std::string& learner,
                      const ChartParams& params) {
  const auto subsets = test_subsets_of(s, data, learner);
  if (subsets.empty())
    fail("no SOAK results for data set {} and learner {}", quote_found(data), quote_found(learner));
  Json values = Json::array();
  for (const auto& subset : subsets) {
    for (TrainSubsets train : {TrainSubsets::all, TrainSubsets::same, TrainSubsets::other}) {
      const auto* t = find_summary(s, data, learner, subset, train);
      if (!t) continue;
      values.push_back({{"kind", "stat"},
                        {"test_subset", subset},
                        {"train", soak::to_string(train)},
                        {"mean", detail::json_number(t->mean)},
                        {"low", detail::json_number(t->mean - t->sd)},
                        {"high", detail::json_number(t->mean + t->sd)},
                        {"n", t->n},
                        {"label", mean_sd(t->mean, t->sd)}});
    }
    for (TrainSubsets compared : {TrainSubsets::all, TrainSubsets::other}) {
      const auto* c = find_comparison(s, data, learner, subset, compared);
      if (!c) continue;
      values.push_back({{"kind", "p"},
                        {"test_subset", subset},
                        {"train", comparison_name(compared)},
                        {"low", detail::json_number(std::min(c->same_mean, c->compared_mean))},
                        {"high", detail::json_number(std::max(c->same_mean, c->compared_mean))},
                        {"mean", detail::json_number((c->same_mean + c->compared_mean) / 2)},
                        {"p", detail::json_number(c->paired.p_value)},
                        {"diff", detail::json_number(c->paired.mean_difference)},
                        {"label", p_label(c->paired.p_value)}});
    }
  }
  const std::string x_title = measure_title(s.measure);
  Json y = {{"field", "train"},
            {"type", "nominal"},
            {"title", "train subsets"},
            {"sort", detail::string_array(kTrainRows)},
            {"scale", {{"domain", detail::string_array(kTrainRows)}}}};
  const int panel_width =
      std::max(160, params.width / static_cast<int>(std::min<std::size_t>(subsets.size(), 4)));
  // 34 px of padding on both ends: the "mean±SD" labels centred on dots at the ends of an axis
  // (about 60 px wide) and the whiskers stay inside their panel; about one tick per 45 px so
  // that the labels of a narrow panel do not run together.
  Json x_low = {{"field", "low"},
                {"type", "quantitative"},
                {"title", x_title},
                {"scale", {{"zero", false}, {"padding", 34}}},
                {"axis", {{"tickCount", std::max(3, panel_width / 45)}}}};
  auto kind = [](const char* k) { return Json{{"filter", fmt::format("datum.kind == '{}'", k)}}; };
  Json tips = {detail::tooltip("test_subset", "test subset"), detail::tooltip("train", "train"),
               detail::tooltip("label", "value")};
  Json layers = Json::array();
  // Mean ± SD segments and mean points of each train set.
  layers.push_back(
      {{"transform",
        {kind("stat"), {{"filter", detail::finite("low") + " && " + detail::finite("high")}}}},
       {"mark", {{"type", "rule"}, {"strokeWidth", 2}, {"color", "#1f77b4"}}},
       {"encoding", {{"x", x_low}, {"x2", {{"field", "high"}}}, {"y", y}, {"tooltip", tips}}}});
  layers.push_back(
      {{"transform", {kind("stat"), {{"filter", detail::finite("mean")}}}},
       {"mark", {{"type", "point"}, {"filled", false}, {"size", 60}, {"color", "#1f77b4"}}},
       {"encoding",
        {{"x", {{"field", "mean"}, {"type", "quantitative"}}}, {"y", y}, {"tooltip", tips}}}});
  layers.push_back({{"transform", {kind("stat"), {{"filter", detail::finite("mean")}}}},
                    {"mark", {{"type", "text"}, {"dy", -10}, {"fontSize", 10}}},
                    {"encoding",
                     {{"x", {{"field", "mean"}, {"type", "quantitative"}}},
                      {"y", y},
                      {"text", {{"field", "label"}}}}}});
  // Grey segment from the Same mean to the compared mean, labelled with the paired p-value.
  layers.push_back(
      {{"transform",
        {kind("p"), {{"filter", detail::finite("low") + " && " + detail::finite("high")}}}},
       {"mark", {{"type", "rule"}, {"strokeWidth", 2}, {"color", detail::kGuideGrey}}},
       {"encoding",
        {{"x", {{"field", "low"}, {"type", "quantitative"}}},
         {"x2", {{"field", "high"}}},
         {"y", y},
         {"tooltip",
          {detail::tooltip("test_subset", "test subset"), detail::tooltip("train", "comparison"),
           detail::tooltip("diff", "mean difference", ".3f"),
           detail::tooltip("p", "p (paired)", ".3g")}}}}});
  layers.push_back(
      {{"transform", {kind("p"), {{"filter", detail::finite("mean")}}}},
       {"mark", {{"type", "text"}, {"dy", -10}, {"fontSize", 10}, {"color", "#595959"}}},
       {"encoding",
        {{"x", {{"field", "mean"}, {"type", "quantitative"}}},
         {"y", y},
         {"text", {{"field", "label"}}}}}});

  Json spec = detail::base_spec(
      params, fmt::format("{}: {} ({})", data, x_title, learner),
      "SOAK paper, Figure 3: mean (circle) and mean \u00b1 SD (segment) of the test error over "
      "folds for each train set, per test subset; grey segments join Same to Other/All with the "
      "two-sided paired t-test p-value.");
  spec.erase("width");
  spec.erase("height");
  spec["data"] = {{"values", std::move(values)}};
  spec["facet"] = {{"field", "test_subset"},
                   {"type", "nominal"},
                   {"title", "test subset"},
                   {"sort", detail::string_array(subsets)}};
  spec["columns"] = 4;
  spec["spec"] = {{"width", panel_width}, {"height", 150}, {"layer", std::move(layers)}};
  spec["resolve"] = {{"scale", {{"x", "independent"}}}};
  return spec;
}

Json soak_difference_chart(const SoakStatistics& s, TrainSubsets compared,
                           const ChartParams& params) {
  struct Range {
    double min_d = std::numeric_limits<double>::infinity(), max_d = -min_d, sum_d = 0;
    double min_p = std::numeric_limits<double>::infinity(), max_p = -min_p, sum_p = 0;
    int n_d = 0, n_p = 0;
  };
  std::vector<std::string> rows;
  std::map<std::string, Range> ranges;
  for (const auto& c : s.comparisons) {
    if (c.compared != compared || c.n_train_groups != 0) continue;
    const std::string row = c.data + " / " + c.learner;
    if (!ranges.count(row)) rows.push_back(row);
    auto& r = ranges[row];
    const double d = c.paired.mean_difference;
    if (std::isfinite(d)) {
      r.min_d = std::min(r.min_d, d);
      r.max_d = std::max(r.max_d, d);
      r.sum_d += d;
      ++r.n_d;
    }
    const double lp = std::log10(c.paired.p_value);
    if (std::isfinite(lp)) {
      r.min_p = std::min(r.min_p, lp);
      r.max_p = std::max(r.max_p, lp);
      r.sum_p += lp;
      ++r.n_p;
    }
  }
  if (rows.empty())
    fail("no full-size {} comparison in the SOAK statistics (one subset only?)",
         comparison_name(compared));
  // Rows sorted by mean difference, largest first (the paper's figures).
  std::stable_sort(rows.begin(), rows.end(), [&](const std::string& a, const std::string& b) {
    const auto& ra = ranges[a];
    const auto& rb = ranges[b];
    const double ma = ra.n_d ? ra.sum_d / ra.n_d : -INFINITY;
    const double mb = rb.n_d ? rb.sum_d / rb.n_d : -INFINITY;
    return ma > mb;
  });
  Json values = Json::array();
  auto nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& row : rows) {
    const auto& r = ranges[row];
    values.push_back({{"row", row},
                      {"panel", "difference"},
                      {"min", detail::json_number(r.n_d ? r.min_d : nan)},
                      {"max", detail::json_number(r.n_d ? r.max_d : nan)},
                      {"mean", detail::json_number(r.n_d ? r.sum_d / r.n_d : nan)}});
    values.push_back({{"row", row},
                      {"panel", "log10 p"},
                      {"min", detail::json_number(r.n_p ? r.min_p : nan)},
                      {"max", detail::json_number(r.n_p ? r.max_p : nan)},
                      {"mean", detail::json_number(r.n_p ? r.sum_p / r.n_p : nan)}});
  }
  const std::string name = comparison_name(compared);
  const std::string x_title = fmt::format("{} ({})", measure_title(s.measure), name);
  auto panel = [&](const char* which, const std::string& title, double reference) {
    Json y = {{"field", "row"},
              {"type", "nominal"},
              {"title", nullptr},
              {"sort", detail::string_array(rows)}};
    Json tips = {detail::tooltip("row", "data / learner"), detail::tooltip("min", "min", ".3g"),
                 detail::tooltip("mean", "mean", ".3g"), detail::tooltip("max", "max", ".3g")};
    Json layers = Json::array();
    layers.push_back(
        {{"data", {{"values", {{{"ref", reference}}}}}},
         {"mark", {{"type", "rule"}, {"strokeDash", {4, 4}}, {"color", detail::kGuideGrey}}},
         {"encoding", {{"x", {{"field", "ref"}, {"type", "quantitative"}}}}}});
    layers.push_back(
        {{"transform", {{{"filter", detail::finite("min") + " && " + detail::finite("max")}}}},
         {"mark", {{"type", "rule"}, {"strokeWidth", 2}}},
         {"encoding",
          // Padded so that dots and segments at the ends are not cut by the frame.
          {{"x",
            {{"field", "min"},
             {"type", "quantitative"},
             {"title", title},
             {"scale", {{"padding", 10}}}}},
           {"x2", {{"field", "max"}}},
           {"y", y},
           {"tooltip", tips}}}});
    layers.push_back(
        {{"transform", {{{"filter", detail::finite("mean")}}}},
         {"mark", {{"type", "point"}, {"filled", true}, {"size", 50}}},
         {"encoding",
          {{"x", {{"field", "mean"}, {"type", "quantitative"}}}, {"y", y}, {"tooltip", tips}}}});
    return Json{{"transform", {{{"filter", fmt::format("datum.panel == '{}'", which)}}}},
                {"width", std::max(120, params.width / 2)},
                {"height", std::max(60, 24 * static_cast<int>(rows.size()))},
                {"layer", std::move(layers)}};
  };
  Json spec = detail::base_spec(
      params, fmt::format("{} over test subsets (min..max, mean)", name),
      compared == TrainSubsets::all
          ? "SOAK paper, Figure 4: mean test error difference All\u2212Same and log10 p of the "
            "paired t-test, min..max over test subsets (segment), mean (dot)."
          : "SOAK paper, Figure 5: mean test error difference Other\u2212Same and log10 p of the "
            "paired t-test, min..max over test subsets (segment), mean (dot).");
  spec.erase("width");
  spec.erase("height");
  spec["data"] = {{"values", std::move(values)}};
  spec["hconcat"] = {panel("difference", x_title, 0.0),
                     panel("log10 p", "log10(p), paired t-test", std::log10(kLevel))};
  return spec;
}

// --- Down-sampled comparisons (mlr3resampling's pvalue_downsample plot) ---------------------

namespace {

// "full" or "12 train groups": the facet column of a train size.
std::string size_label(std::int64_t n_train_groups) {
  return n_train_groups == 0 ? std::string("full") : fmt::format("{} train groups", n_train_groups);
}

// The train sizes compared for (data, learner): full (0) first, then N ascending.
std::vector<std::int64_t> compared_sizes(const SoakStatistics& s, const std::string& data,
                                         const std::string& learner) {
  std::set<std::int64_t> sizes;
  for (const auto& c : s.comparisons) {
    if (c.data == data && c.learner == learner) sizes.insert(c.n_train_groups);
  }
  return {sizes.begin(), sizes.end()};
}

const char* const kStatLegend = "mean \u00b1 SD of the train set";
const char* const kPLegend = "Same vs Other/All at this size (paired t-test)";

// Chart rows: summaries (mean ± SD per train set) and comparisons (pvalues.csv's rows), each
// tagged with its test subset and size.
Json downsample_values(const SoakStatistics& s, const std::string& data, const std::string& learner,
                       const std::vector<std::int64_t>& sizes) {
  auto shown = [&](std::int64_t n) {
    return std::find(sizes.begin(), sizes.end(), n) != sizes.end();
  };
  Json values = Json::array();
  for (const auto& t : s.summaries) {
    if (t.data != data || t.learner != learner || !shown(t.n_train_groups)) continue;
    values.push_back({{"kind", "stat"},
                      {"legend", kStatLegend},
                      {"test_subset", t.test_subset},
                      {"size", size_label(t.n_train_groups)},
                      {"n_train_groups", t.n_train_groups},
                      {"train", soak::to_string(t.train_subsets)},
                      {"mean", detail::json_number(t.mean)},
                      {"sd", detail::json_number(t.sd)},
                      {"low", detail::json_number(t.mean - t.sd)},
                      {"high", detail::json_number(t.mean + t.sd)},
                      {"n", t.n},
                      {"label", mean_sd(t.mean, t.sd)}});
  }
  for (const auto& c : s.comparisons) {
    if (c.data != data || c.learner != learner) continue;
    values.push_back({{"kind", "p"},
                      {"legend", kPLegend},
                      {"test_subset", c.test_subset},
                      {"size", size_label(c.n_train_groups)},
                      {"n_train_groups", c.n_train_groups},
                      {"train", comparison_name(c.compared)},
                      {"same_mean", detail::json_number(c.same_mean)},
                      {"compared_mean", detail::json_number(c.compared_mean)},
                      {"low", detail::json_number(std::min(c.same_mean, c.compared_mean))},
                      {"high", detail::json_number(std::max(c.same_mean, c.compared_mean))},
                      {"mean", detail::json_number((c.same_mean + c.compared_mean) / 2)},
                      {"diff", detail::json_number(c.paired.mean_difference)},
                      {"p", detail::json_number(c.paired.p_value)},
                      {"label", p_label(c.paired.p_value)}});
  }
  return values;
}

}  // namespace

bool has_downsampled_comparisons(const SoakStatistics& s, const std::string& data,
                                 const std::string& learner) {
  return std::any_of(s.comparisons.begin(), s.comparisons.end(), [&](const Comparison& c) {
    return c.data == data && c.learner == learner && c.n_train_groups != 0;
  });
}

Json soak_downsample_chart(const SoakStatistics& s, const std::string& data,
                           const std::string& learner, const ChartParams& params) {
  if (!has_downsampled_comparisons(s, data, learner)) {
    fail(
        "no down-sampled SOAK comparisons for data set {} and learner {} (run with --sizes 0 "
        "or more)",
        quote_found(data), quote_found(learner));
  }
  const std::vector<std::int64_t> sizes = compared_sizes(s, data, learner);
  std::vector<std::string> size_labels;
  for (std::int64_t n : sizes) size_labels.push_back(size_label(n));
  // Short: a panel may be 100 px wide (the caption says the dot is the mean, the line ± SD).
  const std::string x_title = measure_title(s.measure);
  Json y = {{"field", "train"},
            {"type", "nominal"},
            {"title", "train subsets"},
            {"sort", detail::string_array(kTrainRows)},
            // Room above the top row for its label (drawn 10 px above the point).
            {"scale", {{"domain", detail::string_array(kTrainRows)}, {"padding", 1.2}}}};
  // Room for the labels at the ends of the axis (they are centred on their point); few ticks,
  // and overlapping tick labels hidden, so that a narrow panel's labels do not run together.
  Json x = {{"field", "low"},
            {"type", "quantitative"},
            {"title", x_title},
            {"scale", {{"zero", false}, {"padding", 36}}},
            {"axis", {{"tickCount", 3}, {"labelOverlap", "greedy"}, {"labelSeparation", 6}}}};
  Json color = {
      {"field", "legend"},
      {"type", "nominal"},
      {"title", "drawn"},
      {"scale", {{"domain", {kStatLegend, kPLegend}}, {"range", {"#1f77b4", detail::kGuideGrey}}}},
      {"legend", {{"orient", "bottom"}, {"direction", "vertical"}}}};
  auto kind = [](const char* k) { return Json{{"filter", fmt::format("datum.kind == '{}'", k)}}; };
  const std::string both_ends = detail::finite("low") + " && " + detail::finite("high");
  Json stat_tips = {detail::tooltip("test_subset", "test subset"),
                    detail::tooltip("size", "train size"), detail::tooltip("train", "train"),
                    detail::tooltip("label", "mean \u00b1 SD"), detail::tooltip("n", "folds")};
  Json p_tips = {detail::tooltip("test_subset", "test subset"),
                 detail::tooltip("size", "train size"),
                 detail::tooltip("train", "comparison"),
                 detail::tooltip("same_mean", "Same mean", ".3f"),
                 detail::tooltip("compared_mean", "compared mean", ".3f"),
                 detail::tooltip("diff", "mean difference", ".3f"),
                 detail::tooltip("p", "p (paired)", ".3g")};
  auto at_mean = [&](Json encoding) {
    encoding["x"] = {{"field", "mean"}, {"type", "quantitative"}};
    encoding["y"] = y;
    return encoding;
  };
  Json layers = Json::array();
  layers.push_back({{"transform", {kind("stat"), {{"filter", both_ends}}}},
                    {"mark", {{"type", "rule"}, {"strokeWidth", 2}}},
                    {"encoding",
                     {{"x", x},
                      {"x2", {{"field", "high"}}},
                      {"y", y},
                      {"color", color},
                      {"tooltip", stat_tips}}}});
  layers.push_back(
      {{"transform", {kind("stat"), {{"filter", detail::finite("mean")}}}},
       {"mark", {{"type", "point"}, {"filled", false}, {"size", 60}, {"color", "#1f77b4"}}},
       {"encoding", at_mean({{"tooltip", stat_tips}})}});
  layers.push_back({{"transform", {kind("stat"), {{"filter", detail::finite("mean")}}}},
                    {"mark", {{"type", "text"}, {"dy", -10}, {"fontSize", 10}}},
                    {"encoding", at_mean({{"text", {{"field", "label"}}}})}});
  layers.push_back({{"transform", {kind("p"), {{"filter", both_ends}}}},
                    {"mark", {{"type", "rule"}, {"strokeWidth", 2}}},
                    {"encoding",
                     {{"x", {{"field", "low"}, {"type", "quantitative"}}},
                      {"x2", {{"field", "high"}}},
                      {"y", y},
                      {"color", color},
                      {"tooltip", p_tips}}}});
  layers.push_back(
      {{"transform", {kind("p"), {{"filter", detail::finite("mean")}}}},
       {"mark", {{"type", "text"}, {"dy", -10}, {"fontSize", 10}, {"color", "#595959"}}},
       {"encoding", at_mean({{"text", {{"field", "label"}}}})}});

  Json spec = detail::base_spec(
      params, fmt::format("{}: {} by train size ({})", data, measure_title(s.measure), learner),
      "mlr3resampling's pvalue_downsample: per test subset (rows) and train size (columns: "
      "full, then every train set down-sampled to N groups), the mean \u00b1 SD of Same, Other "
      "and All, and grey segments joining Same to Other/All labelled with the paired p-value.");
  // Every train size is a column: the panels share the chart's width (axis titles and row
  // labels take about 160 px), so that the chart fits the page.
  const int columns = static_cast<int>(sizes.size());
  const int panel_width = std::max(100, (params.width - 160) / columns);
  spec.erase("width");
  spec.erase("height");
  spec["data"] = {{"values", downsample_values(s, data, learner, sizes)}};
  spec["facet"] = {{"row",
                    {{"field", "test_subset"},
                     {"type", "nominal"},
                     {"title", "test subset"},
                     {"sort", detail::string_array(test_subsets_of(s, data, learner))}}},
                   {"column",
                    {{"field", "size"},
                     {"type", "nominal"},
                     {"title", "train size"},
                     {"sort", detail::string_array(size_labels)}}}};
  spec["spec"] = {{"width", panel_width}, {"height", 130}, {"layer", std::move(layers)}};
  spec["resolve"] = {{"scale", {{"x", "independent"}}}};
  return spec;
}

std::string soak_downsample_explanation(const std::string& measure) {
  return fmt::format(
      "Is a gap between train sets due to the subsets or only to the amount of data? Each "
      "column compares the train sets at one size: \"full\" trains Same, Other and All on all "
      "their groups (so they differ in size); \"N train groups\" trains each of them on N "
      "groups drawn at random. A gap that remains at equal size (grey segment, small p) comes "
      "from which subsets the model learned from; one that closes there came from the train "
      "set's size. Rows: test subsets; {}, dot = mean over folds, line = mean \u00b1 SD.",
      measure_title(measure));
}

std::string soak_text(const SoakStatistics& s) {
  std::vector<std::vector<std::string>> rows;
  std::string conclusions;
  for (const auto& [data, learner] : data_learner_pairs(s)) {
    std::vector<std::string> differ;
    bool any_other = false;
    for (const auto& subset : test_subsets_of(s, data, learner)) {
      std::vector<std::string> row = {data, learner, subset};
      for (TrainSubsets t : {TrainSubsets::same, TrainSubsets::other, TrainSubsets::all}) {
        const auto* sum = find_summary(s, data, learner, subset, t);
        row.push_back(sum ? mean_sd(sum->mean, sum->sd) : "-");
      }
      for (TrainSubsets c : {TrainSubsets::other, TrainSubsets::all}) {
        const auto* cmp = find_comparison(s, data, learner, subset, c);
        if (!cmp) {
          row.push_back("-");
          row.push_back("-");
          continue;
        }
        row.push_back(signed2(cmp->paired.mean_difference));
        row.push_back(p_text(cmp->paired.p_value));
        if (c == TrainSubsets::other) {
          any_other = true;
          if (cmp->paired.p_value < kLevel && compared_is_worse(*cmp, s.measure))
            differ.push_back(subset);
        }
      }
      rows.push_back(std::move(row));
    }
    if (!any_other) {
      conclusions += fmt::format("{} / {}: one subset only (plain K-fold CV).\n", data, learner);
    } else if (differ.empty()) {
      conclusions += fmt::format(
          "{} / {}: subsets similar: on every test subset, training on the other subsets is not "
          "significantly worse than training on the same subset (paired t-test at level {}).\n",
          data, learner, kLevel);
    } else {
      std::string list;
      for (const auto& d : differ) list += (list.empty() ? "" : ", ") + d;
      conclusions += fmt::format(
          "{} / {}: subsets differ: training on the other subsets is significantly worse "
          "(p < {}) when predicting on: {}.\n",
          data, learner, kLevel, list);
    }
  }
  const std::string m = s.measure;
  std::string out = detail::text_table({"data", "learner", "test subset", "same " + m, "other " + m,
                                        "all " + m, "other-same", "p", "all-same", "p"},
                                       rows);
  out += "\n" + conclusions;
  return out;
}

void add_soak_downsample_charts(HtmlReport& page, const SoakStatistics& s, int width) {
  for (const auto& [data, learner] : data_learner_pairs(s)) {
    if (!has_downsampled_comparisons(s, data, learner)) continue;
    ChartParams cp;
    cp.width = width;
    page.add_chart(fmt::format("{} / {}: Same, Other and All at equal train sizes", data, learner),
                   soak_downsample_chart(s, data, learner, cp),
                   soak_downsample_explanation(s.measure));
  }
}

// The train sets the tables name (glossary.hpp defines them).
const std::vector<std::string> kSoakTerms{"Same", "Other", "All"};

HtmlReport soak_html(const SoakStatistics& s, const soak::SoakResults& results,
                     const std::string& title, const std::string& description) {
  HtmlReport page(title);
  if (!description.empty()) page.add_paragraph(description);
  std::size_t failed = 0;
  for (const auto& r : results.rows) failed += !r.failure.empty();
  page.add_paragraph(fmt::format(
      "{} train/test splits run ({} with NA results). Measure: {}. Comparisons are two-sided "
      "paired t-tests over folds (Other\u2212Same, All\u2212Same); mean \u00b1 SD over folds.",
      results.rows.size(), failed, measure_title(s.measure)));

  // Summary table, as the terminal prints it.
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : s.comparisons) {
    if (c.n_train_groups != 0) continue;
    rows.push_back({c.data, c.learner, c.test_subset, comparison_name(c.compared),
                    mean_sd(c.same_mean, NAN), mean_sd(c.compared_mean, NAN),
                    signed2(c.paired.mean_difference), p_text(c.paired.p_value),
                    p_text(c.welch.p_value), soak_verdict(c, s.measure)});
  }
  page.add_heading("Summary");
  if (rows.empty()) {
    page.add_paragraph("One subset only: plain K-fold cross-validation, no comparisons.");
  } else {
    page.add_table({"data", "learner", "test subset", "comparison", "same mean", "compared mean",
                    "mean difference", "p (paired)", "p (Welch)", "verdict"},
                   rows, kSoakTerms);
  }
  for (const auto& [data, learner] : data_learner_pairs(s)) {
    page.add_chart(fmt::format("{} / {}: test error per train set and test subset", data, learner),
                   soak_error_chart(s, data, learner));
  }
  bool has_all = false, has_other = false;
  for (const auto& c : s.comparisons) {
    if (c.n_train_groups != 0) continue;
    has_all |= c.compared == TrainSubsets::all;
    has_other |= c.compared == TrainSubsets::other;
  }
  add_soak_downsample_charts(page, s, 600);
  if (has_all)
    page.add_chart("All\u2212Same across data sets (SOAK paper, Figure 4)",
                   soak_difference_chart(s, TrainSubsets::all));
  if (has_other)
    page.add_chart("Other\u2212Same across data sets (SOAK paper, Figure 5)",
                   soak_difference_chart(s, TrainSubsets::other));

  page.add_heading("Mean and SD per train set");
  std::vector<std::vector<std::string>> summary_rows;
  for (const auto& t : s.summaries) {
    summary_rows.push_back({t.data, t.learner, t.test_subset, soak::to_string(t.train_subsets),
                            t.n_train_groups == 0 ? "full" : fmt::format("{}", t.n_train_groups),
                            detail::fixed4(t.mean), detail::fixed4(t.sd), fmt::format("{}", t.n)});
  }
  page.add_table(
      {"data", "learner", "test subset", "train subsets", "train groups", "mean", "sd", "n"},
      summary_rows, kSoakTerms);
  page.add_heading("t-tests");
  std::vector<std::vector<std::string>> p_rows;
  for (const auto& c : s.comparisons) {
    p_rows.push_back({c.data, c.learner, c.test_subset, comparison_name(c.compared),
                      c.n_train_groups == 0 ? "full" : fmt::format("{}", c.n_train_groups),
                      detail::fixed4(c.paired.mean_difference), detail::fixed4(c.paired.t),
                      fmt::format("{}", c.paired.df), p_text(c.paired.p_value),
                      detail::fixed4(c.welch.t), p_text(c.welch.p_value),
                      c.paired.undefined_reason});
  }
  page.add_table({"data", "learner", "test subset", "comparison", "train groups", "mean diff", "t",
                  "df", "p (paired)", "t (Welch)", "p (Welch)", "note"},
                 p_rows, kSoakTerms);
  page.add_json("Statistics (JSON)", soak::statistics_json(s));
  return page;
}

}  // namespace assay::report

// The overview report as named steps: prepare (read and check every input), run (one library
// entry point per analysis), summarize, render, write.
#include "assay/overview/overview.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>

#include <fmt/format.h>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/output_file.hpp"
#include "assay/learners/learner.hpp"
#include "assay/report/compare.hpp"
#include "assay/report/count.hpp"
#include "assay/report/evaluation.hpp"
#include "assay/report/regression.hpp"
#include "assay/report/segmentation.hpp"
#include "assay/report/shift.hpp"
#include "assay/soak/statistics.hpp"
#include "overview_detail.hpp"

namespace assay::report {
namespace {

namespace fs = std::filesystem;

// Runs `step`; an assay::Error from it is thrown again at the section's place in the
// configuration, so that a message about a data file also says which section named it.
template <typename F>
auto in_section(const ReportConfig& config, const char* section, F&& step) -> decltype(step()) {
  try {
    return step();
  } catch (const Error& e) {
    throw Error(config.source.where(section), fmt::format("[{}] {}", section, e.what()));
  }
}

void require_file(const std::string& path, const char* what) {
  std::error_code ec;
  if (!fs::exists(path, ec)) fail("{} {}: no such file", what, path);
  note_input(path, fmt::format("the {}", what));  // read later: no output may replace it
}

std::vector<std::pair<std::string, Table>> read_tables(const std::vector<std::string>& files,
                                                       const std::string& label, bool categorical,
                                                       CsvParams csv) {
  std::vector<std::pair<std::string, Table>> tables;
  if (categorical) csv.categorical = {label};
  for (const auto& file : files) {
    require_file(file, "data file");
    tables.emplace_back(fs::path(file).stem().string(), read_csv(file, csv));
  }
  return tables;
}

void check_learners(const std::vector<std::string>& names) {
  const auto known = learners::learner_names();
  for (const auto& name : names) {
    if (std::find(known.begin(), known.end(), name) == known.end()) learners::make_learner(name);
  }
}

void prepare_metrics(const MetricsSection& m, PreparedOverview& out) {
  require_file(m.file, "predictions file");
  CsvParams csv = m.csv;
  for (const auto& model : m.models) {
    csv.numeric.insert(csv.numeric.end(), model.scores.begin(), model.scores.end());
  }
  if (!m.columns.weight.empty()) csv.numeric.push_back(m.columns.weight);
  std::sort(csv.numeric.begin(), csv.numeric.end());
  csv.numeric.erase(std::unique(csv.numeric.begin(), csv.numeric.end()), csv.numeric.end());
  const Table table = read_csv(m.file, csv);
  for (const auto& model : m.models) {
    metrics::EvaluateColumns columns = m.columns;
    columns.scores = model.scores;
    columns.pred = model.pred;
    try {
      out.metrics_inputs.push_back(metrics::evaluation_input(table, columns));
    } catch (const Error& e) {
      fail("model \"{}\": {}", model.name, e.what());
    }
  }
}

void prepare_soak(const SoakSection& s, PreparedOverview& out) {
  check_learners(s.params.run.learners);
  out.soak_tables = read_tables(s.files, s.spec.data.label,
                                s.spec.task == learners::TaskKind::classification, s.csv);
  for (const auto& [name, table] : out.soak_tables) {
    const soak::SoakTask task = soak::soak_task_from_table(table, s.spec, s.params.splits, name);
    if (task.splits.design().subset_names.size() < 2)
      fail("{}: subset column \"{}\" has {} value: Same/Other/All needs at least two subsets",
           table.source(), s.spec.design.subset, task.splits.design().subset_names.size());
  }
}

void prepare_cv(const CvSection& s, PreparedOverview& out) {
  check_learners(s.params.learners);
  out.cv_tables = read_tables(s.files, s.params.data.label,
                              s.params.task == learners::TaskKind::classification, s.csv);
  for (const auto& [name, table] : out.cv_tables) soak::cv_task_from_table(table, s.params, name);
}

void prepare_shift(const ShiftSection& s, PreparedOverview& out) {
  require_file(s.file, "data file");
  const auto& c = s.columns;
  CsvParams csv = s.csv;
  csv.numeric = {c.target};
  for (const auto* list : {&c.pred, &c.uncertainty, &c.members, &c.member_vars})
    csv.numeric.insert(csv.numeric.end(), list->begin(), list->end());
  if (!c.shifted.empty()) csv.numeric.push_back(c.shifted);
  if (!c.partition.empty()) csv.categorical.push_back(c.partition);
  out.shift_table = read_csv(s.file, csv);
}

void prepare_segment(const SegmentSection& s) {
  for (const auto& model : s.models) {
    shift::SegmentParams params = s.params;
    params.pred = model.pred;
    try {
      shift::match_subjects(params);
    } catch (const Error& e) {
      fail("model \"{}\": {}", model.name, e.what());
    }
  }
  if (!s.params.partition_csv.empty()) require_file(s.params.partition_csv, "partition file");
}

void prepare_count(const CountSection& s, PreparedOverview& out) {
  require_file(s.spec, "spec file");
  out.count_spec = count::load_spec(s.spec);
  for (const auto& m : s.models) {
    require_file(m.file, "model file");
    out.count_models.push_back(count::load_model(m.file));
    const auto& model = out.count_models.back();
    const std::size_t inputs = out.count_spec.domain.vars.size();
    if (model.n_features != inputs)
      fail("model \"{}\" ({}) has {} features, but {} declares {} inputs", m.name, m.file,
           model.n_features, s.spec, inputs);
  }
  if (!s.test.empty()) require_file(s.test, "test set");
}

// --- run -----------------------------------------------------------------------------------

detail::Results run_all(const PreparedOverview& p) {
  const ReportConfig& c = p.config;
  detail::Results r;
  if (c.metrics) {
    in_section(c, "metrics", [&] {
      for (const auto& input : p.metrics_inputs)
        r.metrics.push_back(metrics::evaluate(input, c.metrics->params));
      return 0;
    });
  }
  if (c.regression) {
    r.regression = in_section(c, "regression", [&] {
      return metrics::evaluate_regression(p.regression_input, c.regression->params);
    });
  }
  if (c.soak) {
    r.soak = in_section(c, "soak", [&] {
      return soak::soak_experiment(p.soak_tables, c.soak->spec, c.soak->params);
    });
  }
  if (c.cv) {
    r.cv = in_section(c, "cv", [&] { return soak::cv_experiment(p.cv_tables, c.cv->params); });
  }
  if (c.shift) {
    r.shift = in_section(c, "shift", [&] {
      return shift::evaluate_table(p.shift_table, c.shift->columns, c.shift->params);
    });
  }
  if (c.segment) {
    in_section(c, "segment", [&] {
      for (const auto& model : c.segment->models) {
        shift::SegmentParams params = c.segment->params;
        params.pred = model.pred;
        r.segment.push_back(shift::evaluate_segmentation_files(params));
      }
      return 0;
    });
  }
  if (c.compare) {
    r.compare =
        in_section(c, "compare", [&] { return detail::run_compare(*c.compare, p.compare_input); });
  }
  if (c.count) {
    in_section(c, "count", [&] {
      for (std::size_t i = 0; i < p.count_models.size(); ++i) {
        count::CountParams params = c.count->params;
        if (!c.count->test.empty()) {
          CsvParams csv = c.count->csv;
          csv.categorical = {c.count->test_label};
          count::set_test_set(params, p.count_models[i], read_csv(c.count->test, csv),
                              c.count->test_label);
        }
        r.count.push_back(count::count(p.count_models[i], p.count_spec, params));
      }
      return 0;
    });
  }
  return r;
}

// --- the JSON document ---------------------------------------------------------------------

// The paired comparisons of [metrics] (DeLong's test, the PR curves' relation and crossings), from
// the summary's pair claims: the numbers of the sentences and of the comparisons table.
Json metrics_comparisons_json(const std::vector<Claim>& summary) {
  Json out = Json::array();
  for (const auto& s : summary) {
    if (s.kind != "metrics.pair") continue;
    const Json& f = s.facts;
    out.push_back({{"model_a", s.subjects[0]},
                   {"model_b", s.subjects[1]},
                   {"roc_auc_a", f.at("auc_a")},
                   {"roc_auc_b", f.at("auc_b")},
                   {"delong", {{"z", f.at("z")}, {"p", f.at("p")}, {"level", f.at("level")}}},
                   {"pr",
                    {{"relation", f.at("relation")},
                     {"crossings", f.at("crossings")},
                     {"n_crossings", f.at("crossings").size()},
                     {"ap_a", f.at("ap_a")},
                     {"ap_b", f.at("ap_b")}}},
                   {"weighted", f.at("weighted")}});
  }
  return out;
}

// Every table the page offers, as the CSV it offers (full precision, read back): one object per
// row, keyed by column, numbers as numbers (NaN as null), text as text.
Json tables_json(const HtmlReport& page) {
  Json tables = Json::object();
  CsvParams csv;
  csv.allow_missing = true;
  csv.threads = 1;
  for (const auto& file : page.csv_files()) {
    const Table t = parse_csv(file.text, file.file_name, csv);
    Json rows = Json::array();
    for (std::size_t i = 0; i < t.n_rows(); ++i) {
      Json row = Json::object();
      for (const auto& col : t.columns())
        row[col.name] = col.is_numeric() ? Json(col.values[i]) : Json(col.categories[col.codes[i]]);
      rows.push_back(std::move(row));
    }
    tables[fs::path(file.file_name).stem().string()] = std::move(rows);
  }
  return tables;
}

Json document_of(const ReportConfig& c, const detail::Results& r,
                 const std::vector<Claim>& summary) {
  Json doc;
  doc["title"] = c.title;
  Json sentences = Json::array(), claims = Json::array();
  for (const auto& s : summary) {
    sentences.push_back(s.text);
    claims.push_back(claim_json(s));
  }
  doc["summary"] = sentences;
  doc["claims"] = claims;
  if (c.metrics) {
    Json models = Json::object();
    for (std::size_t i = 0; i < r.metrics.size(); ++i)
      models[c.metrics->models[i].name] = evaluation_json(r.metrics[i]);
    doc["metrics"] = {{"models", models}, {"comparisons", metrics_comparisons_json(summary)}};
  }
  if (r.regression) doc["regression"] = regression_json(*r.regression);
  if (r.soak) doc["soak"] = soak::statistics_json(r.soak->statistics);
  if (r.cv) doc["cv"] = soak::cv_json(*r.cv);
  if (r.shift) doc["shift"] = shift_json(*r.shift);
  if (c.segment) {
    Json models = Json::object();
    for (std::size_t i = 0; i < r.segment.size(); ++i)
      models[c.segment->models[i].name] = segment_json(r.segment[i]);
    doc["segment"] = {{"models", models}};
  }
  if (c.count) {
    Json models = Json::object();
    for (std::size_t i = 0; i < r.count.size(); ++i)
      models[c.count->models[i].name] = count_json(r.count[i]);
    doc["count"] = {{"models", models}};
  }
  if (r.compare) doc["compare"] = compare_json(r.compare->result, r.compare->gates);
  return doc;
}

// --- the page ------------------------------------------------------------------------------

void render_top(HtmlReport& page, const ReportConfig& c, const std::vector<Claim>& summary) {
  page.add_paragraph(fmt::format(
      "Built by assay report from {}. Each section below runs the analysis of the assay "
      "subcommand of the same name on the data the configuration names; every table can be "
      "downloaded as CSV, and every chart shows exact values in its tooltips.",
      c.source.name()));
  page.add_heading("Summary", 2, "summary");
  std::vector<std::vector<TextSpan>> items;
  for (const auto& s : summary)
    items.push_back({{s.text + " "}, {"\u2192 details", "#" + s.section}});
  page.add_list(items, /*highlight=*/true);
  std::vector<std::vector<TextSpan>> toc;
  const auto entry = [&](bool present, const char* title, const char* anchor) {
    if (present) toc.push_back({detail::section_link(title, anchor)});
  };
  entry(c.metrics.has_value(), "Metrics: what the predictions say", detail::kMetricsAnchor);
  entry(c.regression.has_value(), "Regression: how far off are the predictions?",
        detail::kRegressionAnchor);
  entry(c.soak.has_value(), "Same/Other/All: can the data's subsets be pooled?",
        detail::kSoakAnchor);
  entry(c.cv.has_value(), "Cross-validation: which learner?", detail::kCvAnchor);
  entry(c.shift.has_value(), "Shift: errors and uncertainty under distribution shift",
        detail::kShiftAnchor);
  entry(c.segment.has_value(), "Segmentation: lesions under shift", detail::kSegmentAnchor);
  entry(c.count.has_value(), "Counting: the whole input space", detail::kCountAnchor);
  entry(c.compare.has_value(), "Compare: which model is better, by how much, where",
        detail::kCompareAnchor);
  page.add_heading("Contents", 3);
  page.add_list(toc);
}

HtmlReport render_page(const PreparedOverview& p, const detail::Results& r,
                       const std::vector<Claim>& summary) {
  const ReportConfig& c = p.config;
  HtmlReport page(c.title);
  render_top(page, c, summary);
  if (c.metrics) detail::render_metrics(page, *c.metrics, r.metrics, summary, c.chart_axis);
  if (r.regression) detail::render_regression(page, *c.regression, *r.regression, summary);
  if (r.soak) detail::render_soak(page, *c.soak, *r.soak);
  if (r.cv) detail::render_cv(page, *c.cv, *r.cv);
  if (r.shift) detail::render_shift(page, *c.shift, *r.shift);
  if (c.segment) detail::render_segment(page, *c.segment, r.segment, c.chart_axis);
  if (c.count) {
    std::optional<double> threshold;
    if (c.metrics) threshold = c.metrics->params.threshold;
    detail::render_count(page, *c.count, r.count, threshold, c.chart_axis);
  }
  if (r.compare) detail::render_compare(page, *c.compare, *r.compare);
  page.add_json("The configuration, as read", c.document);
  return page;
}

}  // namespace

PreparedOverview prepare_overview(const ReportConfig& config) {
  PreparedOverview p{config, {}, {}, {}, {}, {}, {}, {}, {}};
  if (config.metrics) in_section(config, "metrics", [&] { prepare_metrics(*config.metrics, p); });
  if (config.regression) {
    in_section(config, "regression", [&] {
      require_file(config.regression->file, "predictions file");
      p.regression_input = detail::prepare_regression(*config.regression);
    });
  }
  if (config.soak) in_section(config, "soak", [&] { prepare_soak(*config.soak, p); });
  if (config.cv) in_section(config, "cv", [&] { prepare_cv(*config.cv, p); });
  if (config.shift) in_section(config, "shift", [&] { prepare_shift(*config.shift, p); });
  if (config.segment) in_section(config, "segment", [&] { prepare_segment(*config.segment); });
  if (config.count) in_section(config, "count", [&] { prepare_count(*config.count, p); });
  if (config.compare) {
    in_section(config, "compare", [&] {
      require_file(config.compare->file, "predictions file");
      p.compare_input = detail::prepare_compare(*config.compare);
    });
  }
  return p;
}

Overview run_overview(const PreparedOverview& p) {
  const ReportConfig& c = p.config;
  const detail::Results r = run_all(p);
  std::vector<Claim> summary;
  const auto add = [&](std::vector<Claim> more) {
    summary.insert(summary.end(), more.begin(), more.end());
  };
  if (c.metrics) add(detail::summarize_metrics(*c.metrics, r.metrics, p.metrics_inputs));
  if (r.regression) add(regression_claims(*r.regression));
  if (r.soak) add(detail::summarize_soak(*r.soak));
  if (r.cv) add(detail::summarize_cv(*r.cv));
  if (r.shift) add(detail::summarize_shift(*r.shift));
  if (c.segment) add(detail::summarize_segment(*c.segment, r.segment));
  if (c.count) add(detail::summarize_count(*c.count, r.count));
  if (r.compare) add(detail::summarize_compare(*r.compare));
  Overview o{render_page(p, r, summary), document_of(c, r, summary), {}, summary};
  o.document["tables"] = tables_json(o.page);
  for (const auto& s : summary) o.summary.push_back(s.text);
  return o;
}

void check_overview_outputs(const std::string& path, std::string_view what) {
  check_writable(path, what);
  const fs::path page(path);
  check_derived_outputs(page.parent_path().string(), {page.stem().string() + ".json"},
                        fmt::format("{} {}", what, path));
}

namespace {

// Removes the tables folder again when this run created it and did not commit (it is then empty:
// the batch removed its temporaries).
struct CreatedFolder {
  fs::path folder;
  bool created = false, keep = false;
  ~CreatedFolder() {
    std::error_code ignored;
    if (created && !keep) fs::remove(folder, ignored);
  }
};

}  // namespace

std::vector<std::string> write_overview(const Overview& overview, const std::string& path,
                                        const std::function<void()>& before_commit) {
  const fs::path page(path);
  const fs::path json = page.parent_path() / (page.stem().string() + ".json");
  check_writable(path);
  check_writable(json.string());
  std::error_code ec;
  CreatedFolder tables{page.parent_path() / (page.stem().string() + "_tables")};
  tables.created = fs::create_directories(tables.folder, ec);
  if (ec) fail("{}: cannot create directory: {}", tables.folder.string(), ec.message());
  // All or nothing: a failure on the page leaves no fresh tables or JSON looking complete.
  std::vector<std::string> written{path};
  OutputBatch files;
  for (const auto& csv : overview.page.csv_files()) {
    const std::string file = (tables.folder / csv.file_name).string();
    files.stage(file, csv.text);
    written.push_back(file);
  }
  files.stage(json.string(),
              overview.document.dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
  written.push_back(json.string());
  files.stage(path, overview.page.render());
  if (before_commit) before_commit();
  files.commit();
  tables.keep = true;
  return written;
}

std::string render_claim(const Claim& claim) {
  const std::string prefix = claim.kind.substr(0, claim.kind.find('.'));
  if (prefix == "metrics") return detail::render_metrics_claim(claim);
  if (prefix == "regression") return regression_claim_text(claim);
  if (prefix == "soak" || prefix == "cv") return detail::render_learning_claim(claim);
  if (prefix == "shift" || prefix == "segment") return detail::render_shift_claim(claim);
  if (prefix == "count") return detail::render_count_claim(claim);
  if (prefix == "compare") return detail::render_compare_claim(claim);
  fail("unknown kind of claim {}", quote_found(claim.kind));
}

}  // namespace assay::report

namespace assay::report::detail {

Claim make_claim(std::string kind, std::string section, std::vector<std::string> subjects,
                 Json facts) {
  Claim c{std::move(kind), std::move(section), std::move(subjects), std::move(facts), ""};
  c.text = render_claim(c);
  return c;
}

TextSpan section_link(const std::string& text, const std::string& anchor) {
  return {text, "#" + anchor};
}

}  // namespace assay::report::detail

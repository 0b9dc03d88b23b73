#include "assay/batch/experiment.hpp"

#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/json.hpp"
#include "assay/core/options.hpp"
#include "assay/core/output_file.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/report/cv.hpp"
#include "assay/report/soak.hpp"
#include "assay/soak/statistics.hpp"

namespace assay::batch {
namespace {

// Typed access to a definition's fields, naming the file and the key in messages.
class Reader {
 public:
  Reader(const Json& json, std::string where) : json_(json), where_(std::move(where)) {
    if (!json_.is_object()) fail("{}: expected a JSON object, found {}", where_, json_.dump());
  }
  const Json& at(const char* key) const {
    const auto it = json_.find(key);
    if (it == json_.end()) fail("{}: expected the field \"{}\", found none", where_, key);
    return *it;
  }
  std::string text(const char* key) const {
    const Json& v = at(key);
    if (!v.is_string()) wrong(key, "text", v);
    return v.get<std::string>();
  }
  std::vector<std::string> texts(const char* key) const {
    const Json& v = at(key);
    std::vector<std::string> out;
    if (!v.is_array()) wrong(key, "a list of texts", v);
    for (const auto& x : v) {
      if (!x.is_string()) wrong(key, "a list of texts", v);
      out.push_back(x.get<std::string>());
    }
    return out;
  }
  std::int64_t integer(const char* key) const {
    const Json& v = at(key);
    if (!v.is_number_integer()) wrong(key, "an integer", v);
    return v.get<std::int64_t>();
  }
  /// A seed or count, by the rule of --seed (core/options.hpp) on the number's text.
  std::uint64_t natural(const char* key) const {
    const Json& v = at(key);
    if (!v.is_number()) wrong(key, "a non-negative integer", v);
    return parse_unsigned(fmt::format("{}: field \"{}\"", where_, key), v.dump());
  }
  double number(const char* key) const {
    const Json& v = at(key);
    if (!v.is_number()) wrong(key, "a number", v);
    return v.get<double>();
  }
  Reader object(const char* key) const { return Reader(at(key), where_ + " (" + key + ")"); }
  bool has(const char* key) const { return json_.contains(key); }

 private:
  [[noreturn]] void wrong(const char* key, const char* expected, const Json& found) const {
    fail("{}: field \"{}\": expected {}, found {}", where_, key, expected, found.dump());
  }
  const Json& json_;
  std::string where_;
};

soak::SoakOutcome soak_outcome(const ExperimentDefinition& def, LoadedExperiment loaded,
                               soak::SoakResults results) {
  soak::SoakOutcome out;
  out.tasks = std::move(loaded.tasks);
  out.results = std::move(results);
  out.statistics = soak::soak_statistics(out.results, def.params.statistics);
  return out;
}

soak::CvOutcome cv_outcome(const ExperimentDefinition& def, LoadedExperiment loaded,
                           soak::SoakResults results) {
  soak::CvOutcome out;
  out.tasks = std::move(loaded.tasks);
  out.results = std::move(results);
  out.measure = def.spec.task == learners::TaskKind::classification ? "error_percent" : "mse";
  out.summaries = soak::cv_summaries(out.results, out.measure);
  return out;
}

}  // namespace

const char* to_string(ExperimentKind kind) {
  return kind == ExperimentKind::soak ? "soak" : "cv";
}

namespace {
// The files' delimiter and decimal mark as parse_delimiter / parse_decimal read them back.
Json dialect_json(const ExperimentDefinition& def) {
  auto text = [](std::optional<char> c) {
    return !c ? std::string("auto") : *c == '\t' ? std::string("tab") : std::string(1, *c);
  };
  return {{"delimiter", text(def.delimiter)}, {"decimal", text(def.decimal)}};
}
}  // namespace

Json definition_json(const ExperimentDefinition& def) {
  const auto& c = def.spec;
  const auto& s = def.params.splits;
  const auto& r = def.params.run;
  return Json{{"kind", to_string(def.kind)},
              {"files", def.files},
              {"title", def.title},
              {"columns",
               {{"label", c.data.label},
                {"features", c.data.features},
                {"drop", c.data.drop},
                {"weight", c.data.weight},
                {"subset", c.design.subset},
                {"group", c.design.group},
                {"fold", c.design.fold},
                {"strata", c.design.strata},
                {"max_levels", c.data.max_levels}}},
              {"task", std::string(to_string(c.task))},
              {"splits",
               {{"folds", s.folds},
                {"subsets", s.subsets},
                {"sizes", s.sizes},
                {"ratio", s.ratio},
                {"seeds", s.seeds},
                {"seed", s.seed}}},
              {"learners", r.learners},
              {"learner_params", r.learner_params},
              {"seed", r.seed},
              {"measure", def.params.statistics.measure},
              {"csv", dialect_json(def)}};
}

ExperimentDefinition definition_from_json(const Json& json, const std::string& where) {
  const Reader in(json, where);
  ExperimentDefinition def;
  const std::string kind = in.text("kind");
  if (kind == "soak") {
    def.kind = ExperimentKind::soak;
  } else if (kind == "cv") {
    def.kind = ExperimentKind::cv;
  } else {
    fail("{}: field \"kind\": expected \"soak\" or \"cv\", found {}", where, quote_found(kind));
  }
  def.files = in.texts("files");
  def.title = in.text("title");
  if (in.has("csv")) {  // absent from registries planned before --delimiter existed: detected
    const Reader csv = in.object("csv");
    def.delimiter = parse_delimiter(csv.text("delimiter"), where + ": field \"csv.delimiter\"");
    def.decimal = parse_decimal(csv.text("decimal"), where + ": field \"csv.decimal\"");
  }
  const Reader columns = in.object("columns");
  def.spec.data.label = columns.text("label");
  def.spec.data.features = columns.texts("features");
  def.spec.data.drop = columns.texts("drop");
  def.spec.data.weight = columns.text("weight");
  def.spec.design.subset = columns.text("subset");
  def.spec.design.group = columns.text("group");
  def.spec.design.fold = columns.text("fold");
  def.spec.design.strata = columns.texts("strata");
  // Absent from registries planned before the limit existed: the default then.
  if (columns.has("max_levels")) def.spec.data.max_levels = columns.natural("max_levels");
  const std::string task = in.text("task");
  def.spec.task = parse_task_kind(task, fmt::format("{}: field \"task\"", where));
  const Reader splits = in.object("splits");
  auto& s = def.params.splits;
  s.folds = static_cast<int>(splits.integer("folds"));
  s.subsets = splits.text("subsets");
  s.sizes = static_cast<int>(splits.integer("sizes"));
  s.ratio = splits.number("ratio");
  s.seeds = static_cast<int>(splits.integer("seeds"));
  s.seed = splits.natural("seed");
  def.params.run.learners = in.texts("learners");
  def.params.run.learner_params = in.at("learner_params");
  def.params.run.seed = in.natural("seed");
  def.params.statistics.measure = in.text("measure");
  return def;
}

soak::CvParams cv_params(const ExperimentDefinition& def, int threads) {
  soak::CvParams p;
  p.data = def.spec.data;
  p.group = def.spec.design.group;
  p.fold = def.spec.design.fold;
  p.task = def.spec.task;
  p.folds = def.params.splits.folds;
  p.learners = def.params.run.learners;
  p.learner_params = def.params.run.learner_params;
  p.seed = def.params.splits.seed;
  p.threads = threads;
  return p;
}

std::vector<std::pair<std::string, Table>> read_experiment_tables(
    const std::vector<std::string>& files, const std::string& label, learners::TaskKind task,
    std::optional<char> delimiter, std::optional<char> decimal) {
  CsvParams csv;
  csv.delimiter = delimiter;
  csv.decimal = decimal;
  if (task == learners::TaskKind::classification) csv.categorical = {label};
  std::vector<std::pair<std::string, Table>> tables;
  for (const auto& file : files) {
    tables.emplace_back(std::filesystem::path(file).stem().string(), read_csv(file, csv));
  }
  return tables;
}

LoadedExperiment load_experiment(const ExperimentDefinition& def) {
  const auto tables = read_experiment_tables(def.files, def.spec.data.label, def.spec.task,
                                             def.delimiter, def.decimal);
  LoadedExperiment loaded;
  if (tables.empty()) {
    if (def.kind == ExperimentKind::soak)
      fail("a SOAK experiment needs at least one data set (found none)");
    fail("cross-validation needs at least one data set (found none)");
  }
  std::set<std::string> names;
  const soak::CvParams cv = cv_params(def, 1);
  for (const auto& [name, table] : tables) {
    if (!names.insert(name).second)
      fail("data set names must be unique ({} appears twice)", quote_found(name));
    loaded.tasks.push_back(
        def.kind == ExperimentKind::soak
            ? soak::soak_task_from_table(table, def.spec, def.params.splits, name)
            : soak::cv_task_from_table(table, cv, name));
  }
  loaded.owned = soak::make_soak_learners(def.params.run);
  for (const auto& l : loaded.owned) loaded.learners.push_back(l.get());
  soak::check_soak_inputs(loaded.tasks, loaded.learners);
  return loaded;
}

namespace {

// cv seeds its learners from its one seed, soak from the run's seed (equal by default).
std::uint64_t learner_seed(const ExperimentDefinition& def) {
  return def.kind == ExperimentKind::soak ? def.params.run.seed : def.params.splits.seed;
}

}  // namespace

soak::SoakUnitResult run_unit(const ExperimentDefinition& def, const LoadedExperiment& loaded,
                              std::size_t u, int threads) {
  return soak::run_soak_unit(loaded.tasks, loaded.learners, u, learner_seed(def), threads);
}

ExperimentOutcome outcome_from_units(const ExperimentDefinition& def, LoadedExperiment loaded,
                                     std::vector<soak::SoakUnitResult> units) {
  ASSAY_ASSERT(units.size() == loaded.n_units());
  soak::warn_soak_units(loaded.tasks, loaded.learners, units);
  soak::SoakResults results;
  results.rows.reserve(units.size());
  for (auto& unit : units) results.rows.push_back(std::move(unit.row));
  ExperimentOutcome out;
  out.kind = def.kind;
  if (def.kind == ExperimentKind::soak) {
    out.soak = soak_outcome(def, std::move(loaded), std::move(results));
  } else {
    out.cv = cv_outcome(def, std::move(loaded), std::move(results));
  }
  return out;
}

ExperimentOutcome run_experiment(const ExperimentDefinition& def, int threads) {
  LoadedExperiment loaded = load_experiment(def);
  // As run_soak: one fit per distinct train set; each unit's row equals run_unit's.
  std::vector<soak::SoakUnitResult> units = soak::run_soak_units(
      loaded.tasks, loaded.learners, learner_seed(def), threads, to_string(def.kind));
  return outcome_from_units(def, std::move(loaded), std::move(units));
}

void write_outputs(const ExperimentDefinition& def, const ExperimentOutcome& outcome,
                   const std::string& out) {
  const std::filesystem::path dir(out);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail("{}: cannot create directory: {}", out, ec.message());
  auto path = [&](const char* name) { return (dir / name).string(); };
  // All or nothing: a failure on report.html leaves no fresh results.csv behind.
  OutputBatch files;
  if (def.kind == ExperimentKind::soak) {
    const auto& o = outcome.soak;
    files.stage(path("results.csv"), format_csv(soak::results_table(o.results)));
    files.stage(path("pvalues.csv"), format_csv(soak::pvalues_table(o.statistics)));
    files.stage(path("summaries.csv"), format_csv(soak::summaries_table(o.statistics)));
    files.stage(path("results.json"), dump_json(soak::results_json(o.results), 1) + "\n");
    files.stage(path("report.html"), report::soak_html(o.statistics, o.results, def.title,
                                                       soak::describe_experiment(o, def.params))
                                         .render());
  } else {
    const auto& o = outcome.cv;
    files.stage(path("results.csv"), format_csv(soak::cv_results_table(o.results)));
    files.stage(path("summary.csv"), format_csv(soak::cv_summary_table(o)));
    files.stage(path("results.json"), dump_json(soak::cv_json(o), 1) + "\n");
    files.stage(path("report.html"),
                report::cv_html(o, def.title, soak::describe_cv(o, cv_params(def, 0))).render());
  }
  files.commit();
}

std::vector<std::string> output_files(ExperimentKind kind) {
  if (kind == ExperimentKind::soak) {
    return {"results.csv", "pvalues.csv", "summaries.csv", "results.json", "report.html"};
  }
  return {"results.csv", "summary.csv", "results.json", "report.html"};
}

std::string output_names(ExperimentKind kind) {
  return kind == ExperimentKind::soak
             ? "{results.csv,pvalues.csv,summaries.csv,results.json,report.html}"
             : "{results.csv,summary.csv,results.json,report.html}";
}

std::string outcome_text(const ExperimentDefinition& def, const ExperimentOutcome& outcome,
                         bool json) {
  if (def.kind == ExperimentKind::soak) {
    const auto& o = outcome.soak;
    if (json) return dump_json(soak::statistics_json(o.statistics), 2) + "\n";
    return soak::describe_experiment(o, def.params) + "\n\n" + report::soak_text(o.statistics);
  }
  const auto& o = outcome.cv;
  if (json) {
    Json summary = soak::cv_json(o);
    summary.erase("results");
    return dump_json(summary, 2) + "\n";
  }
  return soak::describe_cv(o, cv_params(def, 0)) + "\n\n" + report::cv_text(o);
}

}  // namespace assay::batch

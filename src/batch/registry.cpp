#include "assay/batch/registry.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/json.hpp"
#include "assay/core/output_file.hpp"
#include "assay/core/sha256.hpp"
#include "assay/core/validate.hpp"
#include "files.hpp"
#include "system.hpp"

#ifndef ASSAY_VERSION
#error "ASSAY_VERSION must be defined by the build (the project's version)"
#endif

namespace assay::batch {
namespace fs = std::filesystem;
namespace {

constexpr const char* kFormat = "assay-registry 1";
constexpr const char* kResultFormat = "assay-result 1";

std::string job_file(std::size_t job) {
  return fmt::format("{:06}.json", job);
}

Json number(double v) {
  return std::isnan(v) ? Json(nullptr) : Json(v);
}

double number_from(const Json& v, const char* key, const std::string& where) {
  if (v.is_null()) return kNaN;
  if (!v.is_number())
    fail("{}: field \"{}\": expected a number or null, found {}", where, key, v.dump());
  return v.get<double>();
}

const Json& field(const Json& json, const char* key, const std::string& where) {
  if (!json.is_object()) fail("{}: expected a JSON object, found {}", where, json.dump());
  const auto it = json.find(key);
  if (it == json.end()) fail("{}: expected the field \"{}\", found none", where, key);
  return *it;
}

template <typename T>
T typed(const Json& json, const char* key, const std::string& where) {
  const Json& v = field(json, key, where);
  try {
    return v.get<T>();
  } catch (const Json::exception&) {
    fail("{}: field \"{}\" has the wrong type, found {}", where, key, v.dump());
  }
}

soak::TrainSubsets train_subsets_from(const std::string& s, const std::string& where) {
  if (s == "all") return soak::TrainSubsets::all;
  if (s == "other") return soak::TrainSubsets::other;
  if (s == "same") return soak::TrainSubsets::same;
  fail("{}: expected train subsets all, other or same, found {}", where, quote_found(s));
}

std::vector<RegistryInput> hash_inputs(const std::vector<std::string>& files) {
  std::vector<RegistryInput> inputs;
  for (const auto& file : files) {
    std::error_code ec;
    RegistryInput in;
    in.path = file;
    in.bytes = fs::file_size(file, ec);
    if (ec) fail("{}: cannot read: {}", file, ec.message());
    in.sha256 = sha256_file(file);
    inputs.push_back(std::move(in));
  }
  return inputs;
}

Json inputs_json(const std::vector<RegistryInput>& inputs) {
  Json out = Json::array();
  for (const auto& in : inputs) {
    out.push_back({{"path", in.path}, {"bytes", in.bytes}, {"sha256", in.sha256}});
  }
  return out;
}

std::string registry_id(const Json& experiment, const Json& inputs) {
  return sha256_hex(dump_json(experiment, -1) + "\n" + dump_json(inputs, -1));
}

Table jobs_table(const std::vector<JobInfo>& jobs) {
  const std::size_t n = jobs.size();
  std::vector<std::string> data(n), learner(n), subset(n), train(n);
  std::vector<std::vector<double>> num(9, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const auto& j = jobs[i];
    data[i] = j.data;
    learner[i] = j.learner;
    subset[i] = j.test_subset;
    train[i] = soak::to_string(j.train_subsets);
    const double v[9] = {double(j.test_fold),
                         double(j.seed),
                         double(j.n_train_groups),
                         double(j.iteration),
                         double(j.n_train),
                         double(j.n_test),
                         j.cost,
                         double(j.job),
                         0};
    for (std::size_t k = 0; k < 9; ++k) num[k][i] = v[k];
  }
  Table t;
  t.add_column(Column::numeric("job", std::move(num[7])));
  t.add_column(Column::categorical("data", data));
  t.add_column(Column::categorical("learner", learner));
  t.add_column(Column::categorical("test.subset", subset));
  t.add_column(Column::categorical("train.subsets", train));
  const char* names[7] = {"test.fold", "seed", "n.train.groups", "iteration", "n_train",
                          "n_test",    "cost"};
  for (std::size_t k = 0; k < 7; ++k) t.add_column(Column::numeric(names[k], std::move(num[k])));
  return t;
}

std::vector<JobInfo> jobs_from_table(const Table& t) {
  std::vector<JobInfo> jobs(t.n_rows());
  // Counts and numbers of a job: a damaged cell (nan, -1, 1e300) is named, not cast.
  auto num = [&](const char* name, std::size_t i) {
    const Column& c = t.column(name);
    if (!c.is_numeric()) {
      fail_at_cell(t, i, name, fmt::format("expected a number, found {}", quote_found(c.label(i))));
    }
    const double v = c.values[i];
    if (!(v >= 0 && v <= 9007199254740992.0)) {
      fail_at_cell(t, i, name, fmt::format("expected a number >= 0, found {}", v));
    }
    return v;
  };
  for (std::size_t i = 0; i < t.n_rows(); ++i) {
    JobInfo& j = jobs[i];
    j.job = static_cast<std::size_t>(num("job", i));
    if (j.job != i + 1)
      fail_in(t, fmt::format("data row {}: expected job {}, found {}", i + 1, i + 1, j.job));
    j.data = t.column("data").label(i);
    j.learner = t.column("learner").label(i);
    j.test_subset = t.column("test.subset").label(i);
    j.train_subsets = train_subsets_from(t.column("train.subsets").label(i), t.source());
    j.test_fold = static_cast<std::int32_t>(num("test.fold", i));
    j.seed = static_cast<std::int32_t>(num("seed", i));
    j.n_train_groups = static_cast<std::int64_t>(num("n.train.groups", i));
    j.iteration = static_cast<std::size_t>(num("iteration", i));
    j.n_train = static_cast<std::size_t>(num("n_train", i));
    j.n_test = static_cast<std::size_t>(num("n_test", i));
    j.cost = num("cost", i);
  }
  return jobs;
}

// "glmnet on slow, all train, test subset A, fold 1, iteration 3": which split a row is.
std::string split_label(const std::string& learner, const std::string& data,
                        soak::TrainSubsets train, const std::string& subset, std::int32_t fold,
                        std::size_t iteration) {
  return fmt::format("{} on {}, {} train, test subset {}, fold {}, iteration {}", learner, data,
                     soak::to_string(train), subset, fold, iteration);
}

// A result file holds the row of the job it is named after: the same split and sizes.
void check_row_of_job(const soak::SoakResultRow& r, const JobInfo& j, const std::string& where) {
  const std::string expected =
      split_label(j.learner, j.data, j.train_subsets, j.test_subset, j.test_fold, j.iteration);
  const std::string found =
      split_label(r.learner, r.data, r.train_subsets, r.test_subset, r.test_fold, r.iteration);
  if (expected != found) {
    fail("{}: expected the row of job {} ({}), found {}", where, j.job, expected, found);
  }
  if (r.n_train != j.n_train || r.n_test != j.n_test || r.seed != j.seed ||
      r.n_train_groups != j.n_train_groups) {
    fail(
        "{}: expected job {}'s {} train and {} test rows (seed {}, {} train groups), found {} and "
        "{} (seed {}, {} train groups)",
        where, j.job, j.n_train, j.n_test, j.seed, j.n_train_groups, r.n_train, r.n_test, r.seed,
        r.n_train_groups);
  }
}

}  // namespace

const std::string& assay_version() {
  static const std::string version = ASSAY_VERSION;
  return version;
}

// ---------------------------------------------------------------------------------------------
// Result files.

Json provenance_json(const JobProvenance& p) {
  return Json{{"host", p.host},
              {"pid", p.pid},
              {"started", p.started},
              {"finished", p.finished},
              {"seconds", p.seconds},
              {"cpu_seconds", number(p.cpu_seconds)},
              {"peak_rss_bytes", p.peak_rss_bytes},
              {"attempt", p.attempt},
              {"slurm_job_id", p.slurm_job_id},
              {"slurm_array_task_id", p.slurm_array_task_id},
              {"mpi_rank", p.mpi_rank}};
}

JobProvenance provenance_from_json(const Json& json, const std::string& where) {
  JobProvenance p;
  p.host = typed<std::string>(json, "host", where);
  p.pid = typed<std::int64_t>(json, "pid", where);
  p.started = typed<std::string>(json, "started", where);
  p.finished = typed<std::string>(json, "finished", where);
  p.seconds = typed<double>(json, "seconds", where);
  if (const auto it = json.find("cpu_seconds"); it != json.end()) {
    p.cpu_seconds = number_from(*it, "cpu_seconds", where);
  }
  p.peak_rss_bytes = typed<std::int64_t>(json, "peak_rss_bytes", where);
  p.attempt = typed<std::size_t>(json, "attempt", where);
  p.slurm_job_id = typed<std::string>(json, "slurm_job_id", where);
  p.slurm_array_task_id = typed<std::string>(json, "slurm_array_task_id", where);
  p.mpi_rank = typed<int>(json, "mpi_rank", where);
  return p;
}

Json unit_result_json(const soak::SoakUnitResult& unit) {
  const auto& r = unit.row;
  return Json{{"data", r.data},
              {"learner", r.learner},
              {"test.subset", r.test_subset},
              {"train.subsets", soak::to_string(r.train_subsets)},
              {"test.fold", r.test_fold},
              {"seed", r.seed},
              {"groups", r.groups},
              {"n.train.groups", r.n_train_groups},
              {"iteration", r.iteration},
              {"n_train", r.n_train},
              {"n_test", r.n_test},
              {"error_percent", number(r.error_percent)},
              {"auc", number(r.auc)},
              {"mse", number(r.mse)},
              {"mae", number(r.mae)},
              {"train_seconds", number(r.train_seconds)},
              {"predict_seconds", number(r.predict_seconds)},
              {"hyperparameters", r.hyperparameters},
              {"failure", r.failure},
              {"auc_one_class", unit.auc_one_class}};
}

soak::SoakUnitResult unit_result_from_json(const Json& json, const std::string& where) {
  soak::SoakUnitResult unit;
  auto& r = unit.row;
  r.data = typed<std::string>(json, "data", where);
  r.learner = typed<std::string>(json, "learner", where);
  r.test_subset = typed<std::string>(json, "test.subset", where);
  r.train_subsets = train_subsets_from(typed<std::string>(json, "train.subsets", where), where);
  r.test_fold = typed<std::int32_t>(json, "test.fold", where);
  r.seed = typed<std::int32_t>(json, "seed", where);
  r.groups = typed<std::int64_t>(json, "groups", where);
  r.n_train_groups = typed<std::int64_t>(json, "n.train.groups", where);
  r.iteration = typed<std::size_t>(json, "iteration", where);
  r.n_train = typed<std::size_t>(json, "n_train", where);
  r.n_test = typed<std::size_t>(json, "n_test", where);
  for (auto [key, slot] : {std::pair{"error_percent", &r.error_percent},
                           {"auc", &r.auc},
                           {"mse", &r.mse},
                           {"mae", &r.mae},
                           {"train_seconds", &r.train_seconds},
                           {"predict_seconds", &r.predict_seconds}}) {
    *slot = number_from(field(json, key, where), key, where);
  }
  r.hyperparameters = typed<std::string>(json, "hyperparameters", where);
  r.failure = typed<std::string>(json, "failure", where);
  unit.auc_one_class = typed<bool>(json, "auc_one_class", where);
  return unit;
}

// ---------------------------------------------------------------------------------------------
// The registry.

std::vector<JobInfo> job_table(const LoadedExperiment& loaded) {
  const soak::SoakUnits units(loaded.tasks, loaded.learners.size());
  std::vector<JobInfo> jobs(units.size());
  for (std::size_t u = 0; u < units.size(); ++u) {
    const soak::SoakUnit unit = units.at(u);
    const soak::SoakTask& task = loaded.tasks[unit.task];
    const soak::SplitInfo& info = task.splits.info(unit.split);
    JobInfo& j = jobs[u];
    j.job = u + 1;
    j.data = task.dataset.name;
    j.learner = loaded.learners[unit.learner]->name();
    j.test_subset = task.splits.design().subset_names.at(std::size_t(info.test_subset));
    j.train_subsets = info.train_subsets;
    j.test_fold = info.test_fold;
    j.seed = info.seed;
    j.n_train_groups = info.n_train_groups;
    j.iteration = info.iteration;
    j.n_train = task.splits.train_rows(unit.split).size();
    j.n_test = task.splits.test_rows(unit.split).size();
    const double classes = std::max<double>(1, double(task.dataset.n_classes()));
    j.cost =
        double(j.n_train) * double(std::max<std::size_t>(1, task.dataset.n_features)) * classes;
  }
  return jobs;
}

Registry Registry::plan(const std::string& dir, const ExperimentDefinition& given,
                        const std::string& out) {
  ExperimentDefinition def = given;
  for (auto& f : def.files) f = fs::absolute(f).lexically_normal().string();
  std::string out_abs = out.empty() ? "" : fs::absolute(out).lexically_normal().string();
  const fs::path folder(dir);
  std::error_code ec;
  if (fs::exists(folder / "registry.json", ec)) {
    Registry existing = open(dir);
    const Json experiment = definition_json(def);
    const Json inputs = inputs_json(hash_inputs(def.files));
    if (existing.id() != registry_id(experiment, inputs)) {
      const Json& old = existing.document().at("experiment");
      std::string what;
      for (const auto& [key, value] : experiment.items()) {
        if (!old.contains(key) || old.at(key) != value) {
          what = fmt::format("\"{}\" is {} there but {} here", key,
                             old.contains(key) ? old.at(key).dump() : "absent", value.dump());
          break;
        }
      }
      if (what.empty()) what = "its input files differ (size or SHA-256)";
      fail(
          "{} holds the registry of another experiment ({}); plan this one in a new folder, or "
          "delete that one",
          dir, what);
    }
    if (!out_abs.empty() && out_abs != existing.out_) {
      existing.out_ = out_abs;
      existing.document_["out"] = out_abs;
      write_file_atomic((folder / "registry.json").string(),
                        dump_json(existing.document_, 1) + "\n");
    }
    return existing;
  }
  if (fs::exists(folder, ec) && !fs::is_directory(folder, ec)) {
    fail("{}: expected a folder for the registry, found a file", dir);
  }
  if (fs::exists(folder, ec) && !fs::is_empty(folder, ec)) {
    fail(
        "{}: expected a new or empty folder for the registry, found a folder with other files "
        "(and no registry.json)",
        dir);
  }
  Registry reg;
  reg.dir_ = folder;
  reg.definition_ = def;
  reg.out_ = out_abs;
  reg.inputs_ = hash_inputs(def.files);
  const LoadedExperiment loaded = load_experiment(def);
  reg.jobs_ = job_table(loaded);
  const Json experiment = definition_json(def);
  const Json inputs = inputs_json(reg.inputs_);
  reg.id_ = registry_id(experiment, inputs);
  reg.document_ = Json{{"format", kFormat},
                       {"assay_version", assay_version()},
                       {"id", reg.id_},
                       {"created", detail::utc_now()},
                       {"experiment", experiment},
                       {"inputs", inputs},
                       {"jobs", reg.jobs_.size()},
                       {"out", out_abs}};
  fs::create_directories(folder, ec);
  if (ec) fail("{}: cannot create the registry folder: {}", dir, ec.message());
  for (const char* sub : {"results", "running", "failed", "slurm", "logs"}) {
    fs::create_directories(folder / sub, ec);
    if (ec) fail("{}: cannot create {}: {}", dir, sub, ec.message());
  }
  write_csv(jobs_table(reg.jobs_), (folder / "jobs.csv").string());
  // registry.json last: a folder with it is a complete registry.
  write_file_atomic((folder / "registry.json").string(), dump_json(reg.document_, 1) + "\n");
  return reg;
}

Registry Registry::open(const std::string& dir) {
  const fs::path folder(dir);
  std::error_code ec;
  if (!fs::exists(folder, ec)) {
    fail("{}: no such folder; expected a registry planned with `assay soak ... --plan {}`", dir,
         dir);
  }
  if (!fs::is_directory(folder, ec)) fail("{}: expected a registry folder, found a file", dir);
  if (!fs::exists(folder / "registry.json", ec)) {
    fail(
        "{} is not an assay registry (it has no registry.json); plan one with `assay soak ... "
        "--plan {}`",
        dir, dir);
  }
  Registry reg;
  reg.dir_ = folder;
  reg.read_document();
  return reg;
}

void Registry::read_document() {
  const std::string where = (dir_ / "registry.json").string();
  document_ = detail::parse_json_file(dir_ / "registry.json");
  const auto format = document_.is_object() ? document_.find("format") : document_.end();
  if (!document_.is_object() || format == document_.end() || *format != kFormat) {
    fail("{}: expected an assay registry (format \"{}\"), found {}", where, kFormat,
         format == document_.end() || !document_.is_object() ? std::string("another file")
                                                             : format->dump());
  }
  const auto version = typed<std::string>(document_, "assay_version", where);
  if (version != assay_version()) {
    fail(
        "{} was planned by assay {}, this is assay {}: results of different versions are not "
        "mixed; plan the experiment again in a new folder",
        dir_.string(), version, assay_version());
  }
  id_ = typed<std::string>(document_, "id", where);
  out_ = typed<std::string>(document_, "out", where);
  definition_ = definition_from_json(field(document_, "experiment", where), where);
  for (const auto& in : field(document_, "inputs", where)) {
    inputs_.push_back(RegistryInput{typed<std::string>(in, "path", where),
                                    typed<std::uintmax_t>(in, "bytes", where),
                                    typed<std::string>(in, "sha256", where)});
  }
  CsvParams csv;
  csv.categorical = {"data", "learner", "test.subset", "train.subsets"};
  jobs_ = jobs_from_table(read_csv((dir_ / "jobs.csv").string(), csv));
  const auto n = typed<std::size_t>(document_, "jobs", where);
  if (n != jobs_.size()) {
    fail("{}: expected {} jobs in jobs.csv, found {}", where, n, jobs_.size());
  }
}

void Registry::check_job(std::size_t job) const {
  if (job < 1 || job > jobs_.size()) {
    fail("job {} is out of range: {} has jobs 1..{}", job, dir_.string(), jobs_.size());
  }
}

void Registry::check_inputs() const {
  for (const auto& in : inputs_) {
    std::error_code ec;
    const auto bytes = fs::file_size(in.path, ec);
    if (ec)
      fail("{}: input of registry {} cannot be read: {}", in.path, dir_.string(), ec.message());
    if (bytes != in.bytes || sha256_file(in.path) != in.sha256) {
      fail(
          "{}: input of registry {} has changed since it was planned (expected {} bytes with "
          "SHA-256 {}, found {} bytes{}); plan the experiment again in a new folder",
          in.path, dir_.string(), in.bytes, in.sha256, bytes,
          bytes == in.bytes ? " with another SHA-256" : "");
    }
  }
}

LoadedExperiment Registry::load() const {
  check_inputs();
  return load_experiment(definition_);
}

fs::path Registry::result_path(std::size_t job) const {
  return dir_ / "results" / job_file(job);
}
fs::path Registry::running_path(std::size_t job) const {
  return dir_ / "running" / job_file(job);
}
fs::path Registry::failed_path(std::size_t job) const {
  return dir_ / "failed" / job_file(job);
}

bool Registry::has_result(std::size_t job) const {
  return check_result(job).state == ResultState::valid;
}

ResultCheck Registry::check_result(std::size_t job) const {
  std::error_code ec;
  if (!fs::exists(result_path(job), ec) && !ec) return {};
  try {
    read_result(job);
    return {ResultState::valid, ""};
  } catch (const Error& e) {
    return {ResultState::damaged, e.what()};
  }
}

fs::path Registry::set_aside(const fs::path& damaged) const {
  return detail::set_aside(damaged);
}

soak::SoakUnitResult Registry::read_result(std::size_t job, JobProvenance* provenance) const {
  const fs::path path = result_path(job);
  const std::string where = path.string();
  const Json doc = detail::parse_json_file(path);
  if (!doc.is_object() || doc.value("format", "") != kResultFormat) {
    fail("{}: expected an assay job result (format \"{}\"), found another file", where,
         kResultFormat);
  }
  const auto id = typed<std::string>(doc, "registry", where);
  if (id != id_) {
    fail("{}: belongs to another experiment (registry id {}), not to {} (id {})", where,
         id.substr(0, 12), dir_.string(), id_.substr(0, 12));
  }
  const auto version = typed<std::string>(doc, "assay_version", where);
  if (version != assay_version()) {
    fail("{}: computed by assay {}, this registry is assay {}", where, version, assay_version());
  }
  const auto number = typed<std::size_t>(doc, "job", where);
  if (number != job) fail("{}: expected the result of job {}, found job {}", where, job, number);
  if (provenance) *provenance = provenance_from_json(field(doc, "provenance", where), where);
  soak::SoakUnitResult unit = unit_result_from_json(field(doc, "result", where), where);
  if (job >= 1 && job <= jobs_.size()) check_row_of_job(unit.row, jobs_[job - 1], where);
  return unit;
}

void Registry::write_result(std::size_t job, const soak::SoakUnitResult& unit,
                            const JobProvenance& provenance) const {
  const Json doc{{"format", kResultFormat},          {"registry", id_},
                 {"assay_version", assay_version()}, {"job", job},
                 {"result", unit_result_json(unit)}, {"provenance", provenance_json(provenance)}};
  write_file_atomic(result_path(job).string(), dump_json(doc, 1) + "\n");
  release(job);
}

std::vector<std::pair<std::string, JobProvenance>> Registry::failures(std::size_t job) const {
  std::vector<std::pair<std::string, JobProvenance>> out;
  const fs::path path = failed_path(job);
  std::error_code ec;
  if (!fs::exists(path, ec)) return out;
  const Json doc = detail::parse_json_file(path);
  const std::string where = path.string();
  const Json& attempts = field(doc, "attempts", where);
  if (!attempts.is_array())
    fail("{}: field \"attempts\": expected a list, found {}", where, quote_found(attempts.dump()));
  for (const auto& attempt : attempts) {
    out.emplace_back(typed<std::string>(attempt, "error", where),
                     provenance_from_json(field(attempt, "provenance", where), where));
  }
  return out;
}

void Registry::record_failure(std::size_t job, const std::string& error,
                              const JobProvenance& provenance) const {
  Json attempts = Json::array();
  for (const auto& [e, p] : failures(job)) {
    attempts.push_back({{"error", e}, {"provenance", provenance_json(p)}});
  }
  attempts.push_back({{"error", error}, {"provenance", provenance_json(provenance)}});
  const Json doc{{"registry", id_}, {"job", job}, {"attempts", std::move(attempts)}};
  write_file_atomic(failed_path(job).string(), dump_json(doc, 1) + "\n");
}

std::optional<JobProvenance> Registry::running(std::size_t job) const {
  const auto claim = claim_of(job);
  if (!claim || !claim->damage.empty()) return std::nullopt;
  return claim->holder;
}

std::string plan_text(const Registry& registry) {
  std::size_t done = 0;
  for (std::size_t job = 1; job <= registry.n_jobs(); ++job) done += registry.has_result(job);
  const std::string dir = fs::absolute(registry.dir()).lexically_normal().string();
  std::string out =
      fmt::format("registry {}: {}, {} jobs (id {})\n", dir, registry.definition().title,
                  registry.n_jobs(), registry.id().substr(0, 12));
  if (done > 0)
    out += fmt::format("already planned: {} of {} jobs done\n", done, registry.n_jobs());
  out += fmt::format(
      "run its jobs with one of\n"
      "  assay job run {0} --all          (here, one after another)\n"
      "  assay job submit {0} [--partition P --time T --mem M --cpus-per-task C]   (Slurm)\n"
      "  mpirun -n N assay {1} ... --plan {0}   (MPI: this command under mpirun)\n"
      "then `assay job status {0}` and `assay job collect {0}{2}`\n",
      dir, to_string(registry.definition().kind), registry.out().empty() ? " --out DIR" : "");
  return out;
}

namespace {

// "N of M jobs have a damaged result (reason; reason; ...)" for collect's refusal.
std::string damaged_text(const std::vector<std::string>& reasons, std::size_t n_jobs) {
  std::string list;
  for (std::size_t k = 0; k < reasons.size() && k < 3; ++k) {
    list += (k ? "; " : "") + reasons[k];
  }
  if (reasons.size() > 3) list += fmt::format("; and {} more", reasons.size() - 3);
  return fmt::format("{} of {} jobs {} a damaged result ({})", reasons.size(), n_jobs,
                     reasons.size() == 1 ? "has" : "have", list);
}

}  // namespace

ExperimentOutcome collect(const Registry& registry) {
  std::vector<std::size_t> missing;
  std::vector<std::string> damaged;
  for (std::size_t job = 1; job <= registry.n_jobs(); ++job) {
    const ResultCheck check = registry.check_result(job);
    if (check.state == ResultState::none) missing.push_back(job);
    if (check.state == ResultState::damaged) damaged.push_back(check.damage);
  }
  const std::string dir = registry.dir().string();
  std::string problems;
  if (!missing.empty()) {
    std::vector<std::size_t> first(missing.begin(),
                                   missing.begin() + std::min<std::size_t>(missing.size(), 20));
    problems =
        fmt::format("{} of {} jobs have no result (jobs {}{})", missing.size(), registry.n_jobs(),
                    detail::ranges(first), missing.size() > first.size() ? ", ..." : "");
  }
  if (!damaged.empty()) {
    problems += (problems.empty() ? "" : " and ") + damaged_text(damaged, registry.n_jobs());
  }
  if (!problems.empty()) {
    fail("cannot collect {}: {}; {}", dir, problems,
         damaged.empty()
             ? fmt::format("`assay job status {}` says why", dir)
             : fmt::format("`assay job run {} --all` (or `assay job submit {}`) moves damaged "
                           "results aside and runs those jobs again",
                           dir, dir));
  }
  LoadedExperiment loaded = registry.load();
  std::vector<soak::SoakUnitResult> units;
  units.reserve(registry.n_jobs());
  for (std::size_t job = 1; job <= registry.n_jobs(); ++job) {
    units.push_back(registry.read_result(job));
  }
  return outcome_from_units(registry.definition(), std::move(loaded), std::move(units));
}

}  // namespace assay::batch

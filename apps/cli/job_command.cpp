// `assay job run|status|collect|submit DIR`: the jobs of a batch registry planned with
// `assay soak|cv ... --plan DIR` (batch/registry.hpp), run here, in Slurm array tasks or by hand,
// then collected into the one-machine run's outputs.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "assay/batch/job_runner.hpp"
#include "assay/batch/registry.hpp"
#include "assay/batch/slurm.hpp"
#include "assay/batch/status.hpp"
#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/output_file.hpp"
#include "commands.hpp"

namespace assay::cli {
namespace {

struct RunOptions {
  std::string dir, jobs_file;
  std::size_t job = 0, task = 0, chunk = 1;
  bool all = false, force = false;
  batch::JobRunParams params;
};

// Which jobs `job run` runs: --job, --all, or array task T (--task or SLURM_ARRAY_TASK_ID) of a
// list (--jobs-file, else 1..N) in chunks of --chunk.
std::vector<std::size_t> selected_jobs(const RunOptions& o, const batch::Registry& reg) {
  const int given = (o.job > 0) + o.all + (o.task > 0);
  if (given > 1) fail("give one of --job, --all and --task, found {}", given);
  if (o.job > 0) {
    reg.check_job(o.job);
    return {o.job};
  }
  std::vector<std::size_t> list;
  if (!o.jobs_file.empty()) {
    list = batch::read_job_list(o.jobs_file, reg);
  } else {
    for (std::size_t j = 1; j <= reg.n_jobs(); ++j) list.push_back(j);
  }
  if (o.all) return list;
  std::size_t task = o.task;
  if (task == 0) {
    const char* env = std::getenv("SLURM_ARRAY_TASK_ID");
    if (env == nullptr) {
      fail(
          "which jobs? expected --job I, --all, --task T, or SLURM_ARRAY_TASK_ID (in a Slurm "
          "array job), found none");
    }
    const std::string text = env;
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
      fail("SLURM_ARRAY_TASK_ID: expected a task number, found {}", quote_found(text));
    }
    task = std::stoull(text);
  }
  return batch::chunk_of(list, task, o.chunk);
}

// The files a registry command depends on (its own files and the experiment's data): no output
// of the command may replace one of them.
void note_registry_inputs(const batch::Registry& reg) {
  note_input((reg.dir() / "registry.json").string(), "the registry's own file");
  note_input((reg.dir() / "jobs.csv").string(), "the registry's job list");
  for (const auto& input : reg.inputs()) note_input(input.path, "the experiment's data");
}

Action add_run(CLI::App* job) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = job->add_subcommand(
      "run",
      "Run jobs of a registry here, each in a child process; results are written "
      "atomically and finished jobs are skipped.");
  cmd->add_option("dir", o->dir, "registry folder")->required();
  cmd->add_option("--job", o->job, "run this job (1-based)")->check(non_negative_integer());
  cmd->add_flag("--all", o->all, "run every job that has no result, one after another");
  cmd->add_option("--task", o->task,
                  "array task T: entries (T-1)*chunk+1..T*chunk of the job list (default: "
                  "$SLURM_ARRAY_TASK_ID)")
      ->check(non_negative_integer());
  cmd->add_option("--chunk", o->chunk, "jobs per array task")
      ->check(non_negative_integer())
      ->capture_default_str();
  cmd->add_option("--jobs-file", o->jobs_file,
                  "the job list (numbers or ranges; default: every job in order)");
  add_threads_option(cmd, o->params.threads, "threads of each job's learner (0 = all cores)");
  cmd->add_option("--job-time-limit", o->params.time_limit,
                  "seconds a job may run before it is killed and recorded as failed (0 = none)")
      ->capture_default_str();
  cmd->add_option("--retries", o->params.retries,
                  "failed attempts that may be retried (a job runs while attempts <= retries + 1)")
      ->check(non_negative_integer())
      ->capture_default_str();
  cmd->add_flag("--force", o->params.force, "run jobs that have a result again");
  return [cmd, o] {
    if (!cmd->parsed()) return;
    if (o->params.time_limit < 0 || !(o->params.time_limit == o->params.time_limit)) {
      fail("--job-time-limit must be >= 0 seconds, found {}", o->params.time_limit);
    }
    const auto reg = batch::Registry::open(o->dir);
    const auto jobs = selected_jobs(*o, reg);
    const auto loaded = reg.load();
    const auto summary = batch::run_jobs(reg, loaded, jobs, o->params);
    for (const auto& note : summary.notes) std::fprintf(stderr, "assay: %s\n", note.c_str());
    std::fprintf(stderr, "assay: job run: %zu done, %zu failed, %zu skipped\n", summary.done,
                 summary.failed, summary.skipped);
    if (summary.failed > 0) throw ExitCode{3};
  };
}

Action add_status(CLI::App* job) {
  struct Options {
    std::string dir, table;
    bool json = false, jobs = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = job->add_subcommand(
      "status",
      "Show which jobs of a registry are done, running, queued, failed (with the "
      "error) or missing; reads squeue/sacct after a Slurm submission.");
  cmd->add_option("dir", o->dir, "registry folder")->required();
  cmd->add_flag("--jobs", o->jobs, "also list every job");
  cmd->add_flag("--json", o->json, "print JSON instead of text");
  cmd->add_option("--table", o->table,
                  "write the job table with states, seconds and peak memory to this CSV file");
  return [cmd, o] {
    if (!cmd->parsed()) return;
    const auto reg = batch::Registry::open(o->dir);
    if (!o->table.empty()) {
      note_registry_inputs(reg);
      check_writable(o->table, "--table");
    }
    const auto status = batch::registry_status(reg);
    if (!o->table.empty()) write_csv(batch::status_table(reg, status), o->table);
    if (o->json) {
      std::cout << batch::status_json(reg, status).dump(2) << "\n";
    } else {
      std::cout << batch::status_text(reg, status, o->jobs);
    }
  };
}

Action add_collect(CLI::App* job) {
  struct Options {
    std::string dir, out;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = job->add_subcommand(
      "collect",
      "Merge the results of a registry whose jobs are all done and write exactly what "
      "the one-machine run writes.");
  cmd->add_option("dir", o->dir, "registry folder")->required();
  cmd->add_option("--out", o->out, "output directory (default: the --out given when planning)");
  cmd->add_flag("--json", o->json, "print the statistics/summaries as JSON");
  return [cmd, o] {
    if (!cmd->parsed()) return;
    const auto reg = batch::Registry::open(o->dir);
    const std::string out = o->out.empty() ? reg.out() : o->out;
    if (out.empty()) fail("--out DIR is required: the registry was planned without --out");
    note_registry_inputs(reg);
    check_derived_outputs(out, batch::output_files(reg.definition().kind), "--out " + out);
    const auto outcome = batch::collect(reg);
    batch::write_outputs(reg.definition(), outcome, out);
    std::cout << batch::outcome_text(reg.definition(), outcome, o->json);
    flush_stdout();
    std::fprintf(stderr, "assay: wrote %s/%s\n", out.c_str(),
                 batch::output_names(reg.definition().kind).c_str());
  };
}

Action add_submit(CLI::App* job) {
  struct Options {
    std::string dir;
    batch::SlurmParams params;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = job->add_subcommand(
      "submit",
      "Write an sbatch script into the registry and submit one Slurm array job for the "
      "jobs that are missing (or failed, with --retries).");
  cmd->add_option("dir", o->dir, "registry folder")->required();
  cmd->add_option("--partition", o->params.partition, "Slurm partition");
  cmd->add_option("--time", o->params.time, "time limit of each array task (Slurm's format)");
  cmd->add_option("--mem", o->params.mem, "memory of each array task (e.g. 8G)");
  cmd->add_option("--cpus-per-task", o->params.cpus_per_task, "CPUs (learner threads) per task")
      ->check(non_negative_integer())
      ->capture_default_str();
  cmd->add_option("--array-max", o->params.array_max, "at most this many tasks at once (0 = any)")
      ->check(non_negative_integer());
  cmd->add_option("--sbatch-arg", o->params.sbatch_args,
                  "another sbatch option, e.g. --sbatch-arg=--qos=long (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--chunk", o->params.chunk, "jobs per array task")
      ->check(non_negative_integer())
      ->capture_default_str();
  cmd->add_option("--retries", o->params.retries,
                  "resubmit failed jobs while attempts <= retries + 1")
      ->check(non_negative_integer())
      ->capture_default_str();
  cmd->add_option("--job-time-limit", o->params.job_time_limit,
                  "seconds a job may run before it is recorded as failed (0 = none)");
  cmd->add_flag("--dry-run", o->params.dry_run, "write the script but do not submit it");
  return [cmd, o] {
    if (!cmd->parsed()) return;
    const auto reg = batch::Registry::open(o->dir);
    const auto s = batch::submit(reg, o->params);
    if (s.tasks == 0) {
      std::cout << "nothing to submit: every job is done, queued, running or out of attempts "
                   "(see `assay job status "
                << o->dir << "`)\n";
      return;
    }
    if (o->params.dry_run) {
      std::cout << "wrote " << s.script.string() << " (" << s.jobs.size() << " jobs in " << s.tasks
                << " array tasks); not submitted (--dry-run)\n";
      return;
    }
    std::cout << "submitted Slurm job " << s.slurm_job_id << ": " << s.jobs.size() << " jobs in "
              << s.tasks << " array tasks (" << s.script.string() << ")\n";
  };
}

}  // namespace

Action add_job_command(CLI::App& app, const GlobalOptions& /*global*/) {
  auto* job = app.add_subcommand(
      "job",
      "Run, watch and collect the jobs of a batch registry (assay soak|cv ... --plan DIR); "
      "see docs/cluster.md.");
  job->require_subcommand(1);
  const std::vector<Action> actions{add_run(job), add_status(job), add_collect(job),
                                    add_submit(job)};
  return [actions] {
    for (const auto& action : actions) action();  // only the parsed one does anything
  };
}

}  // namespace assay::cli

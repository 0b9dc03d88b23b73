// Times count_exact on one DIMACS file for bench/bench_count_exact.py (built on demand:
// `cmake --build build --target bench_count_exact`; not part of the tests).
//   bench_count_exact FILE.cnf [TIME_LIMIT_SECONDS [CIRCUIT_PROJECTED]]
// Prints one JSON object: the count (or bounds), the seconds and the counter's statistics.
// One thread (the table compares single-threaded CPU times); CIRCUIT_PROJECTED 0 switches the
// circuit route off (the search alone, as before the route existed).
#include <cstdio>
#include <cstdlib>
#include <exception>

#include <nlohmann/json.hpp>

#include "assay/count/cnf.hpp"
#include "assay/count/exact_counter.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: bench_count_exact FILE.cnf [TIME_LIMIT_SECONDS [CIRCUIT_PROJECTED]]\n");
    return 2;
  }
  try {
    const assay::count::Cnf cnf = assay::count::read_dimacs_file(argv[1]);
    assay::count::ExactCountParams params;
    params.progress_task = "";
    params.threads = 1;
    if (argc > 2) params.time_limit = std::atof(argv[2]);
    if (argc > 3) params.circuit_projected = static_cast<std::uint32_t>(std::atoi(argv[3]));
    const assay::count::ExactCountResult r = assay::count::count_exact(cnf, params);
    const auto& s = r.stats;
    const nlohmann::json out = {
        {"complete", r.complete},
        {"count", r.count.get_str()},
        {"lower", r.lower.get_str()},
        {"upper", r.upper.get_str()},
        {"seconds", r.seconds},
        {"n_projected", r.n_projected},
        {"vars_after_preprocessing", s.vars_after_preprocessing},
        {"clauses_after_preprocessing", s.clauses_after_preprocessing},
        {"decisions", s.decisions},
        {"conflicts", s.conflicts},
        {"learned_clauses", s.learned_clauses},
        {"components", s.components},
        {"cache_hits", s.cache_hits},
        {"cache_entries", s.cache_entries},
        {"cache_evictions", s.cache_evictions},
        {"sat_checks", s.sat_checks},
        {"pure_literals", s.pure_literals},
        {"circuit", s.circuit},
        {"circuit_gates", s.circuit_gates},
        {"circuit_constraints", s.circuit_constraints},
        {"circuit_words", s.circuit_words},
    };
    std::printf("%s\n", out.dump().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_count_exact: %s\n", e.what());
    return 2;
  }
  return 0;
}

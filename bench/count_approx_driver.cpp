// Runs the approximate counter on one DIMACS file for a range of seeds and prints one JSON line
// per run; bench/bench_count_approx.py drives it.
//
//   bench_count_approx_driver F.cnf [--seeds 1:100] [--epsilon 0.8] [--delta 0.2]
//                             [--threads 1] [--time-limit 0]
//   {"seed":1,"complete":true,"exact":false,"estimate":"154112","hashes":[12,11,12],...,
//    "seconds":0.09,"cpu_seconds":0.05,"guarantee":"approximate (epsilon 0.8, delta 0.2)"}
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "assay/core/error.hpp"
#include "assay/count/approx_counter.hpp"
#include "assay/count/cnf.hpp"

namespace {

struct Options {
  std::string path;
  std::uint64_t first_seed = 1, last_seed = 1;
  assay::count::ApproxCountParams params;
};

Options parse(int argc, char** argv) {
  Options o;
  o.params.progress_task = "";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) assay::fail("expected a value after {}", a);
      return argv[++i];
    };
    if (a == "--seeds") {
      const std::string v = value();
      const auto colon = v.find(':');
      o.first_seed = std::stoull(v.substr(0, colon));
      o.last_seed = colon == std::string::npos ? o.first_seed : std::stoull(v.substr(colon + 1));
    } else if (a == "--epsilon") {
      o.params.epsilon = std::stod(value());
    } else if (a == "--delta") {
      o.params.delta = std::stod(value());
    } else if (a == "--threads") {
      o.params.threads = std::stoi(value());
    } else if (a == "--time-limit") {
      o.params.time_limit = std::stod(value());
    } else if (o.path.empty()) {
      o.path = a;
    } else {
      assay::fail("expected one DIMACS file, found a second: {}", a);
    }
  }
  if (o.path.empty()) assay::fail("usage: {} F.cnf [--seeds A:B] [--epsilon E] ...", argv[0]);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o = parse(argc, argv);
    const assay::count::Cnf cnf = assay::count::read_dimacs_file(o.path);
    for (std::uint64_t seed = o.first_seed; seed <= o.last_seed; ++seed) {
      o.params.seed = seed;
      const std::clock_t cpu_start = std::clock();  // process CPU time: every thread's
      const assay::count::ApproxCountResult r = assay::count::count_approx(cnf, o.params);
      const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
      nlohmann::ordered_json line;
      line["seed"] = seed;
      line["complete"] = r.complete;
      line["exact"] = r.exact;
      line["estimate"] = r.estimate.get_str();
      line["hashes"] = r.hashes;
      std::vector<std::string> measured;
      for (const mpz_class& m : r.measured) measured.push_back(m.get_str());
      line["measured"] = measured;
      line["threshold"] = r.threshold;
      line["measurements"] = r.measurements;
      line["n_projected"] = r.n_projected;
      line["sat_calls"] = r.sat_calls;
      line["seconds"] = r.seconds;
      line["cpu_seconds"] = cpu_seconds;
      line["guarantee"] = assay::count::guarantee(r);
      std::cout << line.dump() << std::endl;
    }
  } catch (const std::exception& e) {
    std::cerr << "bench_count_approx_driver: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

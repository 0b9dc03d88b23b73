// libFuzzer target: DIMACS CNF text -> assay::count::parse_dimacs. A formula that parses must
// survive a round trip: write_dimacs's text parses again to the same clause and XOR counts.
#include <cstdio>
#include <cstdlib>

#include "assay/count/cnf.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return assay::fuzz::guarded([&] {
    const auto cnf = assay::count::parse_dimacs(assay::fuzz::as_text(data, size), "fuzz.cnf");
    const std::string written = assay::count::write_dimacs(cnf);
    try {
      const auto again = assay::count::parse_dimacs(written, "written.cnf");
      if (again.n_clauses() != cnf.n_clauses() || again.xors.size() != cnf.xors.size()) {
        std::fprintf(stderr, "fuzz finding: round trip changed the clause count\n");
        std::abort();
      }
    } catch (const assay::Error& e) {
      std::fprintf(stderr, "fuzz finding: write_dimacs output does not parse: %s\n", e.what());
      std::abort();
    }
  });
}

// The overview's compare section: compare::compare and the gates on the configuration's table
// (what `assay compare` runs), drawn with the blocks of the comparison's own page.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/csv.hpp"
#include "assay/report/compare.hpp"
#include "overview_detail.hpp"

namespace assay::report::detail {

compare::CompareInput prepare_compare(const CompareSection& s) {
  const Table table = read_csv(s.file, s.csv);  // as `assay compare` reads it
  compare::CompareInput input = compare::compare_input(table, s.columns, s.task);
  compare::check_gates_before_work(s.gates, input, s.params);
  return input;
}

CompareOutcome run_compare(const CompareSection& s, compare::CompareInput input) {
  CompareOutcome out{compare::compare(std::move(input), s.params), {}};
  out.gates =
      compare::evaluate_gates(compare::parse_gates(s.gates, out.result), out.result, s.gate_on);
  return out;
}

std::vector<Claim> summarize_compare(const CompareOutcome& outcome) {
  std::vector<Claim> claims;
  const auto& r = outcome.result;
  std::vector<std::string> models;
  for (const auto& m : r.models) models.push_back(m.name);
  for (std::size_t i = 0; i < r.conclusions.size(); ++i) {
    claims.push_back(make_claim("compare.conclusion", kCompareAnchor, models,
                                {{"index", i}, {"conclusion", r.conclusions[i]}}));
  }
  std::size_t failed = 0;
  for (const auto& g : outcome.gates) {
    if (g.passed) continue;
    ++failed;
    claims.push_back(make_claim("compare.gate_failed", kCompareAnchor, {g.model},
                                {{"gate", g.gate}, {"value", g.value}, {"message", g.message}}));
  }
  if (!outcome.gates.empty() && failed == 0) {
    std::vector<std::string> gates;
    for (const auto& g : outcome.gates) {
      if (gates.empty() || gates.back() != g.gate) gates.push_back(g.gate);
    }
    claims.push_back(make_claim("compare.gates_passed", kCompareAnchor, {}, {{"gates", gates}}));
  }
  return claims;
}

std::string render_compare_claim(const Claim& c) {
  const Json& f = c.facts;
  if (c.kind == "compare.conclusion") {
    // The summary's sentences end with a full stop; the comparison's own do not.
    const auto text = f.at("conclusion").get<std::string>();
    return "Compare: " + text + (text.ends_with('.') ? "" : ".");
  }
  if (c.kind == "compare.gate_failed")
    return "Compare: gate FAILED: " + f.at("message").get<std::string>();
  if (c.kind == "compare.gates_passed") {
    const auto gates = f.at("gates").get<std::vector<std::string>>();
    const std::string list = fmt::format("{}", fmt::join(gates, ", "));
    return gates.size() == 1 ? fmt::format("Compare: the gate {} passed.", list)
                             : fmt::format("Compare: every gate passed ({}).", list);
  }
  fail("unknown kind of claim {}", quote_found(c.kind));
}

void render_compare(HtmlReport& page, const CompareSection& config, const CompareOutcome& outcome) {
  page.add_heading("Compare: which model is better, by how much, where", 2, kCompareAnchor);
  page.add_paragraph(fmt::format("{}: {}", config.file, compare_description(outcome.result)));
  add_compare_blocks(page, outcome.result, outcome.gates, 3);
}

}  // namespace assay::report::detail

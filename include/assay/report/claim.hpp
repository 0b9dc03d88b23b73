// A summary sentence as data (Claim): what it claims, about whom, and every number and decision
// it states, with the text rendered from those alone; and the wording the sentences share
// (numbers as printed, intervals, p-values). `assay report` builds its summary from claims
// (overview/overview.hpp); the pages of the report layer that repeat one of its sentences
// (regression_html) build the same claim here.
//
// Example:
//   Json facts = {{"value", 0.87312}, {"low", 0.851}, {"high", 0.894}};
//   wording::with_interval(0.87312, 0.851, 0.894, 3);           // "0.873 [0.851, 0.894]"
//   wording::fact(facts, "low");                                 // 0.851
//   wording::fact(facts, "missing");                             // nan
//   wording::shown(0.87351, 3) == wording::shown(0.87449, 3);   // true: both print 0.874
//   Claim claim{"regression.model", "regression", {"ridge"}, facts, "Regression: ..."};
//   claim_json(claim).size();   // 5: kind, section, subjects, facts, text
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "assay/core/json.hpp"

namespace assay::report {

/// One item of a summary as data: what it claims (`kind`, e.g. "metrics.ranking"), about whom
/// (`subjects`: model, learner or data names) and every number and decision it states (`facts`,
/// unrounded, NaN where undefined), with `text` rendered from those alone (render_claim,
/// overview/overview.hpp). Each decision (best, tie, same curve, crossings, significant, rises,
/// ...) is made by one rule on the values as the page shows them (rounded as printed), so that
/// every sentence is true of the numbers beside it; docs/report-config.md lists the kinds and
/// their rules.
struct Claim {
  std::string kind;
  /// The anchor of the section the sentence links to ("metrics", "soak", ...).
  std::string section;
  std::vector<std::string> subjects;
  Json facts = Json::object();
  std::string text;
};

/// A claim as JSON: {"kind", "section", "subjects", "facts", "text"}.
Json claim_json(const Claim& claim);

/// The wording and the rules the claims' sentences share.
namespace wording {

/// `value` as printed with `decimals` fixed decimals, read back (NaN stays NaN): claims compare
/// the values they show, so that "A ranks best" is never said beside two equal numbers.
double shown(double value, int decimals);
/// A number of a claim's facts (null, as JSON writes NaN, reads as NaN).
double fact(const Json& facts, const char* key);
/// The number at `index` of an array of facts (null reads as NaN).
double fact(const Json& facts, std::size_t index);
/// "0.873" or "undefined".
std::string fixed_or_undefined(double value, int decimals);
/// "12.3 %" style: 100 * fraction with `decimals`.
std::string percent(double fraction, int decimals = 1);
/// A p-value: "p = 0.012", "p = 3.1e-06", "p < 1e-300", "p undefined".
std::string p_value_text(double p);
/// "0.873 [0.851, 0.894]" (the interval only when both bounds are finite).
std::string with_interval(double value, double low, double high, int decimals = 3);

}  // namespace wording

}  // namespace assay::report

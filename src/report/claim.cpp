// Claims as JSON and the wording their sentences share (claim.hpp).
#include "assay/report/claim.hpp"

#include <cmath>

#include <fmt/format.h>

namespace assay::report {

Json claim_json(const Claim& claim) {
  return {{"kind", claim.kind},
          {"section", claim.section},
          {"subjects", claim.subjects},
          {"facts", claim.facts},
          {"text", claim.text}};
}

namespace wording {

double shown(double value, int decimals) {
  if (!std::isfinite(value)) return value;
  return std::stod(fmt::format("{:.{}f}", value, decimals));
}

double fact(const Json& facts, const char* key) {
  const auto it = facts.find(key);
  return it == facts.end() || !it->is_number() ? NAN : it->get<double>();
}

double fact(const Json& facts, std::size_t index) {
  return index < facts.size() && facts[index].is_number() ? facts[index].get<double>() : NAN;
}

std::string fixed_or_undefined(double value, int decimals) {
  return std::isfinite(value) ? fmt::format("{:.{}f}", value, decimals) : "undefined";
}

std::string percent(double fraction, int decimals) {
  if (!std::isfinite(fraction)) return "undefined";
  return fmt::format("{:.{}f} %", 100 * fraction, decimals);
}

std::string p_value_text(double p) {
  if (std::isnan(p)) return "p undefined";
  if (p == 0) return "p < 1e-300";
  if (p < 1e-3) return fmt::format("p = {:.1e}", p);
  return fmt::format("p = {:.3f}", p);
}

std::string with_interval(double value, double low, double high, int decimals) {
  if (!std::isfinite(value)) return "undefined";
  std::string out = fmt::format("{:.{}f}", value, decimals);
  if (std::isfinite(low) && std::isfinite(high))
    out += fmt::format(" [{:.{}f}, {:.{}f}]", low, decimals, high, decimals);
  return out;
}

}  // namespace wording

}  // namespace assay::report

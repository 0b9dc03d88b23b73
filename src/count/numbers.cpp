// Exact numbers for display and the proportions of the statistical view.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/normal.hpp>

#include "assay/core/error.hpp"
#include "assay/count/count_result.hpp"

namespace assay::count {

std::string to_decimal(const mpz_class& value) {
  return value.get_str(10);
}

std::string to_scientific(const mpz_class& value, int digits) {
  const std::string s = value.get_str(10);
  const bool negative = !s.empty() && s[0] == '-';
  const std::string d = negative ? s.substr(1) : s;
  if (d.size() <= static_cast<std::size_t>(digits) + 3) return s;
  // Round to `digits` significant digits.
  mpz_class scale;
  mpz_ui_pow_ui(scale.get_mpz_t(), 10, d.size() - digits);
  mpz_class mant = abs(value);
  mant = (mant + scale / 2) / scale;
  std::string m = mant.get_str(10);
  std::size_t exponent = d.size() - 1;
  if (m.size() > static_cast<std::size_t>(digits)) {  // 9.995e5 rounds up to 1.00e6
    m = m.substr(0, digits);
    ++exponent;
  }
  std::string out = negative ? "-" : "";
  out += m.substr(0, 1);
  if (m.size() > 1) out += "." + m.substr(1);
  out += "e+" + std::to_string(exponent);
  return out;
}

// GMP's get_d truncates toward zero (4/5 gave 0.7999999999999999): the nearest double is the
// truncated one or its neighbour away from zero, decided exactly (ties to even), so rates equal
// the correctly rounded quotient Python and numpy compute.
double ratio(const mpz_class& a, const mpz_class& b) {
  if (b == 0) return std::numeric_limits<double>::quiet_NaN();
  mpq_class q(a, b);
  q.canonicalize();
  const double truncated = q.get_d();
  const double away = std::nextafter(truncated, q >= 0 ? HUGE_VAL : -HUGE_VAL);
  if (!std::isfinite(truncated) || !std::isfinite(away)) return truncated;
  const mpq_class below = abs(q - mpq_class(truncated));
  const mpq_class above = abs(mpq_class(away) - q);
  if (below != above) return below < above ? truncated : away;
  return (std::bit_cast<std::uint64_t>(truncated) & 1) == 0 ? truncated : away;
}

Proportion proportion(std::uint64_t k, std::uint64_t n, double confidence) {
  Proportion p;
  p.k = k;
  p.n = n;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (n == 0) {
    p.value = p.wilson_low = p.wilson_high = p.exact_low = p.exact_high = nan;
    return p;
  }
  if (!(confidence > 0 && confidence < 1)) {
    fail("confidence must lie in (0, 1), found {}", confidence);
  }
  const double alpha = 1.0 - confidence;
  const double nn = static_cast<double>(n);
  const double phat = static_cast<double>(k) / nn;
  p.value = phat;
  const double z = boost::math::quantile(boost::math::normal_distribution<double>(), 1 - alpha / 2);
  const double denom = 1 + z * z / nn;
  const double center = (phat + z * z / (2 * nn)) / denom;
  const double half = z / denom * std::sqrt(phat * (1 - phat) / nn + z * z / (4 * nn * nn));
  p.wilson_low = std::max(0.0, center - half);
  p.wilson_high = std::min(1.0, center + half);
  const double kk = static_cast<double>(k);
  p.exact_low = k == 0 ? 0.0
                       : boost::math::quantile(
                             boost::math::beta_distribution<double>(kk, nn - kk + 1), alpha / 2);
  p.exact_high = k == n
                     ? 1.0
                     : boost::math::quantile(
                           boost::math::beta_distribution<double>(kk + 1, nn - kk), 1 - alpha / 2);
  return p;
}

}  // namespace assay::count

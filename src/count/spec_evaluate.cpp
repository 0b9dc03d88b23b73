// Evaluation of ground formulas at a point, and the domain's size.
#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/count/spec.hpp"

namespace assay::count {

using Op = Formula::Op;

std::string real_grid_problem(double lo, double hi, double step, std::uint64_t& size) {
  if (!(step > 0) || !std::isfinite(step))
    return fmt::format("expected a step > 0, found {}", step);
  const double n = std::floor((hi - lo) / step * (1 + 1e-12) + 1e-9);
  if (!(n <= kMaxGridPoints)) {
    return fmt::format("[{}, {}] in steps of {} has {:.3g} points, more than {:.0e}", lo, hi, step,
                       n + 1, kMaxGridPoints);
  }
  // lo + k * step errs by about 1.5 ulps of the largest magnitude: neighbours stay distinct (and
  // ordered) when the step exceeds 4 ulps.
  const double big = std::max(std::abs(lo), std::abs(hi));
  const double ulp = std::nextafter(big, INFINITY) - big;
  if (n >= 1 && step < 4 * ulp) {
    return fmt::format(
        "step {} is finer than doubles resolve near {} (one unit in the last place is {:.3g}): "
        "neighbouring grid points would round to the same value",
        step, big, ulp);
  }
  size = static_cast<std::uint64_t>(n) + 1;
  return "";
}

bool on_grid(const VarDomain& v, double value) {
  if (!std::isfinite(value)) return false;
  const double k = std::round((value - v.lo) / v.step);
  if (!(k >= 0 && k < static_cast<double>(v.size))) return false;
  // A millionth of a step: float32 copies of grid values (a test set read as float32) pass.
  return std::abs(value - v.value(static_cast<std::uint64_t>(k))) <= 1e-6 * v.step;
}

std::string domain_text(const VarDomain& v) {
  switch (v.type) {
    case VarDomain::Type::boolean:
      return "bool (0 or 1)";
    case VarDomain::Type::integer:
      return fmt::format("int[{}, {}]", v.lo, v.value(v.size - 1));
    case VarDomain::Type::real:
      break;
  }
  return fmt::format("real[{}, {}] step {}", v.lo, v.value(v.size - 1), v.step);
}

mpz_class Domain::size() const {
  mpz_class n = 1;
  for (const auto& v : vars) n *= mpz_class(std::to_string(v.size));
  return n;
}

bool Formula::uses_model() const {
  for (const auto& n : nodes) {
    if (n.op == Op::label || n.op == Op::argmax || n.op == Op::score) return true;
  }
  return false;
}

double evaluate(const Formula& f, const double* x, std::int32_t label, const double* scores,
                std::size_t n_scores) {
  struct Eval {
    const Formula& f;
    const double* x;
    std::int32_t label;
    const double* scores;
    std::size_t n_scores;
    double operator()(std::uint32_t id) const {
      const auto& n = f.nodes[id];
      const std::uint32_t* k = f.kids.data() + n.first_kid;
      switch (n.op) {
        case Op::constant:
          return n.value;
        case Op::var:
          return x[n.index];
        case Op::label:
          return label;
        case Op::argmax: {
          std::size_t best = 0;
          for (std::size_t i = 1; i < n_scores; ++i) {
            if (scores[i] > scores[best]) best = i;
          }
          return static_cast<double>(best);
        }
        case Op::score:
          if (n.index >= n_scores) {
            fail("score[{}] is out of range: the model has {} outputs", n.index, n_scores);
          }
          return scores[n.index];
        case Op::not_:
          return (*this)(k[0]) != 0 ? 0 : 1;
        case Op::and_:
          for (std::uint32_t i = 0; i < n.n_kids; ++i) {
            if ((*this)(k[i]) == 0) return 0;
          }
          return 1;
        case Op::or_:
          for (std::uint32_t i = 0; i < n.n_kids; ++i) {
            if ((*this)(k[i]) != 0) return 1;
          }
          return 0;
        case Op::add:
          return (*this)(k[0]) + (*this)(k[1]);
        case Op::sub:
          return (*this)(k[0]) - (*this)(k[1]);
        case Op::mul:
          return (*this)(k[0]) * (*this)(k[1]);
        case Op::neg:
          return -(*this)(k[0]);
        case Op::eq:
          return (*this)(k[0]) == (*this)(k[1]) ? 1 : 0;
        case Op::ne:
          return (*this)(k[0]) != (*this)(k[1]) ? 1 : 0;
        case Op::lt:
          return (*this)(k[0]) < (*this)(k[1]) ? 1 : 0;
        case Op::le:
          return (*this)(k[0]) <= (*this)(k[1]) ? 1 : 0;
        case Op::ite:
          return (*this)(k[0]) != 0 ? (*this)(k[1]) : (*this)(k[2]);
      }
      return 0;
    }
  };
  return Eval{f, x, label, scores, n_scores}(f.root);
}

}  // namespace assay::count

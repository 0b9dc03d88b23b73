// Evaluation of ground formulas at a point, and the domain's size.
#include <string>

#include "assay/core/error.hpp"
#include "assay/count/spec.hpp"

namespace assay::count {

using Op = Formula::Op;

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

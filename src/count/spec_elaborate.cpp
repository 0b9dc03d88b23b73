#include "spec_elaborate.hpp"

#include <cmath>

#include "assay/core/error.hpp"

namespace assay::count::detail {

using Op = Formula::Op;

Formula Elaborator::ground(const Ast& a, const char* what) {
  Formula f;
  formula_ = &f;
  Env env;
  const Val v = elaborate(a, env);
  if (!v.boolean) fail_at(loc(a), "type mismatch: {} must be a boolean, found a number", what);
  f.root = materialise(v);
  formula_ = nullptr;
  return f;
}

Val Elaborator::elaborate_const(const Ast& a, const char* what) {
  Formula scratch;
  Formula* saved = formula_;
  formula_ = &scratch;
  Env env;
  const Val v = elaborate(a, env);
  formula_ = saved;
  if (!v.is_const) fail_at(loc(a), "expected {} (a constant expression)", what);
  if (v.boolean) fail_at(loc(a), "type mismatch: expected {}, found a boolean", what);
  return v;
}

Val Elaborator::constant(double value, bool boolean, bool is_int) {
  Val v;
  v.is_const = true;
  v.value = value;
  v.boolean = boolean;
  v.is_int = is_int || boolean;
  return v;
}

std::uint32_t Elaborator::node(Formula::Node n, const std::vector<std::uint32_t>& kids) {
  n.first_kid = static_cast<std::uint32_t>(formula_->kids.size());
  n.n_kids = static_cast<std::uint32_t>(kids.size());
  formula_->kids.insert(formula_->kids.end(), kids.begin(), kids.end());
  formula_->nodes.push_back(n);
  return static_cast<std::uint32_t>(formula_->nodes.size() - 1);
}
std::uint32_t Elaborator::materialise(const Val& v) {
  if (!v.is_const) return v.node;
  Formula::Node n;
  n.op = Op::constant;
  n.boolean = v.boolean;
  n.value = v.value;
  return node(n);
}
Val Elaborator::of_node(std::uint32_t id) {
  Val v;
  v.node = id;
  v.boolean = formula_->nodes[id].boolean;
  return v;
}

Val Elaborator::need_bool(const Val& v, const Ast& at, const char* op) {
  if (!v.boolean) fail_at(loc(at), "type mismatch: \"{}\" needs booleans, found a number", op);
  return v;
}

// n-ary and/or with constant folding and flattening (so forall gives one flat clause list).
Val Elaborator::junction(Formula::Op op, const std::vector<Val>& parts) {
  const double absorbing = op == Op::and_ ? 0.0 : 1.0;
  std::vector<std::uint32_t> kids;
  for (const Val& p : parts) {
    if (p.is_const) {
      if (p.value == absorbing) return constant(absorbing, true, true);
      continue;
    }
    const auto& n = formula_->nodes[p.node];
    if (n.op == op) {
      for (std::uint32_t k = 0; k < n.n_kids; ++k) kids.push_back(formula_->kids[n.first_kid + k]);
    } else {
      kids.push_back(p.node);
    }
  }
  if (kids.empty()) return constant(1.0 - absorbing, true, true);
  if (kids.size() == 1) return of_node(kids[0]);
  Formula::Node n;
  n.op = op;
  n.boolean = true;
  return of_node(node(n, kids));
}

Val Elaborator::negate(const Val& v) {
  if (v.is_const) return constant(v.value == 0 ? 1 : 0, true, true);
  const auto& n = formula_->nodes[v.node];
  if (n.op == Op::not_) return of_node(formula_->kids[n.first_kid]);
  Formula::Node m;
  m.op = Op::not_;
  m.boolean = true;
  return of_node(node(m, {v.node}));
}

std::int64_t Elaborator::const_int(const Ast& a, Env& env, const char* what) {
  const Val v = elaborate(a, env);
  if (!v.is_const || !v.is_int || v.boolean) {
    fail_at(loc(a), "expected {} (a constant integer)", what);
  }
  return static_cast<std::int64_t>(v.value);
}

Val Elaborator::elaborate(const Ast& a, Env& env) {
  switch (a.kind) {
    case Ast::Kind::number:
      return constant(a.number, false, a.is_int);
    case Ast::Kind::boolean:
      return constant(a.number, true, true);
    case Ast::Kind::label:
    case Ast::Kind::argmax: {
      Formula::Node n;
      n.op = a.kind == Ast::Kind::label ? Op::label : Op::argmax;
      return of_node(node(n));
    }
    case Ast::Kind::score: {
      const std::int64_t k = const_int(*a.kids[0], env, "an output index");
      if (k < 0) fail_at(loc(*a.kids[0]), "output index {} is negative", k);
      Formula::Node n;
      n.op = Op::score;
      n.index = static_cast<std::uint32_t>(k);
      return of_node(node(n));
    }
    case Ast::Kind::name:
      return name(a, env);
    case Ast::Kind::index:
      return index(a, env);
    case Ast::Kind::call: {
      auto p = preds_.find(a.name);
      if (p == preds_.end()) fail_at(loc(a), "{} is not a predicate", quote_found(a.name));
      std::vector<std::int64_t> args;
      for (const auto& k : a.kids) args.push_back(const_int(*k, env, "a predicate argument"));
      return call(a, p->second, args);
    }
    case Ast::Kind::unary: {
      const Val v = elaborate(*a.kids[0], env);
      if (a.op == "not") return negate(need_bool(v, a, "not"));
      if (v.is_const) return constant(-v.value, false, v.is_int);
      Formula::Node n;
      n.op = Op::neg;
      return of_node(node(n, {materialise(v)}));
    }
    case Ast::Kind::binary:
      return binary(a, env);
    case Ast::Kind::quant:
      return quantifier(a, env);
    case Ast::Kind::ite:
      return if_then_else(a, env);
  }
  ASSAY_ASSERT(false);
}

// A bound variable, constant, scalar input or parameterless predicate.
Val Elaborator::name(const Ast& a, Env& env) {
  for (auto it = env.rbegin(); it != env.rend(); ++it) {
    if (it->first == a.name) return constant(static_cast<double>(it->second), false, true);
  }
  if (auto c = consts_.find(a.name); c != consts_.end()) {
    return constant(c->second.value, false, c->second.is_int);
  }
  if (auto in = inputs_.find(a.name); in != inputs_.end()) {
    if (in->second.is_array) {
      fail_at(loc(a), "{} is an array of {} inputs: index it, e.g. {}[0]", quote_found(a.name),
              in->second.count, a.name);
    }
    return var(in->second.first);
  }
  if (auto p = preds_.find(a.name); p != preds_.end()) return call(a, p->second, {});
  fail_at(loc(a), "unknown identifier {}", quote_found(a.name));
}

Val Elaborator::index(const Ast& a, Env& env) {
  auto in = inputs_.find(a.name);
  if (in == inputs_.end()) fail_at(loc(a), "{} is not an input array", quote_found(a.name));
  if (!in->second.is_array) {
    fail_at(loc(a), "{} is a scalar input, not an array", quote_found(a.name));
  }
  const std::int64_t i = const_int(*a.kids[0], env, "an index");
  if (i < 0 || i >= static_cast<std::int64_t>(in->second.count)) {
    fail_at(start(*a.kids[0]), "index {} out of range [0, {}) for {}", i, in->second.count, a.name);
  }
  return var(in->second.first + static_cast<std::size_t>(i));
}

// forall / exists become flat and/or lists, sum a chain of additions.
Val Elaborator::quantifier(const Ast& a, Env& env) {
  const std::int64_t lo = const_int(*a.kids[0], env, "a range bound");
  const std::int64_t hi = const_int(*a.kids[1], env, "a range bound");
  if (hi - lo > 10'000'000) fail_at(loc(a), "range {}..{} is too long", lo, hi);
  std::vector<Val> parts;
  for (std::int64_t i = lo; i <= hi; ++i) {
    env.emplace_back(a.name, i);
    parts.push_back(elaborate(*a.kids[2], env));
    env.pop_back();
  }
  if (a.op == "sum") {
    Val acc = constant(0, false, true);
    for (const Val& p : parts) acc = arith(a, "+", acc, p);
    return acc;
  }
  for (const Val& p : parts) need_bool(p, a, a.op.c_str());
  return junction(a.op == "forall" ? Op::and_ : Op::or_, parts);
}

Val Elaborator::if_then_else(const Ast& a, Env& env) {
  const Val c = need_bool(elaborate(*a.kids[0], env), a, "if");
  const Val x = elaborate(*a.kids[1], env);
  const Val y = elaborate(*a.kids[2], env);
  if (x.boolean != y.boolean) {
    fail_at(loc(a), "type mismatch: the branches of \"if\" differ (a boolean and a number)");
  }
  if (c.is_const) return c.value != 0 ? x : y;
  Formula::Node n;
  n.op = Op::ite;
  n.boolean = x.boolean;
  return of_node(node(n, {materialise(c), materialise(x), materialise(y)}));
}

Val Elaborator::var(std::size_t index) {
  Formula::Node n;
  n.op = Op::var;
  n.index = static_cast<std::uint32_t>(index);
  n.boolean = domain_.vars[index].type == VarDomain::Type::boolean;
  return of_node(node(n));
}

Val Elaborator::call(const Ast& at, const PredDecl& p, const std::vector<std::int64_t>& args) {
  if (args.size() != p.params.size()) {
    fail_at(loc(at), "{} takes {} argument(s), found {}", quote_found(at.name), p.params.size(),
            args.size());
  }
  // Predicates see only their parameters (lexical scope), not the caller's bound variables.
  Env inner;
  for (std::size_t i = 0; i < args.size(); ++i) inner.emplace_back(p.params[i], args[i]);
  return elaborate(*p.body, inner);
}

Val Elaborator::arith(const Ast& at, const std::string& op, const Val& x, const Val& y) {
  if (x.is_const && y.is_const) {
    const bool is_int = x.is_int && y.is_int;
    if (op == "+") return constant(x.value + y.value, false, is_int);
    if (op == "-") return constant(x.value - y.value, false, is_int);
    if (op == "*") return constant(x.value * y.value, false, is_int);
    if (y.value == 0) fail_at(loc(at), "division by zero");
    if (op == "/") {
      return is_int ? constant(std::trunc(x.value / y.value), false, true)
                    : constant(x.value / y.value, false, false);
    }
    if (!is_int) fail_at(loc(at), "type mismatch: \"%\" needs integers");
    return constant(std::fmod(x.value, y.value), false, true);
  }
  if (op == "/" || op == "%") {
    fail_at(loc(at), "\"{}\" needs constant operands (the formula must stay linear)", op);
  }
  if (op == "+" && x.is_const && x.value == 0) return y;
  if (op == "+" && y.is_const && y.value == 0) return x;
  Formula::Node n;
  n.op = op == "+" ? Op::add : op == "-" ? Op::sub : Op::mul;
  return of_node(node(n, {materialise(x), materialise(y)}));
}

Val Elaborator::binary(const Ast& a, Env& env) {
  const Val x = elaborate(*a.kids[0], env);
  const Val y = elaborate(*a.kids[1], env);
  const std::string& op = a.op;
  if (op == "and" || op == "or") {
    need_bool(x, a, op.c_str());
    need_bool(y, a, op.c_str());
    return junction(op == "and" ? Op::and_ : Op::or_, {x, y});
  }
  if (op == "=>") {
    need_bool(x, a, "=>");
    need_bool(y, a, "=>");
    return junction(Op::or_, {negate(x), y});
  }
  if (op == "+" || op == "-" || op == "*" || op == "/" || op == "%") return arith(a, op, x, y);
  // Comparisons: a > b is b < a.
  const bool swap = op == ">" || op == ">=";
  const Val& l = swap ? y : x;
  const Val& r = swap ? x : y;
  if (l.is_const && r.is_const) {
    bool v = false;
    if (op == "==") v = l.value == r.value;
    if (op == "!=") v = l.value != r.value;
    if (op == "<" || op == ">") v = l.value < r.value;
    if (op == "<=" || op == ">=") v = l.value <= r.value;
    return constant(v ? 1 : 0, true, true);
  }
  Formula::Node n;
  n.boolean = true;
  n.op = op == "==" ? Op::eq : op == "!=" ? Op::ne : (op == "<" || op == ">") ? Op::lt : Op::le;
  return of_node(node(n, {materialise(l), materialise(r)}));
}

}  // namespace assay::count::detail

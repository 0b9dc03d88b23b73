#include "spec_elaborate.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include "assay/core/error.hpp"

namespace assay::count::detail {

using Op = Formula::Op;

// The limits are reported at the statement being expanded: the Ast where a limit is crossed
// is usually deep inside some predicate's body.
Elaborator::Step::Step(Elaborator& e) : e_(e) {
  if (e_.depth_ >= kMaxExpansionDepth) {
    fail_at(e_.start(*e_.statement_),
            "expected expressions nested at most {} levels deep once predicate calls are "
            "expanded, found deeper nesting",
            kMaxExpansionDepth);
  }
  if (e_.steps_ >= kMaxSteps) {
    fail_at(e_.start(*e_.statement_),
            "expanding the spec's predicates and quantifiers needs more than {} steps (the limit)",
            kMaxSteps);
  }
  ++e_.depth_;
  ++e_.steps_;
}

void Elaborator::begin(Formula& f) {
  formula_ = &f;
  node_depth_.clear();
}

Formula Elaborator::ground(const Ast& a, const char* what) {
  Formula f;
  begin(f);
  statement_ = &a;
  const Step step(*this);
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
  std::vector<std::uint32_t> saved_depth = std::move(node_depth_);
  const Ast* saved_statement = statement_;
  begin(scratch);
  statement_ = &a;
  const Step step(*this);
  Env env;
  const Val v = elaborate(a, env);
  formula_ = saved;
  node_depth_ = std::move(saved_depth);
  statement_ = saved_statement;
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
  std::uint32_t depth = 1;
  for (const std::uint32_t k : kids) depth = std::max(depth, node_depth_[k] + 1);
  if (depth > static_cast<std::uint32_t>(kMaxExpansionDepth)) {
    fail_at(start(*statement_),
            "expected a ground formula nested at most {} levels deep, found deeper nesting",
            kMaxExpansionDepth);
  }
  if (formula_->nodes.size() >= kMaxNodes) {
    fail_at(start(*statement_),
            "the ground formula needs more than {} nodes (the limit): quantifiers and predicate "
            "calls expand into it",
            kMaxNodes);
  }
  node_depth_.push_back(depth);
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

Val Elaborator::need_bool(const Val& v, const Location& at, const char* op) {
  if (!v.boolean) fail_at(at, "type mismatch: \"{}\" needs booleans, found a number", op);
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
  if (std::abs(v.value) > 9e15) {
    fail_at(start(a), "expected {} (a constant integer) of at most 9e15 in magnitude, found {}",
            what, v.value);
  }
  return static_cast<std::int64_t>(v.value);
}

Val Elaborator::elaborate(const Ast& a, Env& env) {
  const Step step(*this);
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
      if (k > INT32_MAX) {
        fail_at(loc(*a.kids[0]), "expected an output index of at most {}, found {}", INT32_MAX, k);
      }
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
      return chain(a, env);
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

// forall / exists become flat and/or lists, sum a balanced sum. The number of instances is
// checked before any is built.
Val Elaborator::quantifier(const Ast& a, Env& env) {
  const std::int64_t lo = const_int(*a.kids[0], env, "a range bound");
  const std::int64_t hi = const_int(*a.kids[1], env, "a range bound");
  const std::uint64_t n = hi < lo ? 0 : static_cast<std::uint64_t>(hi - lo) + 1;
  const double need = static_cast<double>(instances_) * static_cast<double>(n);
  if (need > static_cast<double>(kMaxInstances)) {
    const std::string inside =
        instances_ > 1 ? fmt::format(" ({} values inside {} instances of enclosing quantifiers)", n,
                                     instances_)
                       : "";
    fail_at(loc(a),
            "expected at most {} instances of a quantifier's body, found {:.0f}: {} {} in {}..{}{}",
            kMaxInstances, need, a.op, a.name, lo, hi, inside);
  }
  const std::uint64_t saved = instances_;
  instances_ *= std::max<std::uint64_t>(n, 1);
  std::vector<Val> parts;
  for (std::int64_t i = lo; i <= hi; ++i) {
    env.emplace_back(a.name, i);
    parts.push_back(elaborate(*a.kids[2], env));
    env.pop_back();
  }
  instances_ = saved;
  if (a.op == "sum") return sum(loc(a), parts, std::vector<bool>(parts.size(), false));
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

Val Elaborator::arith(const Location& at, const std::string& op, const Val& x, const Val& y) {
  if (x.is_const && y.is_const) {
    const bool is_int = x.is_int && y.is_int;
    double v = 0.0;
    if (op == "+") {
      v = x.value + y.value;
    } else if (op == "-") {
      v = x.value - y.value;
    } else if (op == "*") {
      v = x.value * y.value;
    } else {
      if (y.value == 0) fail_at(at, "division by zero");
      if (op == "%" && !is_int) fail_at(at, "type mismatch: \"%\" needs integers");
      v = op == "%" ? std::fmod(x.value, y.value)
          : is_int  ? std::trunc(x.value / y.value)
                    : x.value / y.value;
    }
    if (!std::isfinite(v)) {
      fail_at(at, "expected a finite number, found {} {} {} = {}", x.value, op, y.value, v);
    }
    return constant(v, false, is_int);
  }
  if (op == "/" || op == "%") {
    fail_at(at, "\"{}\" needs constant operands (the formula must stay linear)", op);
  }
  if (op == "+" && x.is_const && x.value == 0) return y;
  if (op == "+" && y.is_const && y.value == 0) return x;
  Formula::Node n;
  n.op = op == "+" ? Op::add : op == "-" ? Op::sub : Op::mul;
  return of_node(node(n, {materialise(x), materialise(y)}));
}

// Sum of nodes[lo, hi) as a balanced tree: a sum of 50,000 terms is 16 levels deep, not 50,000.
Val Elaborator::balanced_add(const std::vector<std::uint32_t>& nodes, std::size_t lo,
                             std::size_t hi) {
  if (hi - lo == 1) return of_node(nodes[lo]);
  const std::size_t mid = lo + (hi - lo) / 2;
  const Val l = balanced_add(nodes, lo, mid);
  const Val r = balanced_add(nodes, mid, hi);
  Formula::Node n;
  n.op = Op::add;
  return of_node(node(n, {l.node, r.node}));
}

// t0 ± t1 ± t2 ...: constants folded left to right, then (positive terms) - (negative terms) + c.
Val Elaborator::sum(const Location& at, const std::vector<Val>& terms,
                    const std::vector<bool>& negative) {
  Val c = constant(0, false, true);
  std::vector<std::uint32_t> plus, minus;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (terms[i].is_const) {
      c = arith(at, negative[i] ? "-" : "+", c, terms[i]);
    } else {
      (negative[i] ? minus : plus).push_back(terms[i].node);
    }
  }
  if (plus.empty() && minus.empty()) return c;
  Formula::Node n;
  if (plus.empty()) {
    const Val m = balanced_add(minus, 0, minus.size());
    if (c.value != 0) return arith(at, "-", c, m);
    n.op = Op::neg;
    return of_node(node(n, {m.node}));
  }
  Val r = balanced_add(plus, 0, plus.size());
  if (!minus.empty()) r = arith(at, "-", r, balanced_add(minus, 0, minus.size()));
  return arith(at, "+", r, c);
}

// A chain of one precedence level (kids[0] ops[0] kids[1] ...) or one comparison.
Val Elaborator::chain(const Ast& a, Env& env) {
  const std::string& op = a.op;
  std::vector<Val> parts;
  if (op == "and" || op == "or") {
    for (std::size_t i = 0; i < a.kids.size(); ++i) {
      parts.push_back(elaborate(*a.kids[i], env));
      if (i == 1) need_bool(parts[0], loc(a.ops[0]), op.c_str());
      if (i >= 1) need_bool(parts[i], loc(a.ops[i - 1]), op.c_str());
    }
    return junction(op == "and" ? Op::and_ : Op::or_, parts);
  }
  if (op == "=>") {  // right-associative: a => (b => c)
    for (const auto& k : a.kids) parts.push_back(elaborate(*k, env));
    for (std::size_t i = 0; i < parts.size(); ++i) {
      need_bool(parts[i], loc(a.ops[i == 0 ? 0 : i - 1]), "=>");
    }
    Val r = parts.back();
    for (std::size_t i = parts.size() - 1; i-- > 0;) r = junction(Op::or_, {negate(parts[i]), r});
    return r;
  }
  if (op == "+" || op == "-") {
    std::vector<bool> negative(a.kids.size(), false);
    for (std::size_t i = 0; i < a.kids.size(); ++i) {
      parts.push_back(elaborate(*a.kids[i], env));
      if (i > 0) negative[i] = a.ops[i - 1].op == "-";
    }
    return sum(loc(a), parts, negative);
  }
  if (op == "*" || op == "/" || op == "%") {  // left to right (/ and % fold constants only)
    Val r = elaborate(*a.kids[0], env);
    for (std::size_t i = 1; i < a.kids.size(); ++i) {
      r = arith(loc(a.ops[i - 1]), a.ops[i - 1].op, r, elaborate(*a.kids[i], env));
    }
    return r;
  }
  return binary(a, env);
}

// One comparison: a > b is b < a.
Val Elaborator::binary(const Ast& a, Env& env) {
  const Val x = elaborate(*a.kids[0], env);
  const Val y = elaborate(*a.kids[1], env);
  const std::string& op = a.op;
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

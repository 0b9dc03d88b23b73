// Elaboration of the .spec language: from syntax trees (Ast) to ground formulas over the scalar
// inputs. Bounded quantifiers become flat and/or lists, predicate calls are expanded with their
// arguments, constant arithmetic is folded, and every type, index or arity error is reported with
// the location of the expression that caused it.
//
//   Elaborator e(file, spec.domain);
//   e.declare_const("n", {4, true});
//   Formula f = e.ground(*ast, "a truth");     // throws "file:line:col: ..." on bad input
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/count/spec.hpp"

namespace assay::count::detail {

struct Ast;
using AstPtr = std::shared_ptr<const Ast>;

/// Limits that keep a hostile spec from exhausting the stack, memory or time (docs/count.md).
/// Expressions nest at most kMaxNesting levels in the text (parentheses, not, unary minus,
/// quantifiers, if, calls); long chains of one operator (a or b or c ...) are flat lists and do
/// not count as nesting.
inline constexpr int kMaxNesting = 1000;
/// Nesting once predicate calls are expanded, and the depth of ground formulas: the recursive
/// passes over formulas (evaluation, three-valued evaluation) rely on it.
inline constexpr int kMaxExpansionDepth = 2 * kMaxNesting;
/// Scalar inputs of a spec (array elements included).
inline constexpr std::uint64_t kMaxInputs = 1'000'000;
/// Instances of one quantifier's body, counting the enclosing quantifiers' instances.
inline constexpr std::uint64_t kMaxInstances = 1'000'000;
/// Nodes of one ground formula (32 bytes each).
inline constexpr std::uint64_t kMaxNodes = 2'000'000;
/// Elaboration steps for the whole spec (predicate expansion can grow exponentially): a few
/// seconds of work.
inline constexpr std::uint64_t kMaxSteps = 10'000'000;

/// An operator of a binary chain, where it is written.
struct OpAt {
  std::string op;
  std::int64_t line = 0, col = 0;
};

struct Ast {
  enum class Kind {
    number,
    boolean,
    name,    // a constant, scalar input, bound variable, parameter or predicate
    index,   // name[expr]
    call,    // name(args)
    unary,   // op: not, -
    binary,  // a chain kids[0] ops[0] kids[1] ops[1] ... (one precedence level): and, or, =>
             // (right-associative), + -, * / % (left-associative), or one comparison
    quant,   // op: forall exists sum; name = bound variable; kids: lo, hi, body
    ite,     // kids: cond, then, else
    label,
    argmax,
    score  // kids: k
  } kind = Kind::number;
  std::string op;
  std::string name;
  double number = 0.0;
  bool is_int = false;
  std::vector<AstPtr> kids;
  std::vector<OpAt> ops;  ///< binary: ops[i] joins kids[i] and kids[i + 1]; op = ops[0].op
  std::int64_t line = 0, col = 0;
};

struct InputDecl {
  std::size_t first = 0;  // index of the first scalar input
  std::size_t count = 1;
  bool is_array = false;
};

struct PredDecl {
  std::vector<std::string> params;
  AstPtr body;
};

struct Const {
  double value = 0.0;
  bool is_int = true;
};

// An elaborated value: a node in the formula under construction, or a constant.
struct Val {
  std::uint32_t node = 0;
  bool boolean = false;
  bool is_const = false;
  double value = 0.0;
  bool is_int = false;
};

class Elaborator {
 public:
  Elaborator(std::string file, const Domain& domain) : file_(std::move(file)), domain_(domain) {}

  /// True when `name` is a declared constant, input or predicate.
  bool declared(const std::string& name) const {
    return consts_.count(name) || inputs_.count(name) || preds_.count(name);
  }
  void declare_const(const std::string& name, Const c) { consts_[name] = c; }
  void declare_input(const std::string& name, InputDecl d) { inputs_[name] = d; }
  void declare_pred(const std::string& name, PredDecl d) { preds_[name] = std::move(d); }

  /// A boolean formula over the inputs; `what` names it in a type error.
  Formula ground(const Ast& a, const char* what);
  /// A constant number (not a boolean); `what` names it in errors.
  Val elaborate_const(const Ast& a, const char* what);

 private:
  using Env = std::vector<std::pair<std::string, std::int64_t>>;

  Location loc(const Ast& a) const { return Location{file_, a.line, a.col}; }
  // Where an expression starts (a binary node is located at its operator).
  Location start(const Ast& a) const {
    const Ast* p = &a;
    while (p->kind == Ast::Kind::binary) p = p->kids[0].get();
    return loc(*p);
  }
  // Held while elaborating one Ast node: bounds the recursion depth (through predicate calls
  // too) and counts steps.
  class Step {
   public:
    explicit Step(Elaborator& e);
    ~Step() { --e_.depth_; }
    Step(const Step&) = delete;
    Step& operator=(const Step&) = delete;

   private:
    Elaborator& e_;
  };
  // Formula under construction, with the depth of each node (the recursive passes over ground
  // formulas rely on kMaxNesting).
  void begin(Formula& f);
  static Val constant(double value, bool boolean, bool is_int);
  std::uint32_t node(Formula::Node n, const std::vector<std::uint32_t>& kids = {});
  std::uint32_t materialise(const Val& v);
  Val of_node(std::uint32_t id);
  Val need_bool(const Val& v, const Ast& at, const char* op) { return need_bool(v, loc(at), op); }
  Val need_bool(const Val& v, const Location& at, const char* op);
  Location loc(const OpAt& o) const { return Location{file_, o.line, o.col}; }
  Val junction(Formula::Op op, const std::vector<Val>& parts);
  Val negate(const Val& v);
  std::int64_t const_int(const Ast& a, Env& env, const char* what);
  Val elaborate(const Ast& a, Env& env);
  Val name(const Ast& a, Env& env);
  Val index(const Ast& a, Env& env);
  Val quantifier(const Ast& a, Env& env);
  Val if_then_else(const Ast& a, Env& env);
  Val var(std::size_t index);
  Val call(const Ast& at, const PredDecl& p, const std::vector<std::int64_t>& args);
  Val arith(const Location& at, const std::string& op, const Val& x, const Val& y);
  Val binary(const Ast& a, Env& env);
  Val chain(const Ast& a, Env& env);
  Val sum(const Location& at, const std::vector<Val>& terms, const std::vector<bool>& negative);
  Val balanced_add(const std::vector<std::uint32_t>& nodes, std::size_t lo, std::size_t hi);

  std::string file_;
  const Domain& domain_;
  std::unordered_map<std::string, Const> consts_;
  std::unordered_map<std::string, InputDecl> inputs_;
  std::unordered_map<std::string, PredDecl> preds_;
  Formula* formula_ = nullptr;
  std::vector<std::uint32_t> node_depth_;  // per node of *formula_
  const Ast* statement_ = nullptr;         // the expression of the statement being elaborated
  int depth_ = 0;                          // Step nesting
  std::uint64_t steps_ = 0;                // Steps for the whole spec
  std::uint64_t instances_ = 1;            // product of the enclosing quantifiers' ranges
};

}  // namespace assay::count::detail

// The .spec language: a hand-written recursive-descent parser of statements and expressions into
// syntax trees (spec_elaborate.hpp turns them into ground formulas; spec_lexer.hpp makes the
// tokens). Every error carries file:line:col.
#include "assay/count/spec.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>

#include "assay/core/error.hpp"
#include "hamming.hpp"
#include "input_file.hpp"
#include "spec_elaborate.hpp"
#include "spec_lexer.hpp"

namespace assay::count {

namespace {

using detail::Ast;
using detail::AstPtr;
using detail::Const;
using detail::Elaborator;
using detail::InputDecl;
using detail::PredDecl;
using detail::Tok;
using detail::Token;
using detail::Val;

class Parser {
 public:
  Parser(std::vector<Token> tokens, const std::string& file)
      : toks_(std::move(tokens)), file_(file), elab_(file, spec_.domain) {}

  Spec run() {
    spec_.file = file_;
    while (peek().kind != Tok::end) statement();
    std::sort(spec_.truths.begin(), spec_.truths.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return std::move(spec_);
  }

 private:
  // ---- token helpers
  const Token& peek(std::size_t ahead = 0) const {
    return toks_[std::min(pos_ + ahead, toks_.size() - 1)];
  }
  Location loc(const Token& t) const { return Location{file_, t.line, t.col}; }
  Location loc(const Ast& a) const { return Location{file_, a.line, a.col}; }
  // Where an expression starts (a binary node is located at its operator).
  Location start(const Ast& a) const {
    const Ast* p = &a;
    while (p->kind == Ast::Kind::binary) p = p->kids[0].get();
    return loc(*p);
  }
  static std::string describe(const Token& t) {
    if (t.kind == Tok::end) return "the end of the file";
    return quote_found(t.text);
  }
  bool is(const char* text, std::size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return t.kind != Tok::number && t.kind != Tok::end && t.text == text;
  }
  bool accept(const char* text) {
    if (!is(text)) return false;
    ++pos_;
    return true;
  }
  const Token& expect(const char* text) {
    if (!is(text)) fail_at(loc(peek()), "expected \"{}\", found {}", text, describe(peek()));
    return toks_[pos_++];
  }
  std::string expect_name(const char* what) {
    const Token& t = peek();
    if (t.kind != Tok::ident || keyword(t.text)) {
      fail_at(loc(t), "expected {}, found {}", what, describe(t));
    }
    ++pos_;
    return t.text;
  }
  static bool keyword(const std::string& s) {
    static const char* const words[] = {
        "const", "input", "pred", "truth", "safety", "region", "bool",  "int", "real",
        "step",  "and",   "or",   "not",   "forall", "exists", "sum",   "in",  "true",
        "false", "if",    "then", "else",  "label",  "argmax", "score", "ball"};
    for (const char* w : words) {
      if (s == w) return true;
    }
    return false;
  }
  void check_new_name(const std::string& name, const Token& at) {
    if (elab_.declared(name)) {
      fail_at(loc(at), "{} is already defined", quote_found(name));
    }
  }

  // ---- statements
  void statement() {
    const Token& head = peek();
    if (head.kind != Tok::ident) {
      fail_at(loc(head),
              "expected a statement (const, input, pred, truth, safety, region), found {}",
              describe(head));
    }
    if (accept("const")) {
      const Token& at = peek();
      const std::string name = expect_name("a constant name");
      check_new_name(name, at);
      expect("=");
      const AstPtr e = expression();
      const Val v = elab_.elaborate_const(*e, "a constant");
      elab_.declare_const(name, Const{v.value, v.is_int});
    } else if (accept("input")) {
      input();
    } else if (accept("pred")) {
      const Token& at = peek();
      const std::string name = expect_name("a predicate name");
      check_new_name(name, at);
      PredDecl decl;
      if (accept("(")) {
        do {
          decl.params.push_back(expect_name("a parameter name"));
        } while (accept(","));
        expect(")");
      }
      expect("=");
      scopes_.push_back(decl.params);
      decl.body = expression();
      scopes_.pop_back();
      if (decl.params.empty()) {
        // Expand now, so that errors show at load time and `--property NAME` can use it.
        Formula f = elab_.ground(*decl.body, "the predicate");
        spec_.predicates.push_back({name, std::move(f)});
      }
      elab_.declare_pred(name, std::move(decl));
    } else if (accept("truth")) {
      const AstPtr l = expression();
      const Val lv = elab_.elaborate_const(*l, "a label index");
      const auto label = label_index(*l, lv);
      for (const auto& [k, _] : spec_.truths) {
        if (k == label) fail_at(loc(*l), "truth of label {} is already defined", label);
      }
      expect("=");
      const AstPtr e = expression();
      spec_.truths.emplace_back(label, elab_.ground(*e, "a truth"));
    } else if (accept("safety")) {
      const Token& at = peek();
      const std::string name = expect_name("a property name");
      for (const auto& s : spec_.safety) {
        if (s.name == name) fail_at(loc(at), "{} is already defined", quote_found(name));
      }
      expect("=");
      const AstPtr e = expression();
      SafetyProperty p;
      p.name = name;
      if (e->kind == Ast::Kind::binary && e->op == "=>") {
        // a => b => c is a => (b => c): the precondition is a.
        p.pre = elab_.ground(*e->kids[0], "a precondition");
        p.post = elab_.ground(*implication_tail(*e), "a postcondition");
      } else {
        Ast t;
        t.kind = Ast::Kind::boolean;
        t.number = 1;
        p.pre = elab_.ground(t, "a precondition");
        p.post = elab_.ground(*e, "a postcondition");
      }
      spec_.safety.push_back(std::move(p));
    } else if (accept("region")) {
      region();
    } else {
      fail_at(loc(head),
              "expected a statement (const, input, pred, truth, safety, region), found {}",
              describe(head));
    }
    expect(";");
  }

  std::int32_t label_index(const Ast& at, const Val& v) const {
    if (!v.is_int || v.value < 0 || v.value > INT32_MAX) {
      fail_at(loc(at), "expected a label index in [0, {}], found {}", INT32_MAX, v.value);
    }
    return static_cast<std::int32_t>(v.value);
  }

  // The right operand of the first "=>" of a chain a => b => c ...: b => c ....
  static AstPtr implication_tail(const Ast& e) {
    if (e.kids.size() == 2) return e.kids[1];
    auto tail = std::make_shared<Ast>(e);
    tail->kids.erase(tail->kids.begin());
    tail->ops.erase(tail->ops.begin());
    tail->line = tail->ops[0].line;
    tail->col = tail->ops[0].col;
    return tail;
  }

  void input() {
    const Token& at = peek();
    const std::string name = expect_name("an input name");
    check_new_name(name, at);
    InputDecl decl;
    decl.first = spec_.domain.vars.size();
    if (accept("[")) {
      const AstPtr n = expression();
      const Val v = elab_.elaborate_const(*n, "an array length");
      if (!v.is_int || v.value < 1)
        fail_at(loc(*n), "expected an array length >= 1, found {}", v.value);
      // Checked before anything is allocated: each scalar input is a domain entry.
      const auto declared = static_cast<double>(spec_.domain.vars.size());
      if (v.value + declared > static_cast<double>(detail::kMaxInputs)) {
        fail_at(loc(*n),
                "expected at most {} scalar inputs in all, found an array of {:.0f} ({} declared "
                "before it)",
                detail::kMaxInputs, v.value, spec_.domain.vars.size());
      }
      decl.count = static_cast<std::size_t>(v.value);
      decl.is_array = true;
      expect("]");
    }
    if (!decl.is_array && spec_.domain.vars.size() >= detail::kMaxInputs) {
      fail_at(loc(at), "expected at most {} scalar inputs in all, found more", detail::kMaxInputs);
    }
    expect(":");
    VarDomain dom;
    const Token& type_tok = peek();
    if (accept("bool")) {
      dom.type = VarDomain::Type::boolean;
    } else if (accept("int") || accept("real")) {
      const bool is_real = type_tok.text == "real";
      if (!is("[")) {
        fail_at(loc(peek()), "unbounded domain: {} inputs need bounds, e.g. {}", type_tok.text,
                is_real ? "real[0, 1] step 0.25" : "int[0, 255]");
      }
      expect("[");
      const AstPtr lo_e = expression();
      const Val lo = elab_.elaborate_const(*lo_e, "a lower bound");
      expect(",");
      const AstPtr hi_e = expression();
      const Val hi = elab_.elaborate_const(*hi_e, "an upper bound");
      expect("]");
      if (hi.value < lo.value) {
        fail_at(loc(*hi_e), "empty domain: upper bound {} is below lower bound {}", hi.value,
                lo.value);
      }
      dom.lo = lo.value;
      if (!is_real) {
        if (!lo.is_int || !hi.is_int) fail_at(loc(*lo_e), "int bounds must be integers");
        if (hi.value - lo.value > 9.0e15) {
          fail_at(loc(*hi_e), "int[{:.0f}, {:.0f}] has too many points (at most 9e15)", lo.value,
                  hi.value);
        }
        dom.type = VarDomain::Type::integer;
        dom.step = 1.0;
        dom.size = static_cast<std::uint64_t>(hi.value - lo.value) + 1;
      } else {
        dom.type = VarDomain::Type::real;
        if (!is("step")) {
          fail_at(loc(peek()),
                  "unbounded domain: real inputs need a grid step, e.g. real[0, 1] step 0.25");
        }
        expect("step");
        const AstPtr s_e = expression();
        const Val s = elab_.elaborate_const(*s_e, "a step");
        dom.step = s.value;
        const std::string problem = real_grid_problem(lo.value, hi.value, s.value, dom.size);
        if (!problem.empty()) fail_at(loc(*s_e), "{}", problem);
      }
    } else {
      fail_at(loc(type_tok), "expected a type (bool, int[lo, hi], real[lo, hi] step s), found {}",
              describe(type_tok));
    }
    for (std::size_t i = 0; i < decl.count; ++i) {
      dom.name = decl.is_array ? fmt::format("{}[{}]", name, i) : name;
      spec_.domain.vars.push_back(dom);
    }
    elab_.declare_input(name, decl);
  }

  void region() {
    RegionSpec r;
    const Token& at = peek();
    r.name = expect_name("a region name");
    for (const auto& s : spec_.regions) {
      if (s.name == r.name) fail_at(loc(at), "{} is already defined", quote_found(r.name));
    }
    expect("=");
    const Token& shape = peek();
    if (accept("hamming")) {
      r.metric = RegionSpec::Metric::hamming;
      check_zero_one_inputs(shape);
    } else if (!accept("ball")) {
      fail_at(loc(shape), "expected \"ball\" or \"hamming\", found {}", describe(shape));
    }
    expect("(");
    expect("[");
    std::vector<AstPtr> coordinates;
    do {
      coordinates.push_back(expression());
      r.center.push_back(elab_.elaborate_const(*coordinates.back(), "a coordinate").value);
    } while (accept(","));
    const Token& close = expect("]");
    if (r.center.size() != spec_.domain.vars.size()) {
      fail_at(loc(close), "the center has {} coordinates, the spec declares {} inputs",
              r.center.size(), spec_.domain.vars.size());
    }
    expect(",");
    const AstPtr e = expression();
    const Val radius = elab_.elaborate_const(*e, "a radius");
    r.epsilon = radius.value;
    if (r.metric == RegionSpec::Metric::hamming) {
      hamming_region(r, coordinates, *e, radius);
    } else if (!(r.epsilon >= 0)) {
      fail_at(loc(*e), "expected a radius >= 0, found {}", r.epsilon);
    }
    expect(")");
    expect("label");
    const AstPtr l = expression();
    r.label = label_index(*l, elab_.elaborate_const(*l, "a label index"));
    spec_.regions.push_back(std::move(r));
  }

  // Hamming distance counts flipped inputs, so every input must be a bit.
  void check_zero_one_inputs(const Token& at) const {
    for (const VarDomain& v : spec_.domain.vars) {
      if (detail::zero_one_input(v)) continue;
      fail_at(loc(at),
              "expected inputs with the values 0 and 1 for a Hamming region (it counts flipped "
              "inputs), found input {} of domain {}; use ball(...) for other inputs",
              v.name, domain_text(v));
    }
  }

  // A radius beyond the number of inputs is refused rather than clamped: it adds no point (k = n
  // already covers the domain), so it is most likely a mistake, e.g. a radius written for a
  // larger spec.
  void hamming_region(RegionSpec& r, const std::vector<AstPtr>& coordinates, const Ast& radius_at,
                      const Val& radius) {
    for (std::size_t i = 0; i < r.center.size(); ++i) {
      if (r.center[i] == 0.0 || r.center[i] == 1.0) continue;
      fail_at(start(*coordinates[i]), "expected 0 or 1 as the center's {}, found {}",
              spec_.domain.vars[i].name, r.center[i]);
    }
    const std::size_t n = spec_.domain.vars.size();
    if (!radius.is_int || !(r.epsilon >= 0) || r.epsilon > static_cast<double>(n)) {
      fail_at(start(radius_at),
              "expected a Hamming radius: a whole number of inputs in [0, {}] (the spec declares "
              "{} inputs), found {}",
              n, n, r.epsilon);
    }
    r.within =
        detail::hamming_formula(spec_.domain, r.center, static_cast<std::uint64_t>(r.epsilon));
  }

  // ---- expressions
  std::shared_ptr<Ast> make(Ast::Kind kind, const Token& at) {
    auto a = std::make_shared<Ast>();
    a->kind = kind;
    a->line = at.line;
    a->col = at.col;
    return a;
  }

  // Parser recursion (and so Ast depth) is bounded: every nesting step holds a Nest.
  class Nest {
   public:
    Nest(Parser& p, const Token& at) : p_(p) {
      if (++p_.depth_ > detail::kMaxNesting) {
        fail_at(p_.loc(at),
                "expected expressions nested at most {} levels deep, found deeper nesting",
                detail::kMaxNesting);
      }
    }
    ~Nest() { --p_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    Parser& p_;
  };

  AstPtr expression() {
    const Nest nest(*this, peek());
    return implies();
  }

  // One precedence level: operands joined by any of `ops`, as one flat binary node (a chain of
  // 25,000 "or" is a list, not a tree 25,000 deep).
  template <typename Operand>
  AstPtr chain(std::initializer_list<const char*> ops, Operand operand) {
    AstPtr first = operand();
    std::shared_ptr<Ast> a;
    for (;;) {
      const Token& at = peek();
      const char* found = nullptr;
      for (const char* op : ops) {
        if (!found && accept(op)) found = op;
      }
      if (!found) break;
      if (!a) {
        a = make(Ast::Kind::binary, at);
        a->kids.push_back(first);
      }
      std::string op = found;
      if (op == "||") op = "or";
      if (op == "&&") op = "and";
      a->ops.push_back({op, at.line, at.col});
      a->kids.push_back(operand());
    }
    if (!a) return first;
    a->op = a->ops[0].op;
    return a;
  }

  AstPtr implies() {
    return chain({"=>"}, [this] { return disjunction(); });
  }
  AstPtr disjunction() {
    return chain({"or", "||"}, [this] { return conjunction(); });
  }
  AstPtr conjunction() {
    return chain({"and", "&&"}, [this] { return negation(); });
  }
  AstPtr negation() {
    const Token& at = peek();
    if (accept("not") || accept("!")) {
      const Nest nest(*this, at);
      auto a = make(Ast::Kind::unary, at);
      a->op = "not";
      a->kids = {negation()};
      return a;
    }
    return comparison();
  }
  AstPtr comparison() {
    AstPtr lhs = additive();
    static const char* const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
    for (const char* op : ops) {
      const Token& at = peek();
      if (accept(op)) {
        auto a = make(Ast::Kind::binary, at);
        a->op = op;
        a->ops = {{op, at.line, at.col}};
        a->kids = {lhs, additive()};
        return a;
      }
    }
    return lhs;
  }
  AstPtr additive() {
    return chain({"+", "-"}, [this] { return multiplicative(); });
  }
  AstPtr multiplicative() {
    return chain({"*", "/", "%"}, [this] { return unary(); });
  }
  AstPtr unary() {
    const Token& at = peek();
    if (accept("-")) {
      const Nest nest(*this, at);
      auto a = make(Ast::Kind::unary, at);
      a->op = "-";
      a->kids = {unary()};
      return a;
    }
    return primary();
  }
  AstPtr primary() {
    const Token t = peek();
    if (t.kind == Tok::number) {
      ++pos_;
      auto a = make(Ast::Kind::number, t);
      a->number = t.number;
      a->is_int = t.is_int;
      return a;
    }
    if (accept("(")) {
      AstPtr e = expression();
      expect(")");
      return e;
    }
    if (t.kind != Tok::ident) fail_at(loc(t), "expected an expression, found {}", describe(t));
    if (accept("true") || accept("false")) {
      auto a = make(Ast::Kind::boolean, t);
      a->number = t.text == "true" ? 1 : 0;
      return a;
    }
    if (accept("forall") || accept("exists") || accept("sum")) {
      auto a = make(Ast::Kind::quant, t);
      a->op = t.text;
      a->name = expect_name("a variable name");
      expect("in");
      AstPtr lo = additive();
      expect("..");
      AstPtr hi = additive();
      expect(":");
      scopes_.push_back({a->name});
      AstPtr body = expression();
      scopes_.pop_back();
      a->kids = {lo, hi, body};
      return a;
    }
    if (accept("if")) {
      auto a = make(Ast::Kind::ite, t);
      AstPtr c = expression();
      expect("then");
      AstPtr x = expression();
      expect("else");
      AstPtr y = expression();
      a->kids = {c, x, y};
      return a;
    }
    if (accept("label")) return make(Ast::Kind::label, t);
    if (accept("argmax")) return make(Ast::Kind::argmax, t);
    if (accept("score")) {
      auto a = make(Ast::Kind::score, t);
      expect("[");
      a->kids = {expression()};
      expect("]");
      return a;
    }
    if (keyword(t.text)) fail_at(loc(t), "expected an expression, found {}", describe(t));
    ++pos_;
    if (!bound(t.text) && !elab_.declared(t.text)) {
      fail_at(loc(t), "unknown identifier {}", quote_found(t.text));
    }
    if (is("[")) {
      ++pos_;
      auto a = make(Ast::Kind::index, t);
      a->name = t.text;
      a->kids = {expression()};
      expect("]");
      return a;
    }
    if (is("(")) {
      ++pos_;
      auto a = make(Ast::Kind::call, t);
      a->name = t.text;
      if (!is(")")) {
        do {
          a->kids.push_back(expression());
        } while (accept(","));
      }
      expect(")");
      return a;
    }
    auto a = make(Ast::Kind::name, t);
    a->name = t.text;
    return a;
  }
  bool bound(const std::string& name) const {
    for (const auto& scope : scopes_) {
      for (const auto& n : scope) {
        if (n == name) return true;
      }
    }
    return false;
  }

  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  std::string file_;
  Spec spec_;
  Elaborator elab_;  // after spec_: it refers to spec_.domain
  std::vector<std::vector<std::string>> scopes_;
  int depth_ = 0;
};

}  // namespace

Spec parse_spec(const std::string& text, const std::string& file) {
  Parser parser(detail::lex_spec(text, file), file);
  Spec spec = parser.run();
  if (spec.domain.vars.empty()) fail_at(Location{file, 0, 0}, "the spec declares no inputs");
  return spec;
}

Spec load_spec(const std::string& path) {
  const std::string text = detail::read_input_file(
      path, "a spec file", fmt::format("cannot open spec file \"{}\"", path));
  return parse_spec(text, path);
}

}  // namespace assay::count

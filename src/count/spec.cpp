// The .spec language: a hand-written lexer and recursive-descent parser into a small AST, then
// "elaboration": bounded quantifiers, predicate calls and constant arithmetic are expanded into a
// ground Formula over the scalar inputs. Every error carries file:line:col.
#include "assay/count/spec.hpp"

#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "assay/core/error.hpp"

namespace assay::count {

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

namespace {

using Op = Formula::Op;

// ---------------------------------------------------------------- lexer

enum class Tok { ident, number, punct, end };

struct Token {
  Tok kind = Tok::end;
  std::string text;
  double number = 0.0;
  bool is_int = false;
  std::int64_t line = 1, col = 1;
};

class Lexer {
 public:
  Lexer(const std::string& text, std::string file) : text_(text), file_(std::move(file)) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space();
      Token t;
      t.line = line_;
      t.col = col_;
      if (pos_ >= text_.size()) {
        t.kind = Tok::end;
        out.push_back(t);
        return out;
      }
      const char c = text_[pos_];
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        const std::size_t start = pos_;
        while (pos_ < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
          advance();
        }
        t.kind = Tok::ident;
        t.text = text_.substr(start, pos_ - start);
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        lex_number(t);
      } else {
        static const char* const two[] = {"..", "==", "!=", "<=", ">=", "=>", "&&", "||"};
        t.kind = Tok::punct;
        for (const char* p : two) {
          if (text_.compare(pos_, 2, p) == 0) t.text = p;
        }
        if (t.text.empty()) {
          if (std::string("()[],;:+-*/%<>=!").find(c) == std::string::npos) {
            fail_at(Location{file_, line_, col_}, "unexpected character {}",
                    quote_found(std::string(1, c)));
          }
          t.text = std::string(1, c);
        }
        for (std::size_t i = 0; i < t.text.size(); ++i) advance();
      }
      out.push_back(std::move(t));
    }
  }

 private:
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }
  void skip_space() {
    while (pos_ < text_.size()) {
      if (text_[pos_] == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else if (std::isspace(static_cast<unsigned char>(text_[pos_]))) {
        advance();
      } else {
        return;
      }
    }
  }
  void lex_number(Token& t) {
    const std::size_t start = pos_;
    bool is_int = true;
    auto digits = [&] {
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
        advance();
    };
    digits();
    // "0..3" is a range, not the real "0." followed by ".3".
    if (pos_ + 1 < text_.size() && text_[pos_] == '.' &&
        std::isdigit(static_cast<unsigned char>(text_[pos_ + 1]))) {
      is_int = false;
      advance();
      digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      std::size_t look = pos_ + 1;
      if (look < text_.size() && (text_[look] == '+' || text_[look] == '-')) ++look;
      if (look < text_.size() && std::isdigit(static_cast<unsigned char>(text_[look]))) {
        is_int = false;
        while (pos_ < look) advance();
        digits();
      }
    }
    t.kind = Tok::number;
    t.text = text_.substr(start, pos_ - start);
    t.number = std::stod(t.text);
    t.is_int = is_int;
    if (is_int && t.number > 9.0e15) {
      fail_at(Location{file_, t.line, t.col}, "integer {} is too large", t.text);
    }
  }

  const std::string& text_;
  std::string file_;
  std::size_t pos_ = 0;
  std::int64_t line_ = 1, col_ = 1;
};

// ---------------------------------------------------------------- AST

struct Ast;
using AstPtr = std::shared_ptr<const Ast>;

struct Ast {
  enum class Kind {
    number,
    boolean,
    name,    // a constant, scalar input, bound variable, parameter or predicate
    index,   // name[expr]
    call,    // name(args)
    unary,   // op: not, -
    binary,  // op: and or => + - * / % == != < <= > >=
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

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string file)
      : toks_(std::move(tokens)), file_(std::move(file)) {}

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
    if (consts_.count(name) || inputs_.count(name) || preds_.count(name)) {
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
      const Val v = elaborate_const(*e, "a constant");
      consts_[name] = Const{v.value, v.is_int};
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
        Formula f = ground(*decl.body, "the predicate");
        spec_.predicates.push_back({name, std::move(f)});
      }
      preds_[name] = std::move(decl);
    } else if (accept("truth")) {
      const AstPtr l = expression();
      const Val lv = elaborate_const(*l, "a label index");
      if (!lv.is_int || lv.value < 0)
        fail_at(loc(*l), "expected a label index >= 0, found {}", lv.value);
      const auto label = static_cast<std::int32_t>(lv.value);
      for (const auto& [k, _] : spec_.truths) {
        if (k == label) fail_at(loc(*l), "truth of label {} is already defined", label);
      }
      expect("=");
      const AstPtr e = expression();
      spec_.truths.emplace_back(label, ground(*e, "a truth"));
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
        p.pre = ground(*e->kids[0], "a precondition");
        p.post = ground(*e->kids[1], "a postcondition");
      } else {
        Ast t;
        t.kind = Ast::Kind::boolean;
        t.number = 1;
        p.pre = ground(t, "a precondition");
        p.post = ground(*e, "a postcondition");
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

  void input() {
    const Token& at = peek();
    const std::string name = expect_name("an input name");
    check_new_name(name, at);
    InputDecl decl;
    decl.first = spec_.domain.vars.size();
    if (accept("[")) {
      const AstPtr n = expression();
      const Val v = elaborate_const(*n, "an array length");
      if (!v.is_int || v.value < 1)
        fail_at(loc(*n), "expected an array length >= 1, found {}", v.value);
      decl.count = static_cast<std::size_t>(v.value);
      decl.is_array = true;
      expect("]");
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
      const Val lo = elaborate_const(*lo_e, "a lower bound");
      expect(",");
      const AstPtr hi_e = expression();
      const Val hi = elaborate_const(*hi_e, "an upper bound");
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
        const Val s = elaborate_const(*s_e, "a step");
        if (!(s.value > 0)) fail_at(loc(*s_e), "expected a step > 0, found {}", s.value);
        dom.step = s.value;
        const double n = std::floor((hi.value - lo.value) / s.value * (1 + 1e-12) + 1e-9);
        if (n > 9.0e15) fail_at(loc(*s_e), "the grid has too many points");
        dom.size = static_cast<std::uint64_t>(n) + 1;
      }
    } else {
      fail_at(loc(type_tok), "expected a type (bool, int[lo, hi], real[lo, hi] step s), found {}",
              describe(type_tok));
    }
    for (std::size_t i = 0; i < decl.count; ++i) {
      dom.name = decl.is_array ? fmt::format("{}[{}]", name, i) : name;
      spec_.domain.vars.push_back(dom);
    }
    inputs_[name] = decl;
  }

  void region() {
    RegionSpec r;
    const Token& at = peek();
    r.name = expect_name("a region name");
    for (const auto& s : spec_.regions) {
      if (s.name == r.name) fail_at(loc(at), "{} is already defined", quote_found(r.name));
    }
    expect("=");
    expect("ball");
    expect("(");
    expect("[");
    do {
      const AstPtr e = expression();
      r.center.push_back(elaborate_const(*e, "a coordinate").value);
    } while (accept(","));
    const Token& close = expect("]");
    if (r.center.size() != spec_.domain.vars.size()) {
      fail_at(loc(close), "the center has {} coordinates, the spec declares {} inputs",
              r.center.size(), spec_.domain.vars.size());
    }
    expect(",");
    const AstPtr e = expression();
    r.epsilon = elaborate_const(*e, "a radius").value;
    if (!(r.epsilon >= 0)) fail_at(loc(*e), "expected a radius >= 0, found {}", r.epsilon);
    expect(")");
    expect("label");
    const AstPtr l = expression();
    const Val lv = elaborate_const(*l, "a label index");
    if (!lv.is_int || lv.value < 0)
      fail_at(loc(*l), "expected a label index >= 0, found {}", lv.value);
    r.label = static_cast<std::int32_t>(lv.value);
    spec_.regions.push_back(std::move(r));
  }

  // ---- expressions
  std::shared_ptr<Ast> make(Ast::Kind kind, const Token& at) {
    auto a = std::make_shared<Ast>();
    a->kind = kind;
    a->line = at.line;
    a->col = at.col;
    return a;
  }

  AstPtr expression() { return implies(); }

  AstPtr implies() {
    AstPtr lhs = disjunction();
    const Token& at = peek();
    if (accept("=>")) {
      auto a = make(Ast::Kind::binary, at);
      a->op = "=>";
      a->kids = {lhs, implies()};
      return a;
    }
    return lhs;
  }
  AstPtr disjunction() {
    AstPtr lhs = conjunction();
    for (;;) {
      const Token& at = peek();
      if (!accept("or") && !accept("||")) return lhs;
      auto a = make(Ast::Kind::binary, at);
      a->op = "or";
      a->kids = {lhs, conjunction()};
      lhs = a;
    }
  }
  AstPtr conjunction() {
    AstPtr lhs = negation();
    for (;;) {
      const Token& at = peek();
      if (!accept("and") && !accept("&&")) return lhs;
      auto a = make(Ast::Kind::binary, at);
      a->op = "and";
      a->kids = {lhs, negation()};
      lhs = a;
    }
  }
  AstPtr negation() {
    const Token& at = peek();
    if (accept("not") || accept("!")) {
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
        a->kids = {lhs, additive()};
        return a;
      }
    }
    return lhs;
  }
  AstPtr additive() {
    AstPtr lhs = multiplicative();
    for (;;) {
      const Token& at = peek();
      std::string op;
      if (accept("+")) {
        op = "+";
      } else if (accept("-")) {
        op = "-";
      } else {
        return lhs;
      }
      auto a = make(Ast::Kind::binary, at);
      a->op = op;
      a->kids = {lhs, multiplicative()};
      lhs = a;
    }
  }
  AstPtr multiplicative() {
    AstPtr lhs = unary();
    for (;;) {
      const Token& at = peek();
      std::string op;
      if (accept("*")) {
        op = "*";
      } else if (accept("/")) {
        op = "/";
      } else if (accept("%")) {
        op = "%";
      } else {
        return lhs;
      }
      auto a = make(Ast::Kind::binary, at);
      a->op = op;
      a->kids = {lhs, unary()};
      lhs = a;
    }
  }
  AstPtr unary() {
    const Token& at = peek();
    if (accept("-")) {
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
    if (!bound(t.text) && !consts_.count(t.text) && !inputs_.count(t.text) &&
        !preds_.count(t.text)) {
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

  // ---- elaboration into a Formula
  using Env = std::vector<std::pair<std::string, std::int64_t>>;

  Formula ground(const Ast& a, const char* what) {
    Formula f;
    formula_ = &f;
    Env env;
    const Val v = elaborate(a, env);
    if (!v.boolean) fail_at(loc(a), "type mismatch: {} must be a boolean, found a number", what);
    f.root = materialise(v);
    formula_ = nullptr;
    return f;
  }

  Val elaborate_const(const Ast& a, const char* what) {
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

  static Val constant(double value, bool boolean, bool is_int) {
    Val v;
    v.is_const = true;
    v.value = value;
    v.boolean = boolean;
    v.is_int = is_int || boolean;
    return v;
  }

  std::uint32_t node(Formula::Node n, const std::vector<std::uint32_t>& kids = {}) {
    n.first_kid = static_cast<std::uint32_t>(formula_->kids.size());
    n.n_kids = static_cast<std::uint32_t>(kids.size());
    formula_->kids.insert(formula_->kids.end(), kids.begin(), kids.end());
    formula_->nodes.push_back(n);
    return static_cast<std::uint32_t>(formula_->nodes.size() - 1);
  }
  std::uint32_t materialise(const Val& v) {
    if (!v.is_const) return v.node;
    Formula::Node n;
    n.op = Op::constant;
    n.boolean = v.boolean;
    n.value = v.value;
    return node(n);
  }
  Val of_node(std::uint32_t id) {
    Val v;
    v.node = id;
    v.boolean = formula_->nodes[id].boolean;
    return v;
  }

  Val need_bool(const Val& v, const Ast& at, const char* op) {
    if (!v.boolean) fail_at(loc(at), "type mismatch: \"{}\" needs booleans, found a number", op);
    return v;
  }

  // n-ary and/or with constant folding and flattening (so forall gives one flat clause list).
  Val junction(Op op, const std::vector<Val>& parts) {
    const double absorbing = op == Op::and_ ? 0.0 : 1.0;
    std::vector<std::uint32_t> kids;
    for (const Val& p : parts) {
      if (p.is_const) {
        if (p.value == absorbing) return constant(absorbing, true, true);
        continue;
      }
      const auto& n = formula_->nodes[p.node];
      if (n.op == op) {
        for (std::uint32_t k = 0; k < n.n_kids; ++k)
          kids.push_back(formula_->kids[n.first_kid + k]);
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

  Val negate(const Val& v) {
    if (v.is_const) return constant(v.value == 0 ? 1 : 0, true, true);
    const auto& n = formula_->nodes[v.node];
    if (n.op == Op::not_) return of_node(formula_->kids[n.first_kid]);
    Formula::Node m;
    m.op = Op::not_;
    m.boolean = true;
    return of_node(node(m, {v.node}));
  }

  std::int64_t const_int(const Ast& a, Env& env, const char* what) {
    const Val v = elaborate(a, env);
    if (!v.is_const || !v.is_int || v.boolean) {
      fail_at(loc(a), "expected {} (a constant integer)", what);
    }
    return static_cast<std::int64_t>(v.value);
  }

  Val elaborate(const Ast& a, Env& env) {
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
      case Ast::Kind::name: {
        for (auto it = env.rbegin(); it != env.rend(); ++it) {
          if (it->first == a.name) return constant(static_cast<double>(it->second), false, true);
        }
        if (auto c = consts_.find(a.name); c != consts_.end()) {
          return constant(c->second.value, false, c->second.is_int);
        }
        if (auto in = inputs_.find(a.name); in != inputs_.end()) {
          if (in->second.is_array) {
            fail_at(loc(a), "{} is an array of {} inputs: index it, e.g. {}[0]",
                    quote_found(a.name), in->second.count, a.name);
          }
          return var(in->second.first);
        }
        if (auto p = preds_.find(a.name); p != preds_.end()) return call(a, p->second, {}, env);
        fail_at(loc(a), "unknown identifier {}", quote_found(a.name));
      }
      case Ast::Kind::index: {
        auto in = inputs_.find(a.name);
        if (in == inputs_.end()) fail_at(loc(a), "{} is not an input array", quote_found(a.name));
        if (!in->second.is_array)
          fail_at(loc(a), "{} is a scalar input, not an array", quote_found(a.name));
        const std::int64_t i = const_int(*a.kids[0], env, "an index");
        if (i < 0 || i >= static_cast<std::int64_t>(in->second.count)) {
          fail_at(start(*a.kids[0]), "index {} out of range [0, {}) for {}", i, in->second.count,
                  a.name);
        }
        return var(in->second.first + static_cast<std::size_t>(i));
      }
      case Ast::Kind::call: {
        auto p = preds_.find(a.name);
        if (p == preds_.end()) fail_at(loc(a), "{} is not a predicate", quote_found(a.name));
        std::vector<std::int64_t> args;
        for (const auto& k : a.kids) args.push_back(const_int(*k, env, "a predicate argument"));
        return call(a, p->second, args, env);
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
      case Ast::Kind::quant: {
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
      case Ast::Kind::ite: {
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
    }
    ASSAY_ASSERT(false);
  }

  Val var(std::size_t index) {
    Formula::Node n;
    n.op = Op::var;
    n.index = static_cast<std::uint32_t>(index);
    n.boolean = spec_.domain.vars[index].type == VarDomain::Type::boolean;
    return of_node(node(n));
  }

  Val call(const Ast& at, const PredDecl& p, const std::vector<std::int64_t>& args, Env& env) {
    if (args.size() != p.params.size()) {
      fail_at(loc(at), "{} takes {} argument(s), found {}", quote_found(at.name), p.params.size(),
              args.size());
    }
    // Predicates see only their parameters (lexical scope), not the caller's bound variables.
    Env inner;
    for (std::size_t i = 0; i < args.size(); ++i) inner.emplace_back(p.params[i], args[i]);
    (void)env;
    return elaborate(*p.body, inner);
  }

  Val arith(const Ast& at, const std::string& op, const Val& x, const Val& y) {
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

  Val binary(const Ast& a, Env& env) {
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

  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  std::string file_;
  Spec spec_;
  std::unordered_map<std::string, Const> consts_;
  std::unordered_map<std::string, InputDecl> inputs_;
  std::unordered_map<std::string, PredDecl> preds_;
  std::vector<std::vector<std::string>> scopes_;
  Formula* formula_ = nullptr;
};

}  // namespace

Spec parse_spec(const std::string& text, const std::string& file) {
  Lexer lexer(text, file);
  Parser parser(lexer.run(), file);
  Spec spec = parser.run();
  if (spec.domain.vars.empty()) fail_at(Location{file, 0, 0}, "the spec declares no inputs");
  return spec;
}

Spec load_spec(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open spec file \"{}\"", path);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_spec(ss.str(), path);
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

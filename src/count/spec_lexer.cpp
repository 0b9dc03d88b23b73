#include "spec_lexer.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "assay/core/error.hpp"

namespace assay::count::detail {

namespace {

class Lexer {
 public:
  Lexer(const std::string& text, std::string file) : text_(text), file_(std::move(file)) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    // A UTF-8 byte order mark (some Windows editors write one) is not part of the text.
    if (text_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;
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
    // strtod, not stod: a literal beyond the double range is an input error, not an exception.
    t.number = std::strtod(t.text.c_str(), nullptr);
    if (!std::isfinite(t.number)) {
      fail_at(Location{file_, t.line, t.col},
              "expected a number within the range of a double (about 1.8e308), found {}", t.text);
    }
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

}  // namespace

std::vector<Token> lex_spec(const std::string& text, const std::string& file) {
  return Lexer(text, file).run();
}

}  // namespace assay::count::detail

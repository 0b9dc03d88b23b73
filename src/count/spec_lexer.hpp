// Tokens of the .spec language (docs/count.md has the grammar).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace assay::count::detail {

enum class Tok { ident, number, punct, end };

struct Token {
  Tok kind = Tok::end;
  std::string text;
  double number = 0.0;
  bool is_int = false;
  std::int64_t line = 1, col = 1;
};

/// Splits spec text into tokens, the last one Tok::end; errors are "file:line:col: ...".
std::vector<Token> lex_spec(const std::string& text, const std::string& file);

}  // namespace assay::count::detail

// count/spec_lexer: the .spec language's tokens (identifiers, integers and reals, one- and
// two-character punctuation), comments, positions, the byte order mark, and located errors.
// The lexer is private to the count layer, so this test includes its header directly.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../../src/count/spec_lexer.hpp"
#include "assay/core/error.hpp"
#include "test_util.hpp"

namespace assay::count::detail {
namespace {

std::vector<std::string> texts(const std::vector<Token>& tokens) {
  std::vector<std::string> out;
  for (const Token& t : tokens) out.push_back(t.kind == Tok::end ? "<end>" : t.text);
  return out;
}

TEST(SpecLexer, SplitsADeclarationIntoTokens) {
  const auto tokens = lex_spec("input x[3] : int[0, 10];", "t.spec");
  EXPECT_EQ(texts(tokens), (std::vector<std::string>{"input", "x", "[", "3", "]", ":", "int", "[",
                                                     "0", ",", "10", "]", ";", "<end>"}));
  EXPECT_EQ(tokens[0].kind, Tok::ident);
  EXPECT_EQ(tokens[2].kind, Tok::punct);
  EXPECT_EQ(tokens[3].kind, Tok::number);
  EXPECT_EQ(tokens[3].number, 3.0);
  EXPECT_TRUE(tokens[3].is_int);
  EXPECT_EQ(tokens.back().kind, Tok::end);
}

TEST(SpecLexer, NumbersIntegersRealsAndRanges) {
  const auto t = lex_spec("2.5 1e3 4E-2 7e 0..3 12_", "t.spec");
  // "7e" is the integer 7 then the identifier "e"; "0..3" is 0, "..", 3; "12_" is 12 then "_".
  EXPECT_EQ(texts(t), (std::vector<std::string>{"2.5", "1e3", "4E-2", "7", "e", "0", "..", "3",
                                                "12", "_", "<end>"}));
  EXPECT_EQ(t[0].number, 2.5);
  EXPECT_FALSE(t[0].is_int);
  EXPECT_EQ(t[1].number, 1000.0);
  EXPECT_FALSE(t[1].is_int);  // an exponent makes a real
  EXPECT_EQ(t[2].number, 0.04);
  EXPECT_TRUE(t[3].is_int);
  EXPECT_EQ(t[4].kind, Tok::ident);
  EXPECT_TRUE(t[5].is_int);
  EXPECT_EQ(t[6].kind, Tok::punct);
  EXPECT_EQ(t[9].kind, Tok::ident);
}

TEST(SpecLexer, TwoCharacterPunctuationIsOneToken) {
  const auto t = lex_spec("a==b!=c<=d>=e=>f&&g||h<i>j=k!l", "t.spec");
  EXPECT_EQ(texts(t), (std::vector<std::string>{
                          "a", "==", "b", "!=", "c", "<=", "d", ">=", "e", "=>", "f", "&&",
                          "g", "||", "h", "<",  "i", ">",  "j", "=",  "k", "!",  "l", "<end>"}));
  const auto single = lex_spec("()[],;:+-*/%", "t.spec");
  EXPECT_EQ(single.size(), 13u);
}

TEST(SpecLexer, CommentsAndPositions) {
  const auto t = lex_spec("# header\n  pred P # trailing\n\t= 1;\n", "t.spec");
  EXPECT_EQ(texts(t), (std::vector<std::string>{"pred", "P", "=", "1", ";", "<end>"}));
  EXPECT_EQ(t[0].line, 2);
  EXPECT_EQ(t[0].col, 3);
  EXPECT_EQ(t[1].col, 8);
  EXPECT_EQ(t[2].line, 3);
  EXPECT_EQ(t[2].col, 2);
  EXPECT_EQ(t[4].col, 5);
  EXPECT_EQ(t[5].line, 4);  // the end is after the last newline
  EXPECT_EQ(t[5].col, 1);
}

TEST(SpecLexer, ByteOrderMarkIsSkippedAndEmptyTextIsJustTheEnd) {
  const auto t = lex_spec("\xEF\xBB\xBFinput", "t.spec");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].text, "input");
  EXPECT_EQ(t[0].col, 1);
  const auto empty = lex_spec("", "t.spec");
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0].kind, Tok::end);
}

TEST(SpecLexer, ErrorsAreLocated) {
  EXPECT_THROW_MSG(lex_spec("pred P = x @ 1;", "t.spec"), Error,
                   "t.spec:1:12: unexpected character \"@\"");
  EXPECT_THROW_MSG(lex_spec("x\n  .5", "t.spec"), Error, "t.spec:2:3: unexpected character \".\"");
  EXPECT_THROW_MSG(lex_spec("a = \xC3\xA9;", "t.spec"), Error,
                   "t.spec:1:5: unexpected character \"\\xC3\"");
  EXPECT_THROW_MSG(lex_spec("x < 1e999", "t.spec"), Error,
                   "t.spec:1:5: expected a number within the range of a double (about 1.8e308), "
                   "found 1e999");
  EXPECT_THROW_MSG(lex_spec("int[0, 10000000000000000]", "t.spec"), Error,
                   "t.spec:1:8: integer 10000000000000000 is too large");
  // 9e15 itself is allowed, and a real as large is not an integer.
  EXPECT_NO_THROW(lex_spec("9000000000000000 1e16", "t.spec"));
}

}  // namespace
}  // namespace assay::count::detail

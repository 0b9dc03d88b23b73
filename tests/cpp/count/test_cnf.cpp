// DIMACS reading and writing: projections, XOR lines, gzip, and every malformed-file message.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "assay/core/error.hpp"
#include "assay/count/cnf.hpp"

namespace {

using assay::count::Cnf;
using assay::count::DimacsNotes;
using assay::count::parse_dimacs;
using assay::count::Var;

std::string error_of(const std::string& text) {
  try {
    parse_dimacs(text, "f.cnf");
  } catch (const assay::Error& e) {
    return e.what();
  }
  return "no error";
}

std::vector<Var> clause_of(const Cnf& f, std::size_t i) {
  const auto c = f.clause(i);
  return {c.begin(), c.end()};
}

TEST(Dimacs, ReadsClausesAcrossLinesAndProjections) {
  const Cnf f = parse_dimacs(
      "c a comment\np cnf 4 3\n1 -2 0 3\n4 0\n-1 0\nc ind 1 2 0\nc p show 4 0\n", "f.cnf");
  EXPECT_EQ(f.n_vars, 4);
  ASSERT_EQ(f.n_clauses(), 3u);
  EXPECT_EQ(clause_of(f, 0), (std::vector<Var>{1, -2}));
  EXPECT_EQ(clause_of(f, 1), (std::vector<Var>{3, 4}));
  EXPECT_EQ(clause_of(f, 2), (std::vector<Var>{-1}));
  EXPECT_TRUE(f.has_projection);
  EXPECT_EQ(f.projection, (std::vector<Var>{1, 2, 4}));
}

TEST(Dimacs, NoProjectionMeansEveryVariable) {
  const Cnf f = parse_dimacs("p cnf 3 1\n1 2 3 0\n");
  EXPECT_FALSE(f.has_projection);
  EXPECT_EQ(f.projected(), (std::vector<Var>{1, 2, 3}));
}

TEST(Dimacs, NormalisesDuplicatesAndTautologies) {
  DimacsNotes notes;
  const Cnf f = parse_dimacs("p cnf 3 3\n1 1 -2 0\n2 -2 3 0\n0\n", "f.cnf", &notes);
  ASSERT_EQ(f.n_clauses(), 2u);  // the tautology is dropped, the empty clause kept
  EXPECT_EQ(clause_of(f, 0), (std::vector<Var>{1, -2}));
  EXPECT_TRUE(clause_of(f, 1).empty());
  EXPECT_EQ(notes.duplicate_literals, 1u);
  EXPECT_EQ(notes.tautologies, 1u);
}

TEST(Dimacs, ReadsXorLines) {
  const Cnf f = parse_dimacs("p cnf 3 2\n1 2 0\nx1 -2 3 0\n");
  ASSERT_EQ(f.xors.size(), 1u);
  EXPECT_EQ(f.xors[0].vars, (std::vector<Var>{1, 2, 3}));
  EXPECT_FALSE(f.xors[0].rhs);                             // one negated literal flips the parity
  const Cnf g = parse_dimacs("p cnf 3 1\nx 1 2 2 3 0\n");  // x2 ^ x2 cancels
  EXPECT_EQ(g.xors[0].vars, (std::vector<Var>{1, 3}));
  EXPECT_TRUE(g.xors[0].rhs);
  // Everything cancels: 0 = 1 is kept (unsatisfiable); 0 = 0 holds everywhere and is dropped.
  // It was written back as "x0", which reads 0 = 1 (found by mutating DIMACS files).
  const Cnf unsat = parse_dimacs("p cnf 2 1\nx1 2 1 2 0\n");
  ASSERT_EQ(unsat.xors.size(), 1u);
  EXPECT_TRUE(unsat.xors[0].vars.empty() && unsat.xors[0].rhs);
  const Cnf always = parse_dimacs("p cnf 2 2\n1 0\nx1 2 1 -2 0\n");
  EXPECT_TRUE(always.xors.empty());
  Cnf programmatic;
  programmatic.n_vars = 1;
  programmatic.xors.push_back({{}, false});
  EXPECT_EQ(assay::count::write_dimacs(programmatic), "p cnf 1 0\n");
}

TEST(Dimacs, WriteThenReadRoundTrips) {
  Cnf f;
  const Var a = f.new_var(), b = f.new_var(), c = f.new_var();
  f.add_clause({a, -b});
  f.add_clause({c});
  f.xors.push_back({{a, c}, false});
  f.set_projection({b, a});
  f.comments.push_back("made by a test");
  const std::string text = assay::count::write_dimacs(f);
  EXPECT_NE(text.find("c made by a test\np cnf 3 3\n1 -2 0\n3 0\nx-1 3 0\n"), std::string::npos);
  EXPECT_NE(text.find("c p show 1 2 0\nc ind 1 2 0\n"), std::string::npos);
  const Cnf g = parse_dimacs(text);
  EXPECT_EQ(g.literals, f.literals);
  EXPECT_EQ(g.projection, f.projection);
  ASSERT_EQ(g.xors.size(), 1u);
  EXPECT_EQ(g.xors[0].vars, f.xors[0].vars);
  EXPECT_EQ(g.xors[0].rhs, false);
}

TEST(Dimacs, GzipFilesAreWrittenAndRead) {
  const auto dir = std::filesystem::temp_directory_path() / "assay_test_cnf";
  std::filesystem::create_directories(dir);
  Cnf f;
  f.n_vars = 2;
  f.add_clause({1, 2});
  f.set_projection({1});
  const std::string path = (dir / "f.cnf.gz").string();
  assay::count::write_dimacs_file(f, path);
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {0, 0};
  in.read(magic, 2);
  EXPECT_EQ(static_cast<unsigned char>(magic[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(magic[1]), 0x8b);
  const Cnf g = assay::count::read_dimacs_file(path);
  EXPECT_EQ(g.literals, f.literals);
  EXPECT_EQ(g.projection, f.projection);
  std::filesystem::remove_all(dir);
}

TEST(Dimacs, ProjectionSideFile) {
  EXPECT_EQ(assay::count::parse_projection("3, 1,2\n", 5, "p.txt"), (std::vector<Var>{1, 2, 3}));
  EXPECT_EQ(assay::count::parse_projection("4 5 0\n", 5, "p.txt"), (std::vector<Var>{4, 5}));
  auto err = [](const std::string& text) {
    try {
      assay::count::parse_projection(text, 5, "p.txt");
    } catch (const assay::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(err("1,6"), "p.txt:1:3: projected variable 6 out of range [1, 5]");
  EXPECT_EQ(err("1,\n2, 1"), "p.txt:2:4: projected variable 1 is listed twice");
  EXPECT_EQ(err("1,a"), "p.txt:1:3: expected a variable (an integer), found \"a\"");
  EXPECT_EQ(err(" "), "p.txt: the projection file lists no variable");
}

TEST(Dimacs, ExpandXorsKeepsTheCount) {
  Cnf f;
  f.n_vars = 3;
  f.xors.push_back({{1, 2, 3}, true});
  assay::count::expand_xors(f);
  EXPECT_TRUE(f.xors.empty());
  EXPECT_EQ(f.projection, (std::vector<Var>{1, 2, 3}));
  // Brute force: exactly the 4 odd-parity assignments of x1..x3 extend to a model.
  int models = 0;
  for (int bits = 0; bits < 8; ++bits) {
    bool extends = false;
    const int aux = f.n_vars - 3;
    for (int a = 0; a < (1 << aux) && !extends; ++a) {
      auto value = [&](Var v) {
        return v <= 3 ? ((bits >> (v - 1)) & 1) != 0 : ((a >> (v - 4)) & 1) != 0;
      };
      bool all = true;
      for (std::size_t i = 0; i < f.n_clauses() && all; ++i) {
        bool sat = false;
        for (Var lit : f.clause(i)) sat = sat || (lit > 0 ? value(lit) : !value(-lit));
        all = sat;
      }
      extends = all;
    }
    models += extends;
  }
  EXPECT_EQ(models, 4);
}

TEST(Dimacs, MalformedFilesSayWhere) {
  EXPECT_EQ(error_of(""), "f.cnf: empty file: expected a \"p cnf <variables> <clauses>\" header");
  EXPECT_EQ(error_of("1 2 0\n"),
            "f.cnf:1:1: expected a \"p cnf <variables> <clauses>\" header, found \"1\"");
  EXPECT_EQ(error_of("p cnf 3\n"),
            "f.cnf:1:1: expected \"p cnf <variables> <clauses>\", found \"p cnf 3\"");
  EXPECT_EQ(error_of("p dnf 3 1\n"),
            "f.cnf:1:1: expected \"p cnf <variables> <clauses>\", found \"p dnf 3 1\"");
  EXPECT_EQ(error_of("p cnf x 1\n"),
            "f.cnf:1:7: expected the number of variables (an integer), found \"x\"");
  EXPECT_EQ(error_of("p cnf 3 1\n1 4 0\n"),
            "f.cnf:2:3: variable 4 out of range [1, 3] (the header declares 3 variables)");
  EXPECT_EQ(error_of("p cnf 3 2\n1 2 0\n"), "f.cnf:1:1: the header declares 2 clauses, found 1");
  EXPECT_EQ(error_of("p cnf 3 1\n1 2\n"),
            "f.cnf:2:3: expected 0 at the end of the clause, found end of file");
  EXPECT_EQ(error_of("p cnf 3 1\n1 2.5 0\n"),
            "f.cnf:2:3: expected a literal (an integer), found \"2.5\"");
  EXPECT_EQ(error_of("p cnf 3 1\n1 0\nc ind 1 4 0\n"),
            "f.cnf:3:9: projected variable 4 out of range [1, 3]");
  EXPECT_EQ(error_of("p cnf 3 1\n1 0\nc ind 1 2 0\nc ind 3 2 0\n"),
            "f.cnf:4:9: projected variable 2 is listed twice in \"c ind\" lines");
  EXPECT_EQ(parse_dimacs("p cnf 3 1\n1 0\nc ind 1 2 0\nc p show 2 3 0\n").projection,
            (std::vector<Var>{1, 2, 3}));  // both kinds: the union
  EXPECT_EQ(error_of("p cnf 3 1\n1 0\nc ind 1 2\n"),
            "f.cnf:3:9: expected 0 to end the \"c ind\" projection list, found end of file");
  EXPECT_EQ(error_of("p cnf 3 1\np cnf 3 1\n"), "f.cnf:2:1: a second \"p\" header");
  EXPECT_EQ(error_of("p cnf 3 1\nx1 2\n"),
            "f.cnf:2:4: expected 0 at the end of the XOR line, found end of line");
  // A huge variable count is refused before per-variable tables are sized by it.
  EXPECT_EQ(error_of("p cnf 2147483646 1\n1 0\n"),
            "f.cnf:1:7: the number of variables must lie in [0, 10000000], found 2147483646");
}

// ApproxMC, GANAK and CryptoMiniSat read projection lines wherever they stand among the
// comments; CBMC-made files (QuantifyML's formulas) carry theirs in front of the header.
TEST(Dimacs, ProjectionLinesMayStandBeforeTheHeader) {
  const Cnf f = parse_dimacs("c ind 3 1 0\nc p show 2 0\np cnf 3 1\n1 2 0\n", "f.cnf");
  EXPECT_TRUE(f.has_projection);
  EXPECT_EQ(f.projection, (std::vector<Var>{1, 2, 3}));
  // Checked against the header once it comes, at the variable's own place.
  EXPECT_EQ(
      error_of("c ind 1 4 0\np cnf 3 1\n1 0\n"),
      "f.cnf:1:9: projected variable 4 out of range [1, 3] (the header declares 3 variables)");
  EXPECT_EQ(error_of("c ind 20000000 0\np cnf 3 1\n1 0\n"),
            "f.cnf:1:7: projected variable 20000000 out of range [1, 10000000] (a CNF has at most "
            "10000000 variables)");
  EXPECT_EQ(error_of("c ind 1 2 0\nc ind 2 0\np cnf 3 1\n1 0\n"),
            "f.cnf:2:7: projected variable 2 is listed twice in \"c ind\" lines");
}

// Modelled on what `cbmc --dimacs` writes and QuantifyML published: comment lines naming each
// program variable by its literals (constants as TRUE/FALSE), the projection on "c ind" lines
// in front of the header, split over several lines (each ending in 0, or continued without one).
TEST(Dimacs, ReadsACbmcStyleFile) {
  const std::string text =
      "c QuantifyML: tree_tp.c, inputs x[0..3], projection on the inputs\r\n"
      "c ind 1 2 0\r\n"
      "c ind 3\r\n"
      "c ind 4 0\r\n"
      "p  cnf\t7   5 \r\n"
      "-5 1 0\r\n-5 2 0\r\n5 -1 -2 0\r\n"  // 5 <=> x0 and x1
      "6 -5 3 0\r\n"                       // 6 <= 5 or x2 (half of an or)
      "6 0\r\n"
      "c main::1::x!0@1#2 1 2 3 4\r\n"
      "c main::1::tmp!0@1#3 5 6 FALSE TRUE\r\n"
      "c __CPROVER_rounding_mode!0#1 FALSE FALSE 7";  // no final newline
  const Cnf f = parse_dimacs(text, "tree_tp.cnf");
  EXPECT_EQ(f.n_vars, 7);
  EXPECT_EQ(f.n_clauses(), 5u);
  EXPECT_EQ(f.projection, (std::vector<Var>{1, 2, 3, 4}));
  EXPECT_EQ(clause_of(f, 3), (std::vector<Var>{6, -5, 3}));
}

// Accepted: what counters and their users write for the same problem. SATLIB's "%" and "0"
// lines, Windows line ends, blanks of any kind in the header, MCC 2021's "c t" lines, MCC
// 2020's "p pcnf" with "vp" lines, CryptoMiniSat's XOR lines.
TEST(Dimacs, ToleratesWhatToolsWrite) {
  EXPECT_EQ(parse_dimacs("p cnf 2 1\n1 2 0\n%\n0\n\n").n_clauses(), 1u);
  EXPECT_EQ(parse_dimacs("p cnf 2 1\r\n1 -2 0\r\n").literals, (std::vector<Var>{1, -2}));
  EXPECT_EQ(parse_dimacs("\tp\tcnf  2\t1\n1 2 0").n_clauses(), 1u);
  EXPECT_FALSE(parse_dimacs("c t mc\np cnf 2 1\n1 2 0\n").has_projection);
  EXPECT_EQ(parse_dimacs("c t pmc\np cnf 3 1\n1 2 0\nc p show 1 3 0\n").projection,
            (std::vector<Var>{1, 3}));
  const Cnf mcc2020 = parse_dimacs("p pcnf 3 1 2\nvp 3 1 0\n1 2 0\n", "f.pcnf");
  EXPECT_EQ(mcc2020.projection, (std::vector<Var>{1, 3}));
  EXPECT_EQ(parse_dimacs("p cnf 3 2\n1 0\nx1 2 3 0\n").xors.size(), 1u);
  // A "c t" followed by another word is an ordinary comment (CBMC names a variable t).
  EXPECT_EQ(parse_dimacs("c t 1 2 3\np cnf 3 1\n1 0\n").n_clauses(), 1u);
}

TEST(Dimacs, DeclaredProblemTypesMustMatchTheFile) {
  EXPECT_EQ(error_of("c t mc\np cnf 2 1\n1 2 0\nc p show 1 0\n"),
            "f.cnf:4:1: a projection line in a file whose \"c t mc\" line (1:1) declares a count "
            "of every variable; \"c t pmc\" declares a projected count");
  EXPECT_EQ(error_of("c t pmc\np cnf 2 1\n1 2 0\n"),
            "f.cnf:1:1: \"c t pmc\" declares a projected count, but the file has no projection "
            "line (\"c p show <variables> 0\")");
  EXPECT_EQ(error_of("p pcnf 3 1 2\nvp 1 0\n1 0\n"),
            "f.cnf:1:1: the header declares 2 projected variables, the \"vp\" lines list 1");
}

// Weighted model counting is a different problem: each format's weights are refused where they
// stand, never dropped (counting the models unweighted would be a silent wrong answer).
TEST(Dimacs, WeightsAreRefusedWhereTheyStand) {
  const std::string advice =
      " is not supported: assay counts models, each of weight 1; remove the weights to count the "
      "models";
  EXPECT_EQ(error_of("p cnf 2 1\n1 2 0\nc p weight 1 0.3 0\n"),
            "f.cnf:3:1: weighted model counting (\"c p weight\" lines)" + advice);
  EXPECT_EQ(error_of("c t wmc\np cnf 2 1\n1 2 0\n"),
            "f.cnf:1:5: weighted model counting (\"c t wmc\")" + advice);
  EXPECT_EQ(error_of("c t pwmc\np cnf 2 1\n1 2 0\n"),
            "f.cnf:1:5: weighted model counting (\"c t pwmc\")" + advice);
  EXPECT_EQ(error_of("p cnf 2 1\nw 1 0.3\n1 2 0\n"),
            "f.cnf:2:1: weighted model counting (Cachet's \"w\" weight lines)" + advice);
  EXPECT_EQ(error_of("c weights 0.5 0.5 0.3 0.7\np cnf 2 1\n1 2 0\n"),
            "f.cnf:1:1: weighted model counting (miniC2D's \"c weights\" line)" + advice);
  EXPECT_EQ(error_of("p wcnf 2 1 10\n10 1 2 0\n"),
            "f.cnf:1:1: expected \"p cnf <variables> <clauses>\", found \"p wcnf 2 1 10\": a "
            "weighted formula (weighted MaxSAT, or weighted model counting) is a different "
            "problem; assay counts the models of an unweighted CNF");
  EXPECT_EQ(error_of("p cnf 2 2\ne 1 0\na 2 0\n1 2 0\n"),
            "f.cnf:2:1: a quantifier line (QDIMACS \"e\"): quantified formulas are a different "
            "problem; assay counts the models of a plain CNF");
}

// A clause may repeat a literal (it is dropped at once), so no clause holds more than n_vars
// literals; a clause that repeats without end (a gzip bomb of "1 1 1 ...") is refused early.
TEST(Dimacs, RepeatedLiteralsCostNoMemory) {
  std::string text = "p cnf 2 1\n";
  for (int i = 0; i < 1000; ++i) text += "1 -2 ";
  DimacsNotes notes;
  const Cnf f = parse_dimacs(text + "0\n", "f.cnf", &notes);
  EXPECT_EQ(f.literals, (std::vector<Var>{1, -2}));
  EXPECT_EQ(notes.duplicate_literals, 1998u);
  std::string storm = "p cnf 1 1\n";
  storm.reserve(2 * (1u << 20) + 64);
  for (std::uint32_t i = 0; i < (1u << 20) + 8; ++i) storm += "1 ";
  EXPECT_EQ(error_of(storm + "0\n"),
            "f.cnf:2:1: the clause begun here has more than 1048580 literals over 1 variables: it "
            "repeats literals without end (a damaged file?)");
  // Tokens longer than a number are quoted cut, whatever their length.
  EXPECT_EQ(error_of("p cnf 1 1\n" + std::string(100000, '7') + " 0\n"),
            "f.cnf:2:1: expected a literal (an integer), found "
            "\"7777777777777777777777777777777777777777...\"");
}

TEST(Dimacs, FilesThatCannotBeRead) {
  try {
    assay::count::read_dimacs_file("/nonexistent/f.cnf");
    FAIL();
  } catch (const assay::Error& e) {
    EXPECT_STREQ(e.what(), "cannot open /nonexistent/f.cnf: No such file or directory");
  }
  try {
    assay::count::read_dimacs_file("/tmp");
    FAIL();
  } catch (const assay::Error& e) {
    EXPECT_STREQ(e.what(), "/tmp: is a folder, expected a file");
  }
}

}  // namespace

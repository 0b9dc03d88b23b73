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
            "f.cnf:4:9: projected variable 2 is listed twice");
  EXPECT_EQ(parse_dimacs("p cnf 3 1\n1 0\nc ind 1 2 0\nc p show 2 3 0\n").projection,
            (std::vector<Var>{1, 2, 3}));  // both kinds: the union
  EXPECT_EQ(error_of("p cnf 3 1\n1 0\nc ind 1 2\n"),
            "f.cnf:3:9: expected 0 at the end of the projection line, found end of line");
  EXPECT_EQ(error_of("p cnf 3 1\np cnf 3 1\n"), "f.cnf:2:1: a second \"p\" header");
  EXPECT_EQ(error_of("p cnf 3 1\nx1 2\n"),
            "f.cnf:2:4: expected 0 at the end of the XOR line, found end of line");
  // A huge variable count is refused before per-variable tables are sized by it.
  EXPECT_EQ(error_of("p cnf 2147483646 1\n1 0\n"),
            "f.cnf:1:7: the number of variables must lie in [0, 10000000], found 2147483646");
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

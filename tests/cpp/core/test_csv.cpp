// core/csv: reading CSV text and files into tables (types, quoting, line endings, comments,
// missing cells, errors with file:line:col) and writing tables back as CSV.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <thread>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/table.hpp"
#include "assay/core/warning.hpp"
#include "test_util.hpp"

namespace assay {
namespace {

namespace fs = std::filesystem;

void expect_same(const Table& a, const Table& b) {
  ASSERT_EQ(a.names(), b.names());
  for (std::size_t c = 0; c < a.n_columns(); ++c) {
    const Column& x = a.columns()[c];
    const Column& y = b.columns()[c];
    ASSERT_EQ(x.kind, y.kind) << x.name;
    ASSERT_EQ(x.values.size(), y.values.size()) << x.name;
    for (std::size_t i = 0; i < x.values.size(); ++i) {
      // Bit-identical, NaN included.
      ASSERT_EQ(std::memcmp(&x.values[i], &y.values[i], sizeof(double)), 0)
          << x.name << " row " << i;
    }
    ASSERT_EQ(x.codes, y.codes) << x.name;
    ASSERT_EQ(x.categories, y.categories) << x.name;
  }
}

/// Parses with one thread, then with two threads and tiny chunks; the tables must be identical.
Table parse_all_ways(std::string_view text, CsvParams params = {}) {
  params.threads = 1;
  Table one = parse_csv(text, "data.csv", params);
  for (std::size_t chunk : {1, 5, 16, 64}) {
    params.threads = 2;
    params.chunk_bytes = chunk;
    expect_same(one, parse_csv(text, "data.csv", params));
  }
  return one;
}

/// The error message of parsing `text`, which must be the same in every mode.
std::string error_all_ways(std::string_view text, CsvParams params = {}) {
  std::string first;
  bool have_first = false;
  for (std::size_t chunk :
       {std::size_t{1} << 20, std::size_t{1}, std::size_t{5}, std::size_t{16}}) {
    params.threads = chunk == (std::size_t{1} << 20) ? 1 : 2;
    params.chunk_bytes = chunk;
    std::string message = "(no error)";
    try {
      parse_csv(text, "data.csv", params);
    } catch (const Error& e) {
      message = e.what();
    }
    if (!have_first) {
      first = message;
      have_first = true;
    } else {
      EXPECT_EQ(message, first) << "chunk_bytes " << chunk;
    }
  }
  return first;
}

std::vector<double> nums(const Table& t, const char* name) {
  return t.numeric(name);
}

TEST(Csv, NumericAndCategoricalColumns) {
  const Table t = parse_all_ways("y,score,group\n1,0.5,b\n0,0.25,a\n1,-3e2,b\n");
  EXPECT_EQ(t.names(), (std::vector<std::string>{"y", "score", "group"}));
  EXPECT_EQ(t.n_rows(), 3u);
  EXPECT_EQ(nums(t, "y"), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(nums(t, "score"), (std::vector<double>{0.5, 0.25, -300}));
  const Column& g = t.column("group");
  ASSERT_TRUE(g.is_categorical());
  EXPECT_EQ(g.categories, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(g.codes, (std::vector<std::int32_t>{0, 1, 0}));
  EXPECT_EQ(g.label(1), "a");
  EXPECT_EQ(g.strings(), (std::vector<std::string>{"b", "a", "b"}));
}

TEST(Csv, NumbersAreCorrectlyRounded) {
  std::mt19937_64 gen(7);
  std::string text = "a,b\n";
  std::vector<double> a, b;
  for (int i = 0; i < 3000; ++i) {
    const double x =
        std::ldexp(static_cast<double>(gen() >> 11), -53) * std::pow(10.0, i % 40 - 20);
    const double y = -static_cast<double>(gen() % 100000) / 7.0;
    a.push_back(x);
    b.push_back(y);
    text += fmt::format("{},{:.17g}\n", x, y);  // shortest round-trip and 17 digits
  }
  const Table t = parse_all_ways(text);
  EXPECT_EQ(nums(t, "a"), a);
  EXPECT_EQ(nums(t, "b"), b);
}

TEST(Csv, SpecialNumbersSignsAndSpaces) {
  const Table t =
      parse_all_ways("x\n+1.5\n 2 \n\t-0\nnan\n-inf\nInfinity\n1e400\n-1e400\n1e-400\n.5\n");
  const auto& v = t.numeric("x");
  ASSERT_EQ(v.size(), 10u);
  EXPECT_EQ(v[0], 1.5);
  EXPECT_EQ(v[1], 2.0);
  EXPECT_TRUE(v[2] == 0.0 && std::signbit(v[2]));
  EXPECT_TRUE(std::isnan(v[3]));
  EXPECT_EQ(v[4], -INFINITY);
  EXPECT_EQ(v[5], INFINITY);
  EXPECT_EQ(v[6], INFINITY);
  EXPECT_EQ(v[7], -INFINITY);
  EXPECT_EQ(v[8], 0.0);
  EXPECT_EQ(v[9], 0.5);
  // Not numbers: the column becomes categorical, cells kept whole.
  for (const char* cell : {"+-1", "++1", "1.5.2", "0x10", "1,5", "1 2", "NA", "+"}) {
    const std::string text = fmt::format("x\n1\n\"{}\"\n", cell);
    const Table u = parse_all_ways(text);
    EXPECT_TRUE(u.column("x").is_categorical()) << cell;
    EXPECT_EQ(u.column("x").categories, (std::vector<std::string>{"1", cell}));
  }
}

TEST(Csv, TextIsKeptWhole) {
  const Table t = parse_all_ways("name,v\n new york ,1\nx y,2\n\ta\t,3\n");
  EXPECT_EQ(t.column("name").strings(), (std::vector<std::string>{" new york ", "x y", "\ta\t"}));
}

TEST(Csv, QuotedFields) {
  const Table t = parse_all_ways(
      "\"a,b\",\"q\"\n"
      "\"x, y\",\"1.5\"\n"
      "\"say \"\"hi\"\"\",\" 2\"\n"
      "\"two\nlines\",3\n"
      "plain,\"\"\"4\"\"\"\n",
      [] {
        CsvParams p;
        p.categorical = {"q"};
        return p;
      }());
  EXPECT_EQ(t.names(), (std::vector<std::string>{"a,b", "q"}));
  EXPECT_EQ(t.column("a,b").strings(),
            (std::vector<std::string>{"x, y", "say \"hi\"", "two\nlines", "plain"}));
  EXPECT_EQ(t.column("q").strings(), (std::vector<std::string>{"1.5", " 2", "3", "\"4\""}));
  // A quoted number is a number; a quote inside an unquoted field is a character.
  const Table u = parse_all_ways("a,b\n\"1.5\",x\"y\n\"\",z\n", [] {
    CsvParams p;
    p.allow_missing = true;
    return p;
  }());
  EXPECT_EQ(u.numeric("a")[0], 1.5);
  EXPECT_TRUE(std::isnan(u.numeric("a")[1]));
  EXPECT_EQ(u.column("b").strings(), (std::vector<std::string>{"x\"y", "z"}));
}

TEST(Csv, LineEndingsBomAndBlankLines) {
  const std::vector<double> one{1, 3}, two{2, 4};
  for (const char* text :
       {"a,b\n1,2\n3,4\n", "a,b\r\n1,2\r\n3,4\r\n", "a,b\n1,2\n3,4", "a,b\r\n1,2\r\n3,4",
        "\xEF\xBB\xBF"
        "a,b\n1,2\n3,4\n",
        "\na,b\n\n1,2\r\n\r\n\n3,4\n\n", "a,b\n1 ,2\r\n3,4 \r\n"}) {
    const Table t = parse_all_ways(text);
    EXPECT_EQ(t.names(), (std::vector<std::string>{"a", "b"})) << text;
    EXPECT_EQ(nums(t, "a"), one) << text;
    EXPECT_EQ(nums(t, "b"), two) << text;
  }
  // Text cells keep a CR only when it is not part of a CRLF.
  const Table t = parse_all_ways("s\r\nab\r\n\"q\"\r\n");
  EXPECT_EQ(t.column("s").strings(), (std::vector<std::string>{"ab", "q"}));
}

TEST(Csv, HeaderOnlyGivesZeroRows) {
  for (const char* text : {"a,b,c", "a,b,c\n", "a,b,c\r\n\r\n"}) {
    const Table t = parse_all_ways(text);
    EXPECT_EQ(t.n_columns(), 3u);
    EXPECT_EQ(t.n_rows(), 0u);
    EXPECT_TRUE(t.column("c").is_numeric());
  }
}

TEST(Csv, ForcedTypes) {
  CsvParams p;
  p.categorical = {"label"};
  p.numeric = {"w"};
  const Table t = parse_all_ways("label,w\n2,1\n1,2\n2.0,3\n", p);
  EXPECT_EQ(t.column("label").categories, (std::vector<std::string>{"2", "1", "2.0"}));
  EXPECT_EQ(t.column("label").codes, (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(nums(t, "w"), (std::vector<double>{1, 2, 3}));
}

TEST(Csv, MissingCells) {
  CsvParams p;
  p.allow_missing = true;
  const Table t = parse_all_ways("a,b,c\n1,,x\n,2,\n3,4,y\n", p);
  EXPECT_EQ(t.numeric("a")[0], 1);
  EXPECT_TRUE(std::isnan(t.numeric("a")[1]));
  EXPECT_TRUE(std::isnan(t.numeric("b")[0]));
  EXPECT_EQ(t.column("c").strings(), (std::vector<std::string>{"x", "", "y"}));
  // Without allow_missing, an empty cell in a text column is missing too (issue 14); a blank
  // one is text.
  EXPECT_EQ(error_all_ways("a,c\n1,x\n2,\n3, \n"),
            "data.csv:3:3: expected a value in text column \"c\", found an empty cell");
  const Table u = parse_all_ways("a,c\n1,x\n2,\"\"\n3, \n");
  EXPECT_EQ(u.column("c").strings(), (std::vector<std::string>{"x", "", " "}));
}

TEST(Csv, Comments) {
  CsvParams p;
  p.comments = true;
  const Table t = parse_all_ways("# made by hand\na,b\n1,2\n# note\n3,4\n#\n", p);
  EXPECT_EQ(nums(t, "a"), (std::vector<double>{1, 3}));
  // Off by default: '#' is data.
  const Table u = parse_all_ways("a,b\n#1,2\n3,4\n");
  EXPECT_EQ(u.column("a").strings(), (std::vector<std::string>{"#1", "3"}));
}

TEST(Csv, OtherDelimitersAndOneColumn) {
  CsvParams p;
  p.delimiter = ';';
  const Table t = parse_all_ways("a;b\n1,5;x\n2;y\n", p);
  EXPECT_EQ(t.column("a").strings(), (std::vector<std::string>{"1,5", "2"}));
  p.delimiter = '\t';
  const Table u = parse_all_ways("a\tb\n1\t x \n2\ty\n", p);
  EXPECT_EQ(nums(u, "a"), (std::vector<double>{1, 2}));
  EXPECT_EQ(u.column("b").strings(), (std::vector<std::string>{" x ", "y"}));
  const Table v = parse_all_ways("only\n1\n2\n3");
  EXPECT_EQ(nums(v, "only"), (std::vector<double>{1, 2, 3}));
}

TEST(Csv, ManyChunksKeepRowOrder) {
  for (bool quoted : {false, true}) {
    std::string text = "i,s,c\n";
    for (int i = 0; i < 5000; ++i) {
      const std::string c = i % 997 == 0 ? (quoted ? "\"q\"" : "q") : fmt::format("k{}", i % 3);
      text += fmt::format("{},{},{}\n", i, i * 0.5, c);
      if (i % 101 == 0) text += "\n";
    }
    CsvParams p;
    p.chunk_bytes = 100;
    p.threads = 2;
    const Table t = parse_csv(text, "data.csv", p);
    const Table ref = parse_csv(text, "data.csv", {});
    expect_same(t, ref);
    ASSERT_EQ(t.n_rows(), 5000u);
    for (int i = 0; i < 5000; ++i) {
      ASSERT_EQ(t.numeric("i")[i], i);
      ASSERT_EQ(t.numeric("s")[i], i * 0.5);
    }
    EXPECT_EQ(t.column("c").categories, (std::vector<std::string>{"q", "k1", "k2", "k0"}));
  }
}

TEST(CsvErrors, FileProblems) {
  const fs::path dir = fs::temp_directory_path() / "assay_test_csv";
  fs::create_directories(dir);
  const std::string missing = (dir / "missing.csv").string();
  EXPECT_THROW_MSG(read_csv(missing), Error, missing + ": cannot open: No such file or directory");
  EXPECT_THROW_MSG(read_csv(dir.string()), Error, dir.string() + ": cannot open: Is a directory");
  const std::string empty = (dir / "empty.csv").string();
  std::ofstream(empty).close();
  EXPECT_THROW_MSG(read_csv(empty), Error, empty + ": empty file, expected a header row");
  const std::string good = (dir / "good.csv").string();
  std::ofstream(good) << "y,p\n1,0.5\n0,0.25\n";
  const Table t = read_csv(good);
  EXPECT_EQ(t.numeric("p"), (std::vector<double>{0.5, 0.25}));
  EXPECT_THROW_MSG(t.column("score"), Error, good + ": no column \"score\"; columns are: y, p");
  const std::string bad = (dir / "bad.csv").string();
  std::ofstream(bad) << "y,p\n1,0.5\n0,0.25,7\n";
  EXPECT_THROW_MSG(read_csv(bad), Error, bad + ":3:1: expected 2 fields, found 3");
  fs::remove_all(dir);
}

TEST(CsvErrors, EmptyInput) {
  EXPECT_EQ(error_all_ways(""), "data.csv: empty file, expected a header row");
  EXPECT_EQ(error_all_ways("\xEF\xBB\xBF"), "data.csv: empty file, expected a header row");
  EXPECT_EQ(error_all_ways("\n\r\n\n"), "data.csv: empty file, expected a header row");
  CsvParams p;
  p.comments = true;
  EXPECT_EQ(error_all_ways("# only a comment\n", p), "data.csv: empty file, expected a header row");
}

TEST(CsvErrors, FieldCounts) {
  EXPECT_EQ(error_all_ways("a,b,c\n1,2,3\n4,5,6\n7,8,9\n1,2,3,4\n"),
            "data.csv:5:1: expected 3 fields, found 4");
  EXPECT_EQ(error_all_ways("a,b,c\n1,2,3\n4,5\n"), "data.csv:3:1: expected 3 fields, found 2");
  EXPECT_EQ(error_all_ways("a,b,c\n1,2,3\n4\n"), "data.csv:3:1: expected 3 fields, found 1");
  EXPECT_EQ(error_all_ways("a,b,c\n1,2,3\n4,5,6,7,8"), "data.csv:3:1: expected 3 fields, found 5");
  EXPECT_EQ(error_all_ways("a,b,c\n1,2,3\n4,5,6,\n"), "data.csv:3:1: expected 3 fields, found 4");
  EXPECT_EQ(error_all_ways("a\n1\n2,3\n"), "data.csv:3:1: expected 1 field, found 2");
  EXPECT_EQ(error_all_ways("a,b\r\n1,2\r\n3\r\n"), "data.csv:3:1: expected 2 fields, found 1");
  // With quotes (one-thread path): a newline inside quotes is not a record end.
  EXPECT_EQ(error_all_ways("a,b\n\"x\ny\",2\n\"z\",3,\"4,5\"\n"),
            "data.csv:4:1: expected 2 fields, found 3");
  EXPECT_EQ(error_all_ways("a,b\n\"x\ny\",2\n\"z\"\n"), "data.csv:4:1: expected 2 fields, found 1");
  // The first problem in the file wins, in every chunking.
  std::string text = "a,b\n";
  for (int i = 0; i < 200; ++i) text += "1,2\n";
  text += "1,2,3\n";
  for (int i = 0; i < 200; ++i) text += "1\n";
  EXPECT_EQ(error_all_ways(text), "data.csv:202:1: expected 2 fields, found 3");
}

TEST(CsvErrors, NotANumberInNumericColumn) {
  CsvParams p;
  p.numeric = {"score"};
  std::string text = "label,score\n";
  for (int i = 0; i < 10; ++i) text += "a,0.5\n";
  text += "b,   abc\n";  // line 12, the cell starts at column 3
  text += "c,xyz\n";
  EXPECT_EQ(error_all_ways(text, p), "data.csv:12:3: expected a number, found \"   abc\"");
  EXPECT_EQ(error_all_ways("y,p1,p2\n1,0.5,0.5\n0,0.5,\"ab\"\"c\"\n",
                           [] {
                             CsvParams q;
                             q.numeric = {"p2"};
                             return q;
                           }()),
            "data.csv:3:7: expected a number, found \"ab\\\"c\"");
  // The brief's example.
  std::string brief = "x,y,z\n";
  for (int i = 0; i < 10; ++i) brief += "1,2,3\n";
  brief += "10,20,abc\n";
  EXPECT_EQ(error_all_ways(brief,
                           [] {
                             CsvParams q;
                             q.numeric = {"z"};
                             return q;
                           }()),
            "data.csv:12:7: expected a number, found \"abc\"");
}

TEST(CsvErrors, EmptyCells) {
  EXPECT_EQ(error_all_ways("a,b\n1,2\n3,\n"),
            "data.csv:3:3: expected a number, found an empty cell");
  EXPECT_EQ(error_all_ways("a,b\n1,2\n, 4\n"),
            "data.csv:3:1: expected a number, found an empty cell");
  EXPECT_EQ(error_all_ways("a,b\n1,2\n3,\"\"\n"),
            "data.csv:3:3: expected a number, found an empty cell");
  EXPECT_EQ(error_all_ways("a,b\n1,2\n3,  \r\n"),
            "data.csv:3:3: expected a number, found an empty cell");
  // A forced numeric column fails at once; an automatic one only if it stays numeric, and a
  // structural problem later in the file is reported first.
  CsvParams p;
  p.numeric = {"b"};
  EXPECT_EQ(error_all_ways("a,b\n1,2\n3,\n4,5,6\n", p),
            "data.csv:3:3: expected a number, found an empty cell");
  EXPECT_EQ(error_all_ways("a,b\n1,2\n3,\n4,5,6\n"), "data.csv:4:1: expected 2 fields, found 3");
  // The earliest empty cell over all numeric columns.
  EXPECT_EQ(error_all_ways("a,b\n1,2\n3,\n,5\n"),
            "data.csv:3:3: expected a number, found an empty cell");
  EXPECT_EQ(error_all_ways("a,b\n1,2\n3,4\n,\n"),
            "data.csv:4:1: expected a number, found an empty cell (the row holds only separators, "
            "as spreadsheets write for rows that are formatted but empty; delete such rows)");
}

TEST(CsvErrors, Quotes) {
  EXPECT_EQ(
      error_all_ways("a,b\n1,2\n3,\"abc\n4,5\n"),
      "data.csv:3:3: unterminated quoted field (no closing quote before the end of the file)");
  EXPECT_EQ(error_all_ways("a,b\n1,2\n3,\"ab\"c\n"),
            "data.csv:3:7: expected a delimiter or the end of the line after a closing quote, "
            "found \"c\"");
  EXPECT_EQ(
      error_all_ways("\"a,b\n1,2\n"),
      "data.csv:1:1: unterminated quoted field (no closing quote before the end of the file)");
}

TEST(CsvErrors, HeaderAndParams) {
  EXPECT_EQ(error_all_ways("a,b,a\n1,2,3\n"),
            "data.csv:1:5: duplicate column name \"a\" (columns 1 and 3)");
  CsvParams p;
  p.categorical = {"score"};
  EXPECT_EQ(error_all_ways("y,p1,p2\n1,2,3\n", p),
            "data.csv: no column \"score\"; columns are: y, p1, p2");
  p.categorical = {"y"};
  p.numeric = {"y"};
  EXPECT_EQ(error_all_ways("y,p1,p2\n1,2,3\n", p),
            "column \"y\" is named both categorical and numeric");
  CsvParams q;
  q.delimiter = '.';
  EXPECT_EQ(error_all_ways("a.b\n", q),
            "delimiter \".\" is not allowed (it could be part of a number or a quote)");
  q.delimiter = '"';
  EXPECT_EQ(error_all_ways("a\"b\n", q),
            "delimiter \"\\\"\" is not allowed (it could be part of a number or a quote)");
}

TEST(Csv, WriteRoundTrip) {
  Table t("in.csv");
  t.add_column(Column::numeric("x", {0.1, -2.5e300, std::nan(""), HUGE_VAL, -HUGE_VAL, 3}));
  t.add_column(Column::categorical("s", {"Not tree", "a,b", "say \"hi\"", "", "line\nbreak", "1"}));
  const std::string text = format_csv(t);
  EXPECT_EQ(text.substr(0, text.find('\n', text.find('\n') + 1)), "x,s\n0.1,Not tree");
  EXPECT_NE(text.find("NaN,\"say \"\"hi\"\"\""), std::string::npos);
  EXPECT_NE(text.find("Inf,\"\"\n"), std::string::npos);  // "" quoted: empty = missing
  EXPECT_NE(text.find("-Inf,\"line\nbreak\""), std::string::npos);
  CsvParams params;
  params.categorical = {"s"};
  const Table back = parse_csv(text, "out.csv", params);
  const auto& x = back.numeric("x");
  ASSERT_EQ(x.size(), 6u);
  EXPECT_EQ(x[0], 0.1);
  EXPECT_EQ(x[1], -2.5e300);
  EXPECT_TRUE(std::isnan(x[2]));
  EXPECT_EQ(x[3], HUGE_VAL);
  EXPECT_EQ(x[4], -HUGE_VAL);
  EXPECT_EQ(back.column("s").strings(), t.column("s").strings());
  EXPECT_THROW_MSG(write_csv(t, "/nonexistent-dir/x.csv"), Error,
                   "cannot write /nonexistent-dir/x.csv: No such file or directory");
}

// Issue 14: hostile inputs to the reader.

TEST(Csv, BytesThatAreNotUtf8AreRefusedBeforeAnythingElse) {
  // What Excel's "CSV (Comma delimited)" writes (Windows-1252) is named with how to convert it.
  const std::string hint =
      " (Latin-1 or Windows-1252 text, as Excel's \"CSV (Comma delimited)\" writes? save it as "
      "\"CSV UTF-8\" or convert it with iconv -f WINDOWS-1252 -t UTF-8)";
  // Latin-1 "café": refused where the byte is, before a later problem (the ragged last row).
  EXPECT_EQ(error_all_ways("y,t\n0,caf\xE9\n1,b,extra\n"),
            "data.csv:2:6: expected UTF-8 text, found byte 0xE9" + hint);
  EXPECT_EQ(error_all_ways("y,t\xFF\n0,a\n"),
            "data.csv:1:4: expected UTF-8 text, found byte 0xFF" + hint);
  // Overlong "/" (C0 AF), a surrogate (ED A0 80), a truncated sequence at the end.
  EXPECT_EQ(error_all_ways("y\n\xC0\xAF\n"),
            "data.csv:2:1: expected UTF-8 text, found byte 0xC0" + hint);
  EXPECT_EQ(error_all_ways("y\n\xED\xA0\x80\n"),
            "data.csv:2:1: expected UTF-8 text, found byte 0xED" + hint);
  EXPECT_EQ(error_all_ways("y\nab\xE2\x82"),
            "data.csv:2:3: expected UTF-8 text, found byte 0xE2" + hint);
  // Well-formed UTF-8 of every length is text as it is.
  const Table t = parse_all_ways("y,t\n0,caf\xC3\xA9\n1,\xE2\x82\xAC\n0,\xF0\x9F\x98\x80\n");
  EXPECT_EQ(t.column("t").strings(),
            (std::vector<std::string>{"caf\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80"}));
}

TEST(Csv, FileNameThatIsNotUtf8IsRefused) {
  EXPECT_THROW_MSG(read_csv("/tmp/caf\xE9.csv"), Error,
                   "\"/tmp/caf\\xE9.csv\": expected a UTF-8 file name, found byte 0xE9 at byte 9");
}

TEST(Csv, ThreeHundredThousandColumnsReadInLinearTime) {
  std::string text;
  constexpr int kColumns = 300000;
  for (int c = 0; c < kColumns; ++c) text += (c ? ",c" : "c") + std::to_string(c);
  text += '\n';
  for (int c = 0; c < kColumns; ++c) text += c ? ",1" : "1";
  text += '\n';
  const auto start = std::chrono::steady_clock::now();
  const Table t = parse_csv(text, "wide.csv");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(t.n_columns(), static_cast<std::size_t>(kColumns));
  EXPECT_EQ(t.numeric("c299999"), std::vector<double>{1});
  // Quadratic before (a scan per added column): 80,000 columns took 6.8 s, 300,000 never
  // finished. Now linear (hash-table cache misses dominate): 2.8 s on a loaded 2-core machine.
  EXPECT_LT(seconds, 6.0);
}

TEST(Csv, FifoAndProcFilesAreReadAsStreams) {
  const fs::path dir = fs::temp_directory_path() / ("assay_fifo_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string fifo = (dir / "in.csv").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    std::ofstream out(fifo);
    out << "y,p\n0,0.25\n1,0.75\n";
  });
  const Table t = read_csv(fifo);
  writer.join();
  EXPECT_EQ(t.numeric("p"), (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(t.row_line(1), 3);
  fs::remove_all(dir);
  // /proc files report size 0 ("empty file" before); comm is one line: a header, no rows.
  const Table comm = read_csv("/proc/self/comm");
  EXPECT_EQ(comm.n_columns(), 1u);
  EXPECT_EQ(comm.n_rows(), 0u);
}

TEST(Csv, EmptyCellInTextColumnIsMissing) {
  EXPECT_EQ(error_all_ways("y,t\n0,a\n1,\n"),
            "data.csv:3:3: expected a value in text column \"t\", found an empty cell");
  CsvParams label;
  label.categorical = {"y"};
  EXPECT_EQ(error_all_ways("y,x\n1,0\n,1\n", label),
            "data.csv:3:1: expected a value in text column \"y\", found an empty cell");
  // Quoted "" is the empty string; allow_missing keeps an empty cell as the category "".
  EXPECT_EQ(parse_all_ways("y,t\n0,a\n1,\"\"\n").column("t").strings(),
            (std::vector<std::string>{"a", ""}));
  CsvParams missing;
  missing.allow_missing = true;
  EXPECT_EQ(parse_all_ways("y,t\n0,a\n1,\n", missing).column("t").strings(),
            (std::vector<std::string>{"a", ""}));
}

TEST(Csv, IdsBeyond2To53StayExact) {
  // 2^53 + 1 and 2^53 are the same double: the column is read as text, both ids kept.
  const Table t = parse_all_ways("id,x\n9007199254740993,1\n9007199254740992,2\n");
  const Column& id = t.column("id");
  ASSERT_TRUE(id.is_categorical());
  EXPECT_EQ(id.strings(), (std::vector<std::string>{"9007199254740993", "9007199254740992"}));
  // Integers a double holds exactly stay numbers (2^60, 1e20), as do forced numeric columns.
  const Table exact = parse_all_ways("a,b\n1152921504606846976,100000000000000000000\n");
  EXPECT_EQ(exact.numeric("a"), std::vector<double>{1152921504606846976.0});
  EXPECT_EQ(exact.numeric("b"), std::vector<double>{1e20});
  CsvParams numeric;
  numeric.numeric = {"id"};
  EXPECT_EQ(parse_all_ways("id\n9007199254740993\n", numeric).numeric("id"),
            std::vector<double>{9007199254740992.0});
}

TEST(Csv, LoneCarriageReturnsAreNamedNotEchoed) {
  // Classic Mac line ends: the whole file is one header line; the message names the CR instead
  // of listing column names whose raw CRs garble the terminal.
  EXPECT_EQ(error_all_ways("y,p\r0,0.1\r1,0.9\r"),
            "data.csv:1:4: expected LF or CRLF line ends, found a lone CR (classic Mac line ends; "
            "convert them with tr '\\r' '\\n')");
  Table t("x.csv");
  t.add_column(Column::numeric("a\rb", {1}));
  t.add_column(Column::numeric("c,d", {1}));
  EXPECT_THROW_MSG(t.column("z"), Error, "x.csv: no column \"z\"; columns are: \"a\\rb\", \"c,d\"");
}

TEST(Csv, ByteOrderMarkIsSkipped) {
  const Table t = parse_all_ways("\xEF\xBB\xBFy,p\n0,1\n");
  EXPECT_EQ(t.names(), (std::vector<std::string>{"y", "p"}));
}

TEST(Csv, RowsKnowTheirLinesAndCellsTheirColumns) {
  CsvParams comments;
  comments.comments = true;
  const Table t = parse_all_ways("a,b\n\n1,x\n# c\n2,y\n", comments);
  EXPECT_EQ(t.row_line(0), 3);
  EXPECT_EQ(t.row_line(1), 5);
  const Table q = parse_all_ways("a,b\n1,\"two\nlines\"\n\n3,z\n");
  EXPECT_EQ(q.row_line(0), 2);
  EXPECT_EQ(q.row_line(1), 5);
  // cell_location reads the file again for the byte column.
  const fs::path path = fs::temp_directory_path() / ("assay_cells_" + std::to_string(::getpid()));
  std::ofstream(path) << "\xEF\xBB\xBF"
                         "a,bb,c\n1,22,3\n\n\"4\",\"5,5\",6\n";
  const Table f = read_csv(path.string());
  EXPECT_EQ(cell_location(f, 0, "c").to_string(), path.string() + ":2:6");
  EXPECT_EQ(cell_location(f, 1, "bb").to_string(), path.string() + ":4:5");
  EXPECT_EQ(cell_location(f, 1, "c").to_string(), path.string() + ":4:11");
  fs::remove(path);
  EXPECT_EQ(cell_location(t, 1, "b").to_string(), "data.csv:5");  // no file: the line
}

// Issue 38: files real tools write, and endless streams.

const std::string kNul =
    "expected text, found a NUL byte (0x00): binary data, or UTF-16 text (convert it with iconv -f "
    "UTF-16 -t UTF-8), or an endless device such as /dev/zero";

TEST(Csv, NulBytesAreNeverText) {
  using namespace std::string_literals;
  EXPECT_EQ(error_all_ways("y,p\n1,0\0\n"s), "data.csv:2:4: " + kNul);
  EXPECT_EQ(error_all_ways("y,p\n1,\"a\0\"\n"s), "data.csv:2:5: " + kNul);  // quoted too
  EXPECT_EQ(error_all_ways("\xEF\xBB\xBF\0"s), "data.csv:1:1: " + kNul);    // after a BOM
  // UTF-16 without a byte order mark: the NUL after the first character.
  EXPECT_EQ(error_all_ways("y\0,\0p\0\n\0"s), "data.csv:1:2: " + kNul);
  // /dev/zero is a stream of NULs: refused at its first byte, at once.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW_MSG(read_csv("/dev/zero"), Error, "/dev/zero:1:1: " + kNul);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

TEST(Csv, Utf16IsNamedByItsByteOrderMark) {
  using namespace std::string_literals;
  const std::string message =
      "data.csv:1:1: expected UTF-8 text, found a UTF-16 byte order mark (0x{} 0x{}): the file is "
      "UTF-16 text, as Excel's \"Unicode Text\" writes; save it as \"CSV UTF-8\" or convert it "
      "with iconv -f UTF-16 -t UTF-8";
  EXPECT_EQ(error_all_ways("\xFF\xFEy\0,\0p\0\n\0"s),
            fmt::format(fmt::runtime(message), "FF", "FE"));
  EXPECT_EQ(error_all_ways("\xFE\xFF\0y\0,\0p\0\n"s),
            fmt::format(fmt::runtime(message), "FE", "FF"));
}

/// A FIFO in a fresh folder, fed `chunk` over and over by a thread until the reader goes away.
class EndlessFifo {
 public:
  explicit EndlessFifo(std::string chunk)
      : dir_(fs::temp_directory_path() / ("assay_endless_" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
    path_ = (dir_ / "in.csv").string();
    EXPECT_EQ(::mkfifo(path_.c_str(), 0600), 0);
    ::signal(SIGPIPE, SIG_IGN);  // the writer learns of the closed reader from EPIPE
    writer_ = std::thread([this, chunk] {
      const int fd = ::open(path_.c_str(), O_WRONLY);
      while (fd >= 0 && ::write(fd, chunk.data(), chunk.size()) > 0) {
      }
      if (fd >= 0) ::close(fd);
    });
  }
  ~EndlessFifo() {
    writer_.join();
    fs::remove_all(dir_);
  }
  const std::string& path() const { return path_; }

 private:
  fs::path dir_;
  std::string path_;
  std::thread writer_;
};

TEST(Csv, EndlessStreamsStopAtTheLimit) {
  std::string yes;  // what `yes` writes
  for (int i = 0; i < 4096; ++i) yes += "y\n";
  {
    EndlessFifo fifo(yes);
    CsvParams p;
    p.max_stream_bytes = 100000;
    EXPECT_THROW_MSG(read_csv(fifo.path(), p), Error,
                     fifo.path() +
                         ": cannot read: the stream holds more than 100000 bytes (the limit "
                         "max_stream_bytes = 100000); to read more, save the data to a file (a "
                         "file is mapped, not copied)");
  }
  {
    EndlessFifo fifo(yes);
    ::setenv("ASSAY_MAX_STREAM_BYTES", "2000000", 1);
    EXPECT_THROW_MSG(read_csv(fifo.path()), Error,
                     fifo.path() +
                         ": cannot read: the stream holds more than 2.0 MB (the limit "
                         "ASSAY_MAX_STREAM_BYTES=2000000); to read more, save the data to a file "
                         "(a file is mapped, not copied)");
    ::unsetenv("ASSAY_MAX_STREAM_BYTES");
  }
  {
    // A stream within the limit is read whole.
    const fs::path dir = fs::temp_directory_path() / ("assay_short_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string path = (dir / "in.csv").string();
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
    std::thread writer([&] { std::ofstream(path) << "y\n1\n2\n"; });
    CsvParams p;
    p.max_stream_bytes = 6;
    EXPECT_EQ(read_csv(path, p).numeric("y"), (std::vector<double>{1, 2}));
    writer.join();
    fs::remove_all(dir);
  }
}

TEST(Csv, TheTableIsSizedOnlyAfterAMemoryCheck) {
  // 30 million rows bound 480 MB of doubles and line numbers; under a 300 MB allowance the
  // reader refuses before allocating them (in a child, whose address space is capped).
  const std::string text = "y\n" + std::string(30'000'000, '\n');
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    struct rlimit cap {};
    std::size_t in_use = 0;
    if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
      unsigned long long pages = 0;
      if (std::fscanf(statm, "%llu", &pages) == 1) in_use = pages * ::sysconf(_SC_PAGESIZE);
      std::fclose(statm);
    }
    cap.rlim_cur = cap.rlim_max = in_use + (300u << 20);
    ::setrlimit(RLIMIT_AS, &cap);
    try {
      CsvParams one_thread;
      one_thread.threads = 1;
      parse_csv(text, "long.csv", one_thread);
    } catch (const Error& e) {
      const std::string m = e.what();
      const bool ok = m.starts_with(
                          "long.csv: needs 0.5 GB for 30000000 rows of 1 columns read "
                          "as numbers (8-byte doubles), more than the ") &&
                      m.ends_with(" GB this process can allocate");
      if (!ok) std::fprintf(stderr, "message: %s\n", m.c_str());
      ::_exit(ok ? 0 : 1);
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(Csv, TheHeaderNamesAnotherSeparator) {
  // With ',' given, a header separated by ';' or tabs is one column: refused, naming it.
  CsvParams comma;
  comma.delimiter = ',';
  EXPECT_EQ(error_all_ways("y;p\r\n1;0,5\r\n", comma),
            "data.csv:1:2: expected ',' between column names, found ';' in the header \"y;p\": the "
            "file is separated by ';' (Excel's CSV where the decimal mark is a comma); save it "
            "separated by ',' (Excel: \"CSV UTF-8 (Comma delimited)\"), or say so: --delimiter "
            "';' --decimal ',' on the command line, assay.io.read_csv(path, delimiter=\";\", "
            "decimal=\",\") in Python");
  // R's write.csv2 quotes the names: the quote is followed by the separator.
  EXPECT_EQ(error_all_ways("\"y\";\"p\"\n1;0,5\n", comma).substr(0, 116),
            "data.csv:1:4: expected ',' between column names, found ';' in the header "
            "\"\\\"y\\\";\\\"p\\\"\": the file is separated by ';'");
  EXPECT_EQ(error_all_ways("\xEF\xBB\xBFid\ty\tp\n1\t0\t0.5\n", comma),
            "data.csv:1:3: expected ',' between column names, found a tab in the header "
            "\"id\\ty\\tp\": the file is separated by a tab; save it separated by ',' (Excel: "
            "\"CSV UTF-8 (Comma delimited)\"), or say so: --delimiter tab on the command line, "
            "assay.io.read_csv(path, delimiter=\"\\t\") in Python");
  // Not given: both ';' and a tab in the header is no clear separator, refused the same way.
  EXPECT_EQ(error_all_ways("y;p\tq\n1;0,5\t1\n").substr(0, 58),
            "data.csv:1:2: expected ',' between column names, found ';'");
  CsvParams semicolon;
  semicolon.comments = true;
  semicolon.delimiter = ';';
  EXPECT_EQ(error_all_ways("# made by hand\ny,p\n1,0.5\n", semicolon).substr(0, 80),
            "data.csv:2:2: expected ';' between column names, found ',' in the header \"y,p\": ");
  // A quoted name may hold any separator; one column without one is fine.
  EXPECT_EQ(parse_all_ways("\"y;p\"\n1\n").names(), (std::vector<std::string>{"y;p"}));
  EXPECT_EQ(parse_all_ways("y\n1\n").names(), (std::vector<std::string>{"y"}));
}

TEST(Csv, DetectsSemicolonsAndTabsWithANote) {
  std::vector<std::string> notes;
  const ScopedWarningHandler capture([&](const std::string& m) {
    EXPECT_EQ(current_warning_kind(), WarningKind::note);
    notes.push_back(m);
  });
  // Excel where the decimal mark is a comma: ';' and decimal commas (detected together).
  const Table t = parse_csv("\"y\";p\r\n1;0,5\r\n0;-1,25\r\n", "data.csv");
  EXPECT_EQ(t.names(), (std::vector<std::string>{"y", "p"}));
  EXPECT_EQ(nums(t, "p"), (std::vector<double>{0.5, -1.25}));
  EXPECT_EQ(t.delimiter(), ';');
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "data.csv: columns separated by ';' (detected from the header), numbers with a "
            "decimal comma; give the delimiter to say so (CLI: --delimiter ';'; Python: "
            "delimiter=\";\")");
  // A decimal given stays: '.' makes "0,5" text.
  CsvParams point;
  point.decimal = '.';
  EXPECT_EQ(parse_csv("a;b\n0,5;1\n", "data.csv", point).column("a").strings(),
            (std::vector<std::string>{"0,5"}));
  // Tabs (after comment lines when comments are on); the decimal stays '.'.
  CsvParams comments;
  comments.comments = true;
  const Table u = parse_csv("# a;b,c\nid\ty\n1\t0.5\n", "data.csv", comments);
  EXPECT_EQ(nums(u, "y"), (std::vector<double>{0.5}));
  EXPECT_EQ(notes.back(),
            "data.csv: columns separated by a tab (detected from the header); give the delimiter "
            "to say so (CLI: --delimiter tab; Python: delimiter=\"\\t\")");
  // Commas in the header (outside quotes) are the separator: nothing is detected.
  notes.clear();
  EXPECT_EQ(parse_csv("a;b,c\n1,2\n", "data.csv").names(), (std::vector<std::string>{"a;b", "c"}));
  EXPECT_EQ(parse_csv("\"a,b\";c\n1;2\n", "data.csv").names(),
            (std::vector<std::string>{"a,b", "c"}));
  EXPECT_EQ(notes.size(), 1u);  // the second: ';' outside the quotes
}

TEST(Csv, DelimiterAndDecimalWords) {
  EXPECT_EQ(parse_delimiter(";", "x"), ';');
  EXPECT_EQ(parse_delimiter("tab", "x"), '\t');
  EXPECT_EQ(parse_delimiter("\\t", "x"), '\t');
  EXPECT_EQ(parse_delimiter("|", "x"), '|');
  EXPECT_EQ(parse_delimiter("auto", "x"), std::nullopt);
  EXPECT_EQ(parse_decimal(",", "x"), ',');
  EXPECT_EQ(parse_decimal("auto", "x"), std::nullopt);
  for (const char* bad : {"", "ab", "a", "1", ".", "-", "\""}) {
    try {
      parse_delimiter(bad, "--delimiter");
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--delimiter: expected one character such as ',' "
                                            "';' '|', tab or auto, found ",
                                            0),
                0u);
    }
  }
  EXPECT_THROW(parse_decimal(";", "--decimal"), Error);
}

TEST(Csv, DecimalComma) {
  CsvParams p;
  p.delimiter = ';';
  p.decimal = ',';
  const Table t =
      parse_all_ways("y;p;q\r\n1;0,5;a\r\n0;-1,25E-3;b\r\n1;2; c\r\n1; 3,5 ;1.234,5\r\n", p);
  EXPECT_EQ(nums(t, "p"), (std::vector<double>{0.5, -1.25e-3, 2, 3.5}));
  EXPECT_EQ(t.column("q").strings(), (std::vector<std::string>{"a", "b", " c", "1.234,5"}));
  p.numeric = {"q"};
  EXPECT_EQ(error_all_ways("y;q\n1;1.234,5\n", p),
            "data.csv:2:3: expected a number, found \"1.234,5\"");
  p.numeric.clear();
  p.delimiter = ',';
  EXPECT_EQ(error_all_ways("y\n1\n", p),
            "decimal ',' needs another delimiter (the CSV dialect with a decimal comma separates "
            "fields by ';')");
  p.decimal = 'x';
  EXPECT_EQ(error_all_ways("y\n1\n", p), "decimal must be '.' or ',', found \"x\"");
  // Without decimal ',', "0,5" in a ';' file is text.
  CsvParams q;
  q.delimiter = ';';
  EXPECT_EQ(parse_all_ways("a;b\n0,5;1\n", q).column("a").strings(),
            (std::vector<std::string>{"0,5"}));
}

TEST(Csv, NaMarkersAreMissingValues) {
  CsvParams missing;
  missing.allow_missing = true;
  const Table t = parse_all_ways("y,p\n1,NA\n0,#N/A\n1, N/A\n0,0.5\n", missing);
  ASSERT_EQ(t.column("p").kind, ColumnKind::numeric);
  const auto p = nums(t, "p");
  EXPECT_TRUE(std::isnan(p[0]) && std::isnan(p[1]) && std::isnan(p[2]));
  EXPECT_EQ(p[3], 0.5);
  EXPECT_EQ(error_all_ways("y,p\n1,0.5\n0,NA\n"),
            "data.csv:3:3: expected a number, found a missing value \"NA\"");
  CsvParams numeric;
  numeric.numeric = {"p"};
  EXPECT_EQ(error_all_ways("y,p\n1,#N/A\n", numeric),
            "data.csv:2:3: expected a number, found a missing value \"#N/A\"");
  // Quoted, "NA" is text; among text it is a category.
  EXPECT_EQ(parse_all_ways("p\n\"NA\"\n0.5\n").column("p").strings(),
            (std::vector<std::string>{"NA", "0.5"}));
  EXPECT_EQ(parse_all_ways("g\na\nNA\n").column("g").strings(),
            (std::vector<std::string>{"a", "NA"}));
}

TEST(Csv, RowsOfOnlySeparatorsAreNamed) {
  const std::string hint =
      " (the row holds only separators, as spreadsheets write for rows that are formatted but "
      "empty; delete such rows)";
  EXPECT_EQ(error_all_ways("y,p\r\n1,0.5\r\n,\r\n,\r\n"),
            "data.csv:3:1: expected a number, found an empty cell" + hint);
  EXPECT_EQ(error_all_ways("y,t\n1,a\n , \n"),
            "data.csv:3:1: expected a number, found an empty cell" + hint);
  EXPECT_EQ(error_all_ways("t,u\na,b\n,\n"),
            "data.csv:3:1: expected a value in text column \"t\", found an empty cell" + hint);
  // A row with some values is not one of them.
  EXPECT_EQ(error_all_ways("y,p\n1,0.5\n1,\n"),
            "data.csv:3:3: expected a number, found an empty cell");
}

}  // namespace
}  // namespace assay

// core/table: columns (numeric, categorical codes in first-seen order), lookups that name the
// columns that exist, sorted_codes (numpy's np.unique order), row lines and locations.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/table.hpp"
#include "test_util.hpp"

namespace assay {
namespace {

using Strings = std::vector<std::string>;
using Codes = std::vector<std::int32_t>;

TEST(Table, LookupAndBuild) {
  Table t("data.csv");
  t.add_column(Column::numeric("y", {1, 0}));
  t.add_column(Column::categorical("g", {"u", "v"}));
  t.add_column(Column::numeric("p2", {0.1, 0.2}));
  EXPECT_EQ(t.column("g").categories, (std::vector<std::string>{"u", "v"}));
  EXPECT_EQ(t.find("nope"), nullptr);
  EXPECT_TRUE(t.has_column("p2"));
  EXPECT_THROW_MSG(t.column("score"), Error,
                   "data.csv: no column \"score\"; columns are: y, g, p2");
  EXPECT_THROW_MSG(t.numeric("g"), Error,
                   "data.csv: column \"g\" holds text (e.g. \"u\"), expected numbers");
  EXPECT_THROW_MSG(t.add_column(Column::numeric("y", {1, 2})), Error,
                   "data.csv: duplicate column name \"y\"");
  EXPECT_THROW_MSG(t.add_column(Column::numeric("z", {1})), Error,
                   "data.csv: column \"z\" has 1 rows, expected 2 like the other columns");
  Table memory;
  memory.add_column(Column::numeric("y", {}));
  EXPECT_THROW_MSG(memory.column("x"), Error, "no column \"x\"; columns are: y");
}

TEST(Table, CategoricalCodesFollowFirstSeenOrder) {
  const Column c = Column::categorical("colour", {"red", "blue", "red", "", "blue"});
  EXPECT_TRUE(c.is_categorical());
  EXPECT_FALSE(c.is_numeric());
  EXPECT_EQ(c.categories, (Strings{"red", "blue", ""}));
  EXPECT_EQ(c.codes, (Codes{0, 1, 0, 2, 1}));
  EXPECT_TRUE(c.values.empty());
  EXPECT_EQ(c.size(), 5u);
  EXPECT_EQ(c.label(1), "blue");
  EXPECT_EQ(c.label(3), "");
  EXPECT_EQ(c.strings(), (Strings{"red", "blue", "red", "", "blue"}));
  const Column n = Column::numeric("x", {1.5, -2});
  EXPECT_TRUE(n.is_numeric());
  EXPECT_EQ(n.size(), 2u);
  EXPECT_TRUE(n.codes.empty());
}

TEST(Table, ShapeNamesAndNumericValues) {
  Table t("t.csv");
  EXPECT_EQ(t.n_rows(), 0u);
  EXPECT_EQ(t.n_columns(), 0u);
  t.add_column(Column::categorical("s", {"a", "b", "a"}));
  t.add_column(Column::numeric("x", {3, 2, 1}));
  EXPECT_EQ(t.n_rows(), 3u);
  EXPECT_EQ(t.n_columns(), 2u);
  EXPECT_EQ(t.names(), (Strings{"s", "x"}));
  EXPECT_EQ(t.numeric("x"), (std::vector<double>{3, 2, 1}));
  EXPECT_EQ(t.source(), "t.csv");
  // Mutable access: a column's values can be changed in place.
  t.column("x").values[0] = 7;
  EXPECT_EQ(t.numeric("x")[0], 7);
}

TEST(Table, RenamedColumnIsStillFound) {
  Table t("t.csv");
  t.add_column(Column::numeric("old", {1}));
  t.columns()[0].name = "new";
  EXPECT_NE(t.find("new"), nullptr);
  EXPECT_EQ(t.find("old"), nullptr);
  EXPECT_THROW_MSG(t.column("old"), Error, "t.csv: no column \"old\"; columns are: new");
  t.add_column(Column::numeric("old", {2}));  // the name is free again
  EXPECT_EQ(t.numeric("old")[0], 2);
}

TEST(Table, OddColumnNamesAreQuotedInTheList) {
  Table t;
  t.add_column(Column::numeric("a,b", {1}));
  t.add_column(Column::numeric("say \"hi\"", {1}));
  t.add_column(Column::numeric("", {1}));
  t.add_column(Column::numeric("plain", {1}));
  EXPECT_THROW_MSG(t.column("x"), Error,
                   "no column \"x\"; columns are: \"a,b\", \"say \\\"hi\\\"\", \"\", plain");
}

TEST(Table, TextColumnWithoutCategoriesSaysEmptyString) {
  Table t("t.csv");
  t.add_column(Column::categorical("s", {}));
  EXPECT_THROW_MSG(t.numeric("s"), Error,
                   "t.csv: column \"s\" holds text (e.g. \"\"), expected numbers");
}

TEST(Table, RowLinesAndLocations) {
  Table t("data.csv");
  t.add_column(Column::numeric("x", {1, 2, 3}));
  EXPECT_EQ(t.row_line(0), 0);
  EXPECT_EQ(t.row_location(1).to_string(), "data.csv");
  EXPECT_EQ(t.delimiter(), ',');
  t.set_row_lines({2, 4, 7}, ';');
  EXPECT_EQ(t.row_line(2), 7);
  EXPECT_EQ(t.row_line(3), 0);  // past the end: unknown
  EXPECT_EQ(t.delimiter(), ';');
  EXPECT_EQ(t.row_location(1).to_string(), "data.csv:4");
  EXPECT_EQ(t.row_location(1).column, 0);
  EXPECT_THROW(t.set_row_lines({1, 2}), std::logic_error);  // one line per row, or none
}

TEST(Table, FailInPrefixesTheSource) {
  Table file("data.csv");
  EXPECT_THROW_MSG(fail_in(file, "no rows"), Error, "data.csv: no rows");
  try {
    fail_in(file, "no rows");
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "no rows");
    ASSERT_TRUE(e.location().has_value());
    EXPECT_EQ(e.location()->file, "data.csv");
  }
  Table memory;
  EXPECT_THROW_MSG(fail_in(memory, "no rows"), Error, "no rows");
}

TEST(SortedCodes, NumericColumnSortsNumerically) {
  const SortedCodes s = sorted_codes(Column::numeric("y", {10, 2, 2.5, 10, -1}));
  EXPECT_EQ(s.names, (Strings{"-1", "2", "2.5", "10"}));
  EXPECT_EQ(s.codes, (Codes{3, 1, 2, 3, 0}));
  // Shortest round-trip text for every value.
  const SortedCodes r = sorted_codes(Column::numeric("y", {0.1, 1e21, 1.0 / 3}));
  EXPECT_EQ(r.names, (Strings{"0.1", "0.3333333333333333", "1e+21"}));
  EXPECT_EQ(r.codes, (Codes{0, 2, 1}));
}

TEST(SortedCodes, TextOfNumbersSortsNumerically) {
  const SortedCodes s = sorted_codes(Column::categorical("y", {"10", "2", "-1", "10", "2.5"}));
  EXPECT_EQ(s.names, (Strings{"-1", "2", "2.5", "10"}));
  EXPECT_EQ(s.codes, (Codes{3, 1, 0, 3, 2}));
  // Equal numbers written differently stay distinct, in byte order.
  const SortedCodes e = sorted_codes(Column::categorical("y", {"1.0", "1", "0"}));
  EXPECT_EQ(e.names, (Strings{"0", "1", "1.0"}));
  EXPECT_EQ(e.codes, (Codes{2, 1, 0}));
}

TEST(SortedCodes, AnyNonNumberSortsEverythingBytewise) {
  const SortedCodes s = sorted_codes(Column::categorical("y", {"b", "B", "a b", "10", "9"}));
  EXPECT_EQ(s.names, (Strings{"10", "9", "B", "a b", "b"}));
  EXPECT_EQ(s.codes, (Codes{4, 2, 3, 0, 1}));
  // "inf" and "nan" are not finite numbers: the column is text.
  const SortedCodes t = sorted_codes(Column::categorical("y", {"2", "inf", "10"}));
  EXPECT_EQ(t.names, (Strings{"10", "2", "inf"}));
  const SortedCodes blank = sorted_codes(Column::categorical("y", {"2", "", "10"}));
  EXPECT_EQ(blank.names, (Strings{"", "10", "2"}));
}

TEST(SortedCodes, EmptyColumns) {
  EXPECT_TRUE(sorted_codes(Column::numeric("y", {})).names.empty());
  const SortedCodes s = sorted_codes(Column::categorical("y", {}));
  EXPECT_TRUE(s.names.empty());
  EXPECT_TRUE(s.codes.empty());
}

}  // namespace
}  // namespace assay

// learners/dataset: dataset_from_table (roles of columns, one-hot features, class order, bad
// input named by file and row), check_dataset's invariants and Dataset::row_name.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "assay/core/csv.hpp"
#include "assay/learners/dataset.hpp"
#include "test_util.hpp"
#include "toy_dataset.hpp"

namespace assay::learners {
namespace {

// DatasetColumns with every field given (designated initializers would warn with -Wextra).
DatasetColumns cols(std::string label, std::vector<std::string> features = {},
                    std::vector<std::string> drop = {}, std::string weight = "",
                    std::vector<std::string> reserved = {}, std::size_t max_levels = 1000) {
  return {std::move(label),  std::move(features), std::move(drop),
          std::move(weight), std::move(reserved), max_levels};
}

TEST(DatasetFromTable, NumericAndOneHotFeatures) {
  const Table t = parse_csv("y,x1,c,s\nb,1.5,red,A\na,2,blue,A\nb,-3,red,B\n", "t.csv");
  const Dataset d =
      dataset_from_table(t, cols("y", {}, {}, "", {"s"}), TaskKind::classification, "toy");
  EXPECT_EQ(d.name, "toy");
  EXPECT_EQ(d.n_rows, 3u);
  EXPECT_EQ(d.feature_names, (std::vector<std::string>{"x1", "c=red", "c=blue"}));
  ASSERT_EQ(d.n_features, 3u);
  EXPECT_EQ(d.x, (std::vector<double>{1.5, 1, 0, 2, 0, 1, -3, 1, 0}));
  EXPECT_EQ(d.classes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(d.y_class, (std::vector<std::int32_t>{1, 0, 1}));
  EXPECT_TRUE(d.weights.empty());
  EXPECT_EQ(d.row(2)[0], -3);
}

TEST(DatasetFromTable, NumericLabelsSortNumerically) {
  const Table t = parse_csv("x,y\n1,10\n2,2\n3,2.5\n4,10\n", "t.csv");
  const Dataset d = dataset_from_table(t, cols("y"), TaskKind::classification, "n");
  EXPECT_EQ(d.classes, (std::vector<std::string>{"2", "2.5", "10"}));
  EXPECT_EQ(d.y_class, (std::vector<std::int32_t>{2, 0, 1, 2}));
}

TEST(DatasetFromTable, NumberLabelsReadAsTextSortNumerically) {
  // The CLI reads labels as text; "10" must still come after "2" (the positive class for AUC).
  CsvParams csv;
  csv.categorical = {"y"};
  const Table t = parse_csv("x,y\n1,10\n2,2\n3,-1\n4,10\n", "t.csv", csv);
  ASSERT_FALSE(t.column("y").is_numeric());
  const Dataset d = dataset_from_table(t, cols("y"), TaskKind::classification, "n");
  EXPECT_EQ(d.classes, (std::vector<std::string>{"-1", "2", "10"}));
  EXPECT_EQ(d.y_class, (std::vector<std::int32_t>{2, 1, 0, 2}));
}

TEST(DatasetFromTable, StringLabelsSortBytewise) {
  const Table t = parse_csv("x,y\n1,b\n2,B\n3,a b\n4,10\n", "t.csv");
  const Dataset d = dataset_from_table(t, cols("y"), TaskKind::classification, "n");
  EXPECT_EQ(d.classes, (std::vector<std::string>{"10", "B", "a b", "b"}));
  EXPECT_EQ(d.y_class, (std::vector<std::int32_t>{3, 1, 2, 0}));
}

TEST(DatasetFromTable, FeaturesDropWeightAndRegression) {
  const Table t = parse_csv("y,a,b,c,w\n1.5,1,2,3,0.5\n2.5,4,5,6,2\n", "t.csv");
  Dataset d = dataset_from_table(t, cols("y", {"c", "a"}, {}, "w"), TaskKind::regression, "r");
  EXPECT_EQ(d.feature_names, (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(d.x, (std::vector<double>{3, 1, 6, 4}));
  EXPECT_EQ(d.y_value, (std::vector<double>{1.5, 2.5}));
  EXPECT_TRUE(d.classes.empty());
  EXPECT_EQ(d.weights, (std::vector<double>{0.5, 2}));
  d = dataset_from_table(t, cols("y", {}, {"b"}, "w"), TaskKind::regression, "r");
  EXPECT_EQ(d.feature_names, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(d.x, (std::vector<double>{1, 3, 4, 6}));
}

TEST(DatasetFromTable, BadInput) {
  const Table t = parse_csv("y,x,c,w\na,1,u,1\nb,nan,v,-1\na,3,u,1\n", "t.csv");
  const auto cls = TaskKind::classification;
  EXPECT_THROW_MSG(dataset_from_table(t, cols("z"), cls, "d"), Error,
                   "t.csv: no column \"z\"; columns are: y, x, c, w");
  EXPECT_THROW_MSG(dataset_from_table(t, cols(""), cls, "d"), Error, "no label column given");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y", {}, {"w"}), cls, "d"), Error,
                   "t.csv:3: column \"x\": expected a finite feature value, found nan "
                   "(learners do not impute)");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y", {"c", "zz"}), cls, "d"), Error,
                   "t.csv: no column \"zz\"; columns are: y, x, c, w");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y", {}, {"qq"}), cls, "d"), Error,
                   "t.csv: no column \"qq\"; columns are: y, x, c, w");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y", {"c", "y"}), cls, "d"), Error,
                   "t.csv: column \"y\" is named twice (label and features)");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y", {"c", "c"}), cls, "d"), Error,
                   "t.csv: column \"c\" is named twice (features)");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y", {"c"}, {}, "", {"c"}), cls, "d"), Error,
                   "t.csv: column \"c\" is named twice (subset/group/fold/strata and features)");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y", {}, {}, "y"), cls, "d"), Error,
                   "t.csv: column \"y\" is named twice (label and weight)");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y", {"c"}, {}, "w"), cls, "d"), Error,
                   "t.csv:3: column \"w\": expected a finite weight >= 0, found -1");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y", {"c"}, {}, "c"), cls, "d"), Error,
                   "t.csv: column \"c\" is named twice (weight and features)");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y", {}, {"x", "c", "w"}), cls, "d"), Error,
                   "t.csv: no feature columns left; columns are: y, x, c, w");
  EXPECT_THROW_MSG(
      dataset_from_table(t, cols("y", {"c"}), TaskKind::regression, "d"), Error,
      "t.csv: label column \"y\": expected numbers for regression, found text such as \"a\"");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("x", {"c"}), cls, "d"), Error,
                   "t.csv:3: column \"x\": expected a class label, found NaN");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("x", {"c"}), TaskKind::regression, "d"), Error,
                   "t.csv:3: column \"x\": expected a finite number, found nan");

  const Table one = parse_csv("y,x\n7,1\n7,2\n", "one.csv");
  EXPECT_THROW_MSG(dataset_from_table(one, cols("y"), cls, "d"), Error,
                   "one.csv: label column \"y\" has one class (\"7\"); expected at least two");
  const Table empty = parse_csv("y,x\n", "empty.csv");
  EXPECT_THROW_MSG(dataset_from_table(empty, cols("y"), cls, "d"), Error,
                   "empty.csv: no data rows, expected at least one");
  const Table text_weight = parse_csv("y,x,w\na,1,heavy\nb,2,1\n", "tw.csv");
  EXPECT_THROW_MSG(dataset_from_table(text_weight, cols("y", {}, {}, "w"), cls, "d"), Error,
                   "tw.csv: weight column \"w\": expected numbers, found text such as \"heavy\"");
}

TEST(DatasetFromTable, StrayTextInANumericColumnIsRefused) {
  // One "abc" among numbers would one-hot the column into a feature per distinct number.
  std::string text = "y,x\n";
  for (int i = 0; i < 119; ++i) text += std::to_string(i % 2) + "," + std::to_string(i) + ".5\n";
  text += "1,abc\n";
  const Table t = parse_csv(text, "stray.csv");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y"), TaskKind::classification, "d"), Error,
                   "stray.csv:121: expected a number in numeric column \"x\" (119 of 120 rows are "
                   "numbers), found \"abc\"");
  // Mostly text: a categorical feature, one-hot encoded.
  const Table cats = parse_csv("y,x\n0,a\n1,b\n0,3\n", "cats.csv");
  EXPECT_EQ(dataset_from_table(cats, cols("y"), TaskKind::classification, "d").n_features, 3u);
}

TEST(DatasetFromTable, TextColumnWithTooManyValuesIsRefusedBeforeEncoding) {
  // A column of ids: one-hot encoded, 1500 rows x 1501 features.
  std::string text = "y,x,id\n";
  for (int i = 0; i < 1500; ++i) text += fmt::format("{},{},u{}\n", i % 2, i % 7, i);
  const Table t = parse_csv(text, "ids.csv");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y"), TaskKind::classification, "d"), Error,
                   "ids.csv: text column \"id\" has 1500 distinct values, more than the limit of "
                   "1000 per text feature: one-hot encoded, the feature matrix would be 1500 "
                   "rows x 1501 features, 18.0 MB as 8-byte doubles; drop the column (--drop id) "
                   "or raise the limit (--max-levels 1500) if that is intended");
  // At the limit, or without one, it is encoded; dropped, it is not.
  EXPECT_EQ(dataset_from_table(t, cols("y", {}, {}, "", {}, 1500), TaskKind::classification, "d")
                .n_features,
            1501u);
  EXPECT_EQ(
      dataset_from_table(t, cols("y", {}, {}, "", {}, 0), TaskKind::classification, "d").n_features,
      1501u);
  EXPECT_EQ(dataset_from_table(t, cols("y", {}, {"id"}), TaskKind::classification, "d").n_features,
            1u);
}

TEST(CheckDataset, NamesTheProblem) {
  EXPECT_NO_THROW(check_dataset(classification({0, 1, 1}, 2)));
  Dataset d = classification({0, 1, 1}, 2);
  d.x[1] = std::nan("");
  EXPECT_THROW_MSG(check_dataset(d), Error,
                   "data set \"toy\": feature 0 of row 1 is NaN, expected a finite value "
                   "(learners do not impute)");
  d = classification({0, 1, 1}, 2);
  d.x.pop_back();
  EXPECT_THROW_MSG(check_dataset(d), Error,
                   "data set \"toy\": x has 2 values, expected n_rows x n_features = 3 x 1");
  d = classification({0, 1, -1}, 2);
  EXPECT_THROW_MSG(check_dataset(d), Error,
                   "data set \"toy\": class code -1 in row 2 is outside 0..1 (the 2 classes)");
  d = classification({0, 0}, 1);
  EXPECT_THROW_MSG(check_dataset(d), Error,
                   "data set \"toy\" has 1 class names, expected at least two");
  d = classification({0, 1}, 2, {1, -2});
  EXPECT_THROW_MSG(check_dataset(d), Error,
                   "data set \"toy\": weights must be >= 0, found -2 at index 1");
  d = classification({0, 1}, 2, {1});
  EXPECT_THROW_MSG(check_dataset(d), Error,
                   "data set \"toy\": rows and weights differ in length (2 vs 1)");
  d = classification({0, 1}, 2);
  d.y_class.pop_back();
  EXPECT_THROW_MSG(check_dataset(d), Error,
                   "data set \"toy\": rows and class codes differ in length (2 vs 1)");
  d.task = TaskKind::regression;
  d.y_value = {1, std::nan("")};
  EXPECT_THROW_MSG(check_dataset(d), Error, "data set \"toy\": targets contains NaN at index 1");
  d.n_rows = 0;
  EXPECT_THROW_MSG(check_dataset(d), Error, "data set \"toy\" has no rows, expected at least one");
}

TEST(DatasetFromTable, RowsRememberTheirFileLines) {
  const Table t = parse_csv("y,x\na,1\n\nb,2\n", "lines.csv");
  const Dataset d = dataset_from_table(t, cols("y"), TaskKind::classification, "d");
  EXPECT_EQ(d.source, "lines.csv");
  EXPECT_EQ(d.row_lines, (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(d.row_name(0), "lines.csv:2 (data row 1)");
  EXPECT_EQ(d.row_name(1), "lines.csv:4 (data row 2)");
  // Built in memory: no lines, rows are named by their 0-based index.
  Table memory;
  memory.add_column(Column::categorical("y", {"a", "b"}));
  memory.add_column(Column::numeric("x", {1, 2}));
  const Dataset m = dataset_from_table(memory, cols("y"), TaskKind::classification, "m");
  EXPECT_TRUE(m.source.empty());
  EXPECT_TRUE(m.row_lines.empty());
  EXPECT_EQ(m.row_name(1), "row 1");
}

TEST(DatasetFromTable, MissingLabelCellsInTextColumnsAreNotClasses) {
  CsvParams csv;
  csv.categorical = {"y"};
  const Table t = parse_csv("y,x\na,1\nNA,2\nb,3\n", "na.csv", csv);
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y"), TaskKind::classification, "d"), Error,
                   "na.csv:3: column \"y\": expected a class label, found \"NA\"");
  Table memory("frame");
  memory.add_column(Column::categorical("y", {"a", "", "b"}));
  memory.add_column(Column::numeric("x", {1, 2, 3}));
  EXPECT_THROW_MSG(dataset_from_table(memory, cols("y"), TaskKind::classification, "d"), Error,
                   "frame: column \"y\", data row 2: expected a class label, found an empty cell");
}

TEST(DatasetFromTable, InfiniteValuesAreRefused) {
  const Table t = parse_csv("y,x,w\n1,inf,1\n2,1,inf\n", "inf.csv");
  EXPECT_THROW_MSG(dataset_from_table(t, cols("y", {"x"}), TaskKind::regression, "d"), Error,
                   "inf.csv:2: column \"x\": expected a finite feature value, found inf (learners "
                   "do not impute)");
  const Table w = parse_csv("y,x,w\n1,0,1\n2,1,inf\n", "w.csv");
  EXPECT_THROW_MSG(dataset_from_table(w, cols("y", {"x"}, {}, "w"), TaskKind::regression, "d"),
                   Error, "w.csv:3: column \"w\": expected a finite weight >= 0, found inf");
}

TEST(CheckDataset, AcceptsValidRegressionAndWeights) {
  Dataset d = classification({0, 1, 1}, 2, {0, 1, 2.5});
  EXPECT_NO_THROW(check_dataset(d));
  d.task = TaskKind::regression;
  d.y_class.clear();
  d.classes.clear();
  d.y_value = {1.5, -2, 0};
  EXPECT_NO_THROW(check_dataset(d));
}

TEST(CheckDataset, FeatureNamesAndFeatureCountAgree) {
  Dataset d = classification({0, 1}, 2);
  d.feature_names = {"x", "z"};
  EXPECT_THROW_MSG(check_dataset(d), Error, "data set \"toy\": 2 feature names for 1 features");
  d.feature_names.clear();  // no names at all is fine
  EXPECT_NO_THROW(check_dataset(d));
  d.n_features = 0;
  d.x.clear();
  EXPECT_THROW_MSG(check_dataset(d), Error,
                   "data set \"toy\" has no features, expected at least one");
}

TEST(CheckDataset, InfiniteFeaturesAndOverflowingWeights) {
  Dataset d = classification({0, 1}, 2);
  d.x[0] = -std::numeric_limits<double>::infinity();
  EXPECT_THROW_MSG(check_dataset(d), Error,
                   "data set \"toy\": feature 0 of row 0 is -inf, expected a finite value "
                   "(learners do not impute)");
  const double big = std::numeric_limits<double>::max();
  d = classification({0, 1}, 2, {big, big});
  EXPECT_THROW_MSG(check_dataset(d), Error,
                   "data set \"toy\": the weights sum to more than the largest double (inf); "
                   "rescale them");
  d = classification({0, 2}, 2);
  EXPECT_THROW_MSG(check_dataset(d), Error,
                   "data set \"toy\": class code 2 in row 1 is outside 0..1 (the 2 classes)");
}

}  // namespace
}  // namespace assay::learners

// compare_input(): a table's columns as a CompareInput, every error naming the file, row and
// column.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "assay/compare/compare.hpp"
#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/metrics/evaluate.hpp"
#include "assay/metrics/regression_evaluation.hpp"

namespace assay::compare {
namespace {

// Numeric labels with many distinct values are not classes (at most this many: a slice or
// class column of ids would make thousands of groups).
constexpr std::size_t kMaxNumericSliceValues = 50;

bool has_fractions(const Column& c) {
  return c.is_numeric() && std::any_of(c.values.begin(), c.values.end(), [](double v) {
           return std::isfinite(v) && v != std::floor(v);
         });
}

const Column& numeric_column(const Table& table, const std::string& name, const char* role) {
  const Column& c = table.column(name);
  if (!c.is_numeric()) {
    fail_in(table, fmt::format("{} column \"{}\": expected numbers, found text such as {}", role,
                               name, quote_found(c.categories.front())));
  }
  for (std::size_t i = 0; i < c.values.size(); ++i) {
    if (!std::isfinite(c.values[i])) {
      fail_at_cell(table, i, name, fmt::format("expected a finite number, found {}", c.values[i]));
    }
  }
  return c;
}

bool is_number(const std::string& text) {
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size();
}

// A model column that is neither numbers (scores) nor the labels' classes: a text column of
// numbers with a stray word is a score column with a bad cell, so that cell is named.
[[noreturn]] void refuse_prediction(const Table& table, const Column& c, std::size_t row) {
  if (c.is_categorical()) {
    std::size_t numbers = 0, first_text = c.size();
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (is_number(c.label(i))) {
        ++numbers;
      } else if (first_text == c.size()) {
        first_text = i;
      }
    }
    if (numbers * 2 > c.size() && first_text < c.size()) {
      fail_at_cell(
          table, first_text, c.name,
          fmt::format("expected a score (a number), found {}", quote_found(c.label(first_text))));
    }
  }
  const std::string v = c.is_categorical() ? c.label(row) : fmt::format("{}", c.values[row]);
  fail_at_cell(table, row, c.name,
               fmt::format("expected a predicted class among the labels' classes, found {}",
                           quote_found(v)));
}

// One model's column(s): scores, or predicted classes mapped onto the labels' classes.
ModelScores model_scores(const Table& table, const std::string& name,
                         const std::vector<std::string>& cols, Task task,
                         const std::vector<std::string>& classes) {
  ModelScores m;
  m.name = name;
  m.n_columns = cols.size();
  const std::size_t n = table.n_rows();
  const Column& first = table.column(cols.front());
  const bool predictions =
      task != Task::regression && cols.size() == 1 &&
      (first.is_categorical() || (task == Task::multiclass && !has_fractions(first)));
  if (predictions) {
    std::map<std::string, double> code;
    for (std::size_t c = 0; c < classes.size(); ++c) code[classes[c]] = static_cast<double>(c);
    m.predictions = true;
    m.scores.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string v =
          first.is_categorical() ? first.label(i) : fmt::format("{}", first.values[i]);
      auto it = code.find(v);
      if (it == code.end()) refuse_prediction(table, first, i);
      m.scores[i] = it->second;
    }
    return m;
  }
  m.scores.resize(n * cols.size());
  for (std::size_t j = 0; j < cols.size(); ++j) {
    const Column& c = numeric_column(table, cols[j], "score");
    for (std::size_t i = 0; i < n; ++i) m.scores[i * cols.size() + j] = c.values[i];
  }
  return m;
}

std::string bin_name(double low, double high, bool last) {
  return fmt::format("[{:.4g}, {:.4g}{}", low, high, last ? "]" : ")");
}

// A numeric column cut at its quantiles (numpy's linear rule) into at most `bins` bins.
SliceColumn binned(const Table& table, const Column& c, std::size_t bins) {
  std::vector<double> sorted = c.values;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> edges;
  for (std::size_t b = 0; b <= bins; ++b) {
    const double pos =
        static_cast<double>(b) / static_cast<double>(bins) * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double e = sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
    if (edges.empty() || e > edges.back()) edges.push_back(e);
  }
  if (edges.size() < 2) {
    fail_in(table, fmt::format("slice column \"{}\": one value ({}): nothing to slice", c.name,
                               c.values.front()));
  }
  SliceColumn s;
  s.name = c.name;
  const std::size_t count = edges.size() - 1;
  for (std::size_t b = 0; b < count; ++b) {
    s.values.push_back(bin_name(edges[b], edges[b + 1], b + 1 == count));
  }
  s.codes.resize(c.values.size());
  for (std::size_t i = 0; i < c.values.size(); ++i) {
    const auto it = std::upper_bound(edges.begin() + 1, edges.end() - 1, c.values[i]);
    s.codes[i] = static_cast<std::int32_t>(it - (edges.begin() + 1));
  }
  return s;
}

// "region" or "age:4" (a numeric column in 4 quantile bins).
SliceColumn slice_column(const Table& table, const std::string& spec) {
  std::string name = spec;
  std::size_t bins = 0;
  const auto colon = spec.rfind(':');
  if (!table.has_column(spec) && colon != std::string::npos) {
    name = spec.substr(0, colon);
    const std::string count = spec.substr(colon + 1);
    const bool digits = !count.empty() && std::all_of(count.begin(), count.end(), ::isdigit);
    if (!digits || count.size() > 4 || std::stoul(count) < 2) {
      fail("--by {}: expected a column or COLUMN:BINS with 2 to 9999 bins, found {}",
           quote_found(spec), quote_found(count));
    }
    bins = std::stoul(count);
  }
  const Column& c = table.column(name);
  if (bins > 0) return binned(table, numeric_column(table, name, "slice"), bins);
  if (c.is_numeric()) {
    for (std::size_t i = 0; i < c.values.size(); ++i) {
      if (std::isnan(c.values[i])) fail_at_cell(table, i, name, "expected a value, found NaN");
    }
    const std::set<double> distinct(c.values.begin(), c.values.end());
    if (distinct.size() > kMaxNumericSliceValues) {
      fail_in(table, fmt::format("slice column \"{}\": {} distinct numbers; give a bin count, "
                                 "e.g. --by {}:4",
                                 name, distinct.size(), name));
    }
  }
  const SortedCodes sorted = sorted_codes(c);
  if (sorted.names.size() < 2) {
    fail_in(table, fmt::format("slice column \"{}\": one value ({}): nothing to slice", name,
                               quote_found(sorted.names.empty() ? "" : sorted.names.front())));
  }
  return {name, sorted.names, sorted.codes};
}

}  // namespace

CompareInput compare_input(const Table& table, const CompareColumns& columns, Task task) {
  if (columns.label.empty()) fail("no label column given");
  if (table.n_rows() == 0) fail_in(table, "no data rows, expected at least one");
  if (columns.models.size() < 2) {
    fail("compare needs two or more models, found {}", columns.models.size());
  }
  const Column& label = table.column(columns.label);
  // The rule of `assay metrics --task auto`: fractions, or many whole values with few rows each.
  if (task == Task::automatic && metrics::looks_like_regression_target(label)) {
    task = Task::regression;
  }
  CompareInput in;
  in.task = task;
  metrics::EvaluateColumns base;
  base.label = columns.label;
  base.weight = columns.weight;
  if (task == Task::regression) {
    in.targets = numeric_column(table, columns.label, "label").values;
    if (!columns.weight.empty()) {
      in.weights = numeric_column(table, columns.weight, "weight").values;
      for (std::size_t i = 0; i < in.weights.size(); ++i) {
        if (in.weights[i] < 0) {
          fail_at_cell(table, i, columns.weight,
                       fmt::format("expected a finite weight >= 0, found {}", in.weights[i]));
        }
      }
    }
  } else {
    auto e = metrics::evaluation_input(table, base);
    if (e.classes.size() < 2) {
      fail_in(table, fmt::format("label column \"{}\": every example is in one class ({}); "
                                 "comparing classifiers needs two or more classes",
                                 columns.label, quote_found(e.classes.front())));
    }
    in.classes = std::move(e.classes);
    in.y_true = std::move(e.y_true);
    in.weights = std::move(e.weights);
    if (task == Task::automatic) task = in.classes.size() == 2 ? Task::binary : Task::multiclass;
    in.task = task;
  }
  for (const auto& [name, cols] : columns.models) {
    if (cols.empty()) fail("model {}: expected a column, found none", quote_found(name));
    in.models.push_back(model_scores(table, name, cols, task, in.classes));
  }
  for (const auto& spec : columns.by) in.slices.push_back(slice_column(table, spec));
  return in;
}

}  // namespace assay::compare

#include "assay/learners/dataset.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/validate.hpp"

namespace assay::learners {
namespace {

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Class codes sorted as scikit-learn sorts labels (np.unique): numerically when the column is
// numeric or its text cells are all numbers (as assay.soak.run sees them after np.asarray),
// else bytewise as strings.
void encode_classes(const Table& table, const Column& label, Dataset& data) {
  const std::size_t n = label.size();
  if (label.is_numeric()) {
    for (std::size_t i = 0; i < n; ++i) {
      if (std::isnan(label.values[i])) {
        fail_at_cell(table, i, label.name, "expected a class label, found NaN");
      }
    }
  } else {
    // A missing label in a text column reads as "" (or pandas' "NA"/"NaN"): not a class.
    for (std::size_t i = 0; i < n; ++i) {
      const std::string& cell = label.categories[static_cast<std::size_t>(label.codes[i])];
      if (cell.empty() || cell == "NA" || cell == "NaN" || cell == "nan") {
        fail_at_cell(table, i, label.name,
                     fmt::format("expected a class label, found {}",
                                 cell.empty() ? "an empty cell" : quote_found(cell)));
      }
    }
  }
  SortedCodes sorted = sorted_codes(label);
  data.classes = std::move(sorted.names);
  data.y_class = std::move(sorted.codes);
  if (data.classes.size() < 2) {
    fail_in(table,
            fmt::format("label column \"{}\" has one class ({}); expected at least two", label.name,
                        quote_found(data.classes.empty() ? std::string() : data.classes[0])));
  }
}

void read_regression_target(const Table& table, const Column& label, Dataset& data) {
  if (!label.is_numeric()) {
    fail_in(table, fmt::format("label column \"{}\": expected numbers for regression, found text "
                               "such as {}",
                               label.name, quote_found(label.categories.front())));
  }
  for (std::size_t i = 0; i < label.values.size(); ++i) {
    if (!std::isfinite(label.values[i])) {
      fail_at_cell(table, i, label.name,
                   fmt::format("expected a finite number, found {}", label.values[i]));
    }
  }
  data.y_value = label.values;
}

void read_weights(const Table& table, const Column& w, Dataset& data) {
  if (!w.is_numeric()) {
    fail_in(table, fmt::format("weight column \"{}\": expected numbers, found text such as {}",
                               w.name, quote_found(w.categories.front())));
  }
  for (std::size_t i = 0; i < w.values.size(); ++i) {
    if (!(w.values[i] >= 0) || std::isinf(w.values[i])) {
      fail_at_cell(table, i, w.name,
                   fmt::format("expected a finite weight >= 0, found {}", w.values[i]));
    }
  }
  data.weights = w.values;
}

/// Whether a text cell reads as a number (as the CSV reader would read it).
bool reads_as_number(std::string_view cell) {
  while (!cell.empty() && (cell.front() == ' ' || cell.front() == '\t')) cell.remove_prefix(1);
  while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t')) cell.remove_suffix(1);
  if (!cell.empty() && cell.front() == '+') cell.remove_prefix(1);
  if (cell.empty()) return false;
  double v;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  return end == cell.data() + cell.size() &&
         (ec == std::errc() || ec == std::errc::result_out_of_range);
}

/// A text feature column whose cells are mostly numbers is a numeric column with a typo ("abc",
/// "?", "1,5"): one-hot encoding it would silently turn every distinct number into a feature.
void check_not_stray_text(const Table& table, const Column& c) {
  std::vector<char> is_number(c.categories.size());
  for (std::size_t k = 0; k < c.categories.size(); ++k) {
    is_number[k] = reads_as_number(c.categories[k]);
  }
  std::size_t numbers = 0, first_text = c.codes.size();
  for (std::size_t i = 0; i < c.codes.size(); ++i) {
    if (is_number[static_cast<std::size_t>(c.codes[i])]) {
      ++numbers;
    } else if (first_text == c.codes.size()) {
      first_text = i;
    }
  }
  if (first_text == c.codes.size() || 2 * numbers <= c.codes.size()) return;
  const std::string message =
      fmt::format("expected a number in numeric column {} ({} of {} rows are numbers), found {}",
                  quote_found(c.name), numbers, c.codes.size(), quote_found(c.label(first_text)));
  if (table.row_line(first_text) > 0)
    throw Error(cell_location(table, first_text, c.name), message);
  fail_in(table, fmt::format("data row {}: {}", first_text + 1, message));
}

// "3.2 GB", "18.0 MB".
std::string memory_size(double bytes) {
  return bytes >= 1e9 ? fmt::format("{:.1f} GB", bytes / 1e9)
                      : fmt::format("{:.1f} MB", bytes / 1e6);
}

/// One-hot encoding gives every distinct text value a dense column: a text column of ids would
/// need rows x values doubles (20,000 rows: 3.2 GB) and make glmnet crawl. Refused before any
/// allocation, naming the column, its values, the memory and the options that change it.
void check_design_size(const Table& table, const std::vector<const Column*>& features,
                       std::size_t max_levels) {
  const std::size_t n = table.n_rows();
  std::size_t d = 0;
  for (const Column* c : features) d += c->is_numeric() ? 1 : c->categories.size();
  const double bytes = 8.0 * static_cast<double>(n) * static_cast<double>(d);
  for (const Column* c : features) {
    const std::size_t levels = c->is_numeric() ? 0 : c->categories.size();
    if (max_levels == 0 || levels <= max_levels) continue;
    fail_in(table,
            fmt::format("text column {} has {} distinct values, more than the limit of {} per text "
                        "feature: one-hot encoded, the feature matrix would be {} rows x {} "
                        "features, {} as 8-byte doubles; drop the column (--drop {}) or raise the "
                        "limit (--max-levels {}) if that is intended",
                        quote_found(c->name), levels, max_levels, n, d, memory_size(bytes), c->name,
                        levels));
  }
  try {
    check_memory(static_cast<std::size_t>(bytes),
                 fmt::format("the feature matrix of {} ({} rows x {} features as 8-byte doubles, "
                             "text columns one-hot encoded)",
                             table.source(), n, d));
  } catch (const Error& e) {
    fail("{}; drop text columns with many values (--drop) or lower --max-levels", e.what());
  }
}

}  // namespace

Dataset dataset_from_table(const Table& table, const DatasetColumns& columns, TaskKind task,
                           std::string name) {
  if (columns.label.empty()) fail("no label column given");
  const Column& label = table.column(columns.label);
  const std::size_t n = table.n_rows();
  if (n == 0) fail_in(table, "no data rows, expected at least one");

  // Roles other than "feature"; a column may hold only one of them.
  std::vector<std::pair<std::string, std::string>> roles;  // (column, role)
  auto take_role = [&](const std::string& column, const char* role) {
    for (const auto& [c, r] : roles) {
      if (c == column) {
        fail_in(table, fmt::format("column \"{}\" is named twice ({} and {})", column, r, role));
      }
    }
    roles.emplace_back(column, role);
  };
  take_role(columns.label, "label");
  if (!columns.weight.empty()) {
    table.column(columns.weight);
    take_role(columns.weight, "weight");
  }
  for (const auto& c : columns.drop) table.column(c);

  // The feature columns, in table order (or in the order `features` lists them).
  std::vector<const Column*> feature_columns;
  auto is_reserved = [&](const std::string& c) { return contains(columns.reserved, c); };
  if (!columns.features.empty()) {
    std::vector<std::string> seen;
    for (const auto& f : columns.features) {
      const Column& c = table.column(f);
      if (contains(seen, f))
        fail_in(table, fmt::format("column \"{}\" is named twice (features)", f));
      for (const auto& [column, role] : roles) {
        if (column == f) {
          fail_in(table, fmt::format("column \"{}\" is named twice ({} and features)", f, role));
        }
      }
      if (is_reserved(f)) {
        fail_in(
            table,
            fmt::format("column \"{}\" is named twice (subset/group/fold/strata and features)", f));
      }
      seen.push_back(f);
      if (!contains(columns.drop, f)) feature_columns.push_back(&c);
    }
  } else {
    for (const Column& c : table.columns()) {
      if (c.name == columns.label || c.name == columns.weight || is_reserved(c.name) ||
          contains(columns.drop, c.name)) {
        continue;
      }
      feature_columns.push_back(&c);
    }
  }

  for (const Column* c : feature_columns) {
    if (!c->is_numeric()) check_not_stray_text(table, *c);
  }
  check_design_size(table, feature_columns, columns.max_levels);
  Dataset data;
  data.name = std::move(name);
  data.task = task;
  data.n_rows = n;
  for (const Column* c : feature_columns) {
    if (c->is_numeric()) {
      data.feature_names.push_back(c->name);
    } else {
      for (const auto& category : c->categories) {
        data.feature_names.push_back(c->name + "=" + category);
      }
    }
  }
  if (data.feature_names.empty()) {
    fail_in(table, fmt::format("no feature columns left; columns are: {}",
                               fmt::join(table.names(), ", ")));
  }
  data.n_features = data.feature_names.size();
  data.x.assign(n * data.n_features, 0.0);
  std::size_t j0 = 0;
  for (const Column* c : feature_columns) {
    if (c->is_numeric()) {
      for (std::size_t i = 0; i < n; ++i) {
        const double v = c->values[i];
        if (!std::isfinite(v)) {
          fail_at_cell(table, i, c->name,
                       fmt::format("expected a finite feature value, found {} (learners do not "
                                   "impute)",
                                   v));
        }
        data.x[i * data.n_features + j0] = v;
      }
      ++j0;
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        data.x[i * data.n_features + j0 + static_cast<std::size_t>(c->codes[i])] = 1.0;
      }
      j0 += c->categories.size();
    }
  }

  if (task == TaskKind::classification) {
    encode_classes(table, label, data);
  } else {
    read_regression_target(table, label, data);
  }
  if (!columns.weight.empty()) read_weights(table, table.column(columns.weight), data);
  if (table.row_line(0) > 0) {
    data.source = table.source();
    data.row_lines.resize(n);
    for (std::size_t i = 0; i < n; ++i) data.row_lines[i] = table.row_line(i);
  }
  return data;
}

std::string Dataset::row_name(std::size_t i) const {
  if (i < row_lines.size()) return fmt::format("{}:{} (data row {})", source, row_lines[i], i + 1);
  return fmt::format("row {}", i);
}

}  // namespace assay::learners

namespace assay::learners {

void check_dataset(const Dataset& data) {
  const std::string who = "data set " + quote_found(data.name);
  const std::size_t n = data.n_rows, d = data.n_features;
  if (n == 0) fail("{} has no rows, expected at least one", who);
  if (d == 0) fail("{} has no features, expected at least one", who);
  if (data.x.size() != n * d) {
    fail("{}: x has {} values, expected n_rows x n_features = {} x {}", who, data.x.size(), n, d);
  }
  if (!data.feature_names.empty() && data.feature_names.size() != d) {
    fail("{}: {} feature names for {} features", who, data.feature_names.size(), d);
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) {
      const double v = data.x[i * d + j];
      if (!std::isfinite(v)) {
        // Spelled as numpy writes it: scikit-learn's estimator checks look for "NaN".
        fail("{}: feature {} of row {} is {}, expected a finite value (learners do not impute)",
             who, j, i, non_finite_name(v));
      }
    }
  }
  if (data.task == TaskKind::classification) {
    check_same_length(n, data.y_class.size(), who + ": rows", "class codes");
    const std::size_t k = data.classes.size();
    if (k < 2) fail("{} has {} class names, expected at least two", who, k);
    for (std::size_t i = 0; i < n; ++i) {
      if (data.y_class[i] < 0 || static_cast<std::size_t>(data.y_class[i]) >= k) {
        fail("{}: class code {} in row {} is outside 0..{} (the {} classes)", who, data.y_class[i],
             i, k - 1, k);
      }
    }
  } else {
    check_same_length(n, data.y_value.size(), who + ": rows", "targets");
    check_finite(data.y_value, who + ": targets");
  }
  if (!data.weights.empty()) {
    check_same_length(n, data.weights.size(), who + ": rows", "weights");
    check_weights(data.weights, n, who, who + ": weights");
    double total = 0;
    for (const double w : data.weights) total += w;
    // Learners sum weights (class shares, node risks, vote totals): an overflowing sum would
    // silently change their answers.
    if (!std::isfinite(total)) {
      fail("{}: the weights sum to more than the largest double ({}); rescale them", who, total);
    }
  }
}

}  // namespace assay::learners

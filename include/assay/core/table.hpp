// Tables of named columns, as read from CSV files.
//
// Layout: a Table holds columns in file order; every column has n_rows() cells. A column is
// either numeric — values[row] is a double (NaN where the file says "nan", or for an empty cell
// when the reader was told to accept missing cells) — or categorical — codes[row] is an int32
// index into categories, the distinct strings in first-seen order (so codes[0] is 0). Column names
// are unique. A table remembers the file it came from (source()), so that lookups fail like a parse
// error would: `data.csv: no column "score"; columns are: y, p1, p2`.
//
// Example:
//   Table t("data.csv");
//   t.add_column(Column::numeric("score", {0.9, 0.2, 0.4}));
//   t.add_column(Column::categorical("y", {"pos", "neg", "pos"}));
//   t.column("y").codes;          // {0, 1, 0}, categories {"pos", "neg"}
//   sorted_codes(t.column("y"));  // names {"neg", "pos"}, codes {1, 0, 1}
//   t.numeric("p");               // throws: data.csv: no column "p"; columns are: score, y
//
// Requires (add_column): a name not yet taken and as many cells as the columns already there
// (else assay::Error). Ensures: every column has n_rows() cells; lookups by name either find the
// column or throw naming the columns that exist.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "assay/core/error.hpp"

namespace assay {

enum class ColumnKind { numeric, categorical };

struct Column {
  std::string name;
  ColumnKind kind = ColumnKind::numeric;
  /// Numeric columns: one value per row. Empty for categorical columns.
  std::vector<double> values;
  /// Categorical columns: one code per row, an index into `categories`. Empty for numeric ones.
  std::vector<std::int32_t> codes;
  /// Categorical columns: the distinct strings, in the order they were first seen.
  std::vector<std::string> categories;

  bool is_numeric() const { return kind == ColumnKind::numeric; }
  bool is_categorical() const { return kind == ColumnKind::categorical; }
  /// Number of rows (cells) in the column.
  std::size_t size() const { return is_numeric() ? values.size() : codes.size(); }
  /// Categorical columns: the string of one row. Requires: is_categorical(), row < size().
  const std::string& label(std::size_t row) const;
  /// Categorical columns: the string of every row (a copy; codes + categories is cheaper).
  std::vector<std::string> strings() const;

  static Column numeric(std::string name, std::vector<double> values);
  /// Builds codes and categories (first-seen order) from one string per row.
  static Column categorical(std::string name, const std::vector<std::string>& cells);
};

class Table;

/// Throws assay::Error about `table`'s contents, prefixed with its file ("data.csv: message")
/// when it came from one.
[[noreturn]] void fail_in(const Table& table, const std::string& message);

/// A column's distinct values in sorted order and each row's index into them.
struct SortedCodes {
  /// Distinct values as text: numbers in their shortest round-trip form, text as written.
  std::vector<std::string> names;
  /// One code per row, an index into `names`.
  std::vector<std::int32_t> codes;
};

/// Sorts a column's distinct values as numpy's np.unique sorts labels: numerically for a numeric
/// column and for a text column whose every value is a number ("2" before "10"), else bytewise.
/// Requires: no NaN in a numeric column (callers report NaN with their own context).
SortedCodes sorted_codes(const Column& column);

class Table {
 public:
  Table() = default;
  /// `source` names the file the table came from; it prefixes lookup errors ("" = in memory).
  explicit Table(std::string source) : source_(std::move(source)) {}

  /// Appends a column. Throws assay::Error if the name is taken or the row count differs from
  /// the columns already present.
  void add_column(Column column);

  const std::string& source() const { return source_; }
  std::size_t n_rows() const { return columns_.empty() ? 0 : columns_.front().size(); }
  std::size_t n_columns() const { return columns_.size(); }
  const std::vector<Column>& columns() const { return columns_; }
  /// Mutable access, e.g. to move a column's vectors out without copying.
  std::vector<Column>& columns() { return columns_; }
  /// Column names in file order.
  std::vector<std::string> names() const;

  /// The column named `name`, or nullptr.
  const Column* find(std::string_view name) const;
  bool has_column(std::string_view name) const { return find(name) != nullptr; }
  /// The column named `name`; throws assay::Error naming the columns that exist.
  const Column& column(std::string_view name) const;
  Column& column(std::string_view name);
  /// The values of a numeric column; throws assay::Error if it is missing or categorical.
  const std::vector<double>& numeric(std::string_view name) const;

  /// The file line (1-based) each row was read from and the file's field separator, as read_csv
  /// records them; no lines for tables built in memory. Requires: one line per row, or none.
  void set_row_lines(std::vector<std::int64_t> lines, char delimiter = ',');
  char delimiter() const { return delimiter_; }
  /// The file line of `row`, or 0 when unknown.
  std::int64_t row_line(std::size_t row) const {
    return row < row_lines_.size() ? row_lines_[row] : 0;
  }
  /// Where a row is in the file: "data.csv:7" (the line) when known, else "data.csv" — for
  /// messages about a value the caller found in that row. See also cell_location (csv.hpp).
  Location row_location(std::size_t row) const;

 private:
  std::string source_;
  std::vector<Column> columns_;
  std::unordered_map<std::string, std::size_t> index_;  // name -> position in columns_
  std::vector<std::int64_t> row_lines_;
  char delimiter_ = ',';
};

}  // namespace assay

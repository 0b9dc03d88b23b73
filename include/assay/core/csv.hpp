// Reading CSV files into a Table (see table.hpp for the layout).
//
// Format: the first record is the header (column names, unique). Fields are separated by
// `delimiter`; records end with LF or CRLF. RFC 4180 quoting: a field that starts with `"` runs
// to the next lone `"`, may hold delimiters and newlines, and writes a quote as `""`; after the
// closing quote comes a delimiter or the end of the record. A `"` inside an unquoted field is
// kept as a character. A UTF-8 byte order mark is skipped. Blank lines are skipped (as pandas
// does). `#` starts a comment line only when `comments` is set; otherwise it is data.
//
// Types: a column is numeric when every non-empty cell is a number, else categorical (strings,
// kept whole: spaces inside and around text are never trimmed). Numbers are read by
// std::from_chars (correctly rounded), with a leading `+` and spaces/tabs around the number
// accepted (as pandas does); "nan", "inf", "infinity" (any case) are numbers; a number too large
// for a double reads as +-inf. Empty cells (or only spaces) in a numeric column are an error
// ("expected a number, found an empty cell") unless `allow_missing` is set, then they are NaN; in a
// categorical column an empty cell is the category "". A quoted cell is typed by its content ("1.5"
// is a number).
//
// Errors: every problem in the file throws assay::Error with file:line:column of the offending
// cell (1-based; columns count bytes; a wrong field count points at column 1 of the record).
// Problems are reported in reading order (front to back, each record left to right), the same
// with any thread count; an empty cell in a column that turns out numeric is reported only when
// the file has no other problem (the column's type is known only at the end).
//
// Speed: the file is memory-mapped; files without quotes are split at newlines and parsed in
// parallel with identical results to a one-thread parse.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "assay/core/table.hpp"

namespace assay {

struct CsvParams {
  /// Columns read as categorical even when every cell is a number (class labels "1", "2").
  /// Default: none. Naming a column that is not in the file is an error.
  std::vector<std::string> categorical;
  /// Columns that must be numeric: a cell that is not a number is an error. Default: none.
  std::vector<std::string> numeric;
  /// Empty cells in numeric columns read as NaN. Default false: they are an error.
  bool allow_missing = false;
  /// Lines whose first byte is `#` are skipped. Default false: `#` is ordinary data.
  bool comments = false;
  /// Field separator. Default ','.
  char delimiter = ',';
  /// Worker threads for parsing (0 = all cores). The result does not depend on it.
  int threads = 0;
  /// Bytes per parallel work item (default 4 MiB); small values exist for tests.
  std::size_t chunk_bytes = std::size_t{4} << 20;
};

/// Reads a CSV file; throws assay::Error (with file:line:col) on any problem. A file with only
/// a header gives a table with 0 rows and every column numeric (callers decide if that is an
/// error). Errors for the file itself: "x.csv: cannot open: <reason>", "x.csv: empty file,
/// expected a header row".
Table read_csv(const std::string& path, const CsvParams& params = {});

/// Writes a table as CSV (header, LF line ends): numbers in their shortest round-trip form, NaN
/// as "NaN" and infinities as "Inf"/"-Inf" (read back by read_csv, pandas and R); strings
/// quoted (RFC 4180) only when they hold a comma, quote, CR or LF (a string that looks like a
/// number reads back as one: readers type cells by content). Throws assay::Error if the file cannot
/// be written.
void write_csv(const Table& table, const std::string& path);

/// The CSV text write_csv writes.
std::string format_csv(const Table& table);

/// Same, for CSV text in memory; `name` stands for the file name in messages.
Table parse_csv(std::string_view text, const std::string& name, const CsvParams& params = {});

}  // namespace assay

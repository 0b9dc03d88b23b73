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
// ("expected a number, found an empty cell") unless `allow_missing` is set, then they are NaN. An
// empty unquoted cell in a categorical column is a missing value too: an error ("expected a value
// in text column "c", found an empty cell") unless `allow_missing` is set, then it is the category
// "" (codes have no NaN); a quoted empty cell `""` is the empty string, the category "". A quoted
// cell is typed by its content ("1.5" is a number). An integer a double cannot hold exactly (an id
// such as 9007199254740993, beyond 2^53) makes a column that is not named numeric categorical, so
// ids stay exact and distinct.
//
// Missing values: an unquoted NA, N/A or #N/A (R's write.csv, Excel's error value) in a column
// whose other cells are numbers is a missing value, like an empty cell (quoted, "NA" is text).
//
// Text: the file must be UTF-8 (ASCII included): any other byte is an error before anything else
// is read ("expected UTF-8 text, found byte 0xE9"), so that no output ever holds invalid text; a
// NUL byte is never text ("found a NUL byte": binary data, UTF-16, /dev/zero), nor is a UTF-16
// byte order mark (Excel's "Unicode Text"). Pipes, FIFOs, /dev/stdin and /proc files are read to
// their end (a regular file is mapped), up to a limit (max_stream_bytes) checked as they are read.
//
// Separators: `delimiter` and `decimal` say how the file separates fields and writes decimals.
// When no delimiter is given, the header decides: a header with no ',' outside quotes but ';' or
// tabs (one of the two only) is read with that separator, and a note (warn, WarningKind::note)
// says so; a detected ';' brings the decimal comma too ("0,5" is 0.5; Excel's CSV where the
// decimal mark is a comma, R's write.csv2) unless a decimal is given. Otherwise ',' is used, and
// a header row that is one unquoted field holding ',', ';' or a tab other than the delimiter is
// refused, naming the separator ("expected ',' between column names, found ';'"): a file with
// both ';' and tabs in its header, or a ';'-separated file read with an explicit ',', would
// otherwise read as one column.
//
// Errors: every problem in the file throws assay::Error with file:line:column of the offending
// cell (1-based; columns count bytes; a wrong field count points at column 1 of the record).
// Problems are reported in reading order (front to back, each record left to right), the same
// with any thread count; an empty cell in a column that turns out numeric is reported only when
// the file has no other problem (the column's type is known only at the end).
//
// Example:
//   Table t = parse_csv("id,y,p\n7,yes,0.9\n8,no,0.2\n", "mem.csv", {.categorical = {"id"}});
//   t.n_rows();                    // 2
//   t.column("y").categories;      // {"yes", "no"} (first-seen order); codes {0, 1}
//   t.numeric("p");                // {0.9, 0.2}
//   t.column("id").categories;     // {"7", "8"}: named in params.categorical
//   parse_csv("y,p\n1,x\n", "mem.csv", {.numeric = {"p"}});
//   // throws assay::Error: mem.csv:2:3: expected a number, found "x"
//
// How the file is read (memory-mapped, parsed in parallel chunks): docs/performance.md.
#pragma once

#include <cstddef>
#include <optional>
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
  /// Field separator (',', ';', '\t', '|', ...). Unset (default): ',' unless the header is
  /// separated by ';' or tabs (see Separators above: detected, with a note).
  std::optional<char> delimiter;
  /// Decimal mark of numbers: '.' or ',' (then "0,5" reads as 0.5 and "0.5" still as 0.5; the
  /// delimiter must be another character, e.g. ';' as European Excel writes). Unset (default):
  /// ',' when ';' was detected, else '.'.
  std::optional<char> decimal;
  /// The most bytes read from a stream (pipe, FIFO, /dev/stdin; a regular file is mapped, not
  /// copied). 0 (default): the environment variable ASSAY_MAX_STREAM_BYTES if set, else a third
  /// of the memory this process can allocate when reading starts (the table parsed from the text
  /// needs up to twice as much again). More is refused as soon as it arrives, naming the limit.
  std::size_t max_stream_bytes = 0;
  /// Worker threads for parsing (0 = all cores). The result does not depend on it.
  int threads = 0;
  /// Bytes per parallel work item (default 4 MiB); small values exist for tests.
  std::size_t chunk_bytes = std::size_t{4} << 20;
};

/// Reads a CSV file; throws assay::Error (with file:line:col) on any problem. A file with only
/// a header gives a table with 0 rows and every column numeric (callers decide if that is an
/// error). Errors for the file itself: "x.csv: cannot open: <reason>", "x.csv: empty file,
/// expected a header row", "/dev/stdin: cannot read: the stream holds more than 1000000 bytes
/// (the limit for a stream: ASSAY_MAX_STREAM_BYTES=1000000); ...".
Table read_csv(const std::string& path, const CsvParams& params = {});

/// Writes a table as CSV (header, LF line ends): numbers in their shortest round-trip form, NaN
/// as "NaN" and infinities as "Inf"/"-Inf" (read back by read_csv, pandas and R); strings
/// quoted (RFC 4180) only when they are empty or hold a comma, quote, CR or LF (a string that looks
/// like a number reads back as one: readers type cells by content). Throws assay::Error if the file
/// cannot be written.
void write_csv(const Table& table, const std::string& path);

/// The CSV text write_csv writes.
std::string format_csv(const Table& table);

/// Same, for CSV text in memory; `name` stands for the file name in messages.
Table parse_csv(std::string_view text, const std::string& name, const CsvParams& params = {});

/// A delimiter as a person writes it (--delimiter, Python's delimiter=, a batch registry's
/// definition): one character such as ",", ";" or "|"; "tab" or "\\t" (backslash, t) for a tab;
/// "auto" for none given (detected from the header). Anything else, and characters that could be
/// part of a number or a quote, throw assay::Error: "<what>: expected one character such as ','
/// ';' '|', tab or auto, found \"ab\"" (no "<what>: " when `what` is empty).
std::optional<char> parse_delimiter(std::string_view text, std::string_view what);

/// A decimal mark as a person writes it: "." or ","; "auto" for none given ('.' unless ';' was
/// detected). Else assay::Error: "<what>: expected '.', ',' or auto, found \"x\"".
std::optional<char> parse_decimal(std::string_view text, std::string_view what);

/// Where the cell of `row` (0-based data row) in `column` of a table read by read_csv is:
/// "data.csv:7:12" (the file is read again to find the byte column), "data.csv:7" when the file
/// cannot be read again (a pipe, a table parsed from memory), "data.csv" when the table does not
/// know its lines. For messages about a value found in a cell.
Location cell_location(const Table& table, std::size_t row, std::string_view column);

/// Throws assay::Error about the value in `row` of `column`: "data.csv:7:12: column "x": <message>"
/// when the row's line is known, else "data.csv: column "x", data row 6: <message>" (tables built
/// in memory, e.g. from a DataFrame, prefixed with their source when they have one).
[[noreturn]] void fail_at_cell(const Table& table, std::size_t row, std::string_view column,
                               const std::string& message);

}  // namespace assay

#include "assay/core/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include <fmt/ranges.h>

#include "assay/core/error.hpp"
#include "core/names.hpp"

namespace assay {

namespace {
[[noreturn]] void fail_for(const std::string& source, const std::string& message) {
  if (source.empty()) throw Error(message);
  throw Error(Location{source}, message);
}
}  // namespace

const std::string& Column::label(std::size_t row) const {
  ASSAY_ASSERT(is_categorical() && row < codes.size());
  return categories[static_cast<std::size_t>(codes[row])];
}

std::vector<std::string> Column::strings() const {
  std::vector<std::string> out;
  out.reserve(codes.size());
  for (std::int32_t code : codes) out.push_back(categories[static_cast<std::size_t>(code)]);
  return out;
}

Column Column::numeric(std::string name, std::vector<double> values) {
  Column c;
  c.name = std::move(name);
  c.kind = ColumnKind::numeric;
  c.values = std::move(values);
  return c;
}

Column Column::categorical(std::string name, const std::vector<std::string>& cells) {
  Column c;
  c.name = std::move(name);
  c.kind = ColumnKind::categorical;
  c.codes.reserve(cells.size());
  std::unordered_map<std::string_view, std::int32_t> index;
  for (const std::string& cell : cells) {
    auto [it, inserted] = index.try_emplace(cell, static_cast<std::int32_t>(c.categories.size()));
    if (inserted) c.categories.push_back(cell);
    c.codes.push_back(it->second);
  }
  return c;
}

void Table::add_column(Column column) {
  // The index, not find(): a scan per added column made reading 300,000 columns quadratic.
  if (auto it = index_.find(column.name); it != index_.end() && it->second < columns_.size() &&
                                          columns_[it->second].name == column.name) {
    fail_for(source_, fmt::format("duplicate column name {}", quote_found(column.name)));
  }
  if (!columns_.empty() && column.size() != n_rows()) {
    fail_for(source_, fmt::format("column {} has {} rows, expected {} like the other columns",
                                  quote_found(column.name), column.size(), n_rows()));
  }
  index_.insert_or_assign(column.name, columns_.size());
  columns_.push_back(std::move(column));
}

void Table::set_row_lines(std::vector<std::int64_t> lines, char delimiter) {
  ASSAY_ASSERT(lines.empty() || lines.size() == n_rows());
  row_lines_ = std::move(lines);
  delimiter_ = delimiter;
}

Location Table::row_location(std::size_t row) const {
  return Location{source_, row_line(row), 0};
}

std::vector<std::string> Table::names() const {
  std::vector<std::string> out;
  out.reserve(columns_.size());
  for (const Column& c : columns_) out.push_back(c.name);
  return out;
}

const Column* Table::find(std::string_view name) const {
  // columns() gives mutable access, so a hit is confirmed and a miss falls back to a scan (a
  // renamed column is still found).
  if (auto it = index_.find(std::string(name));
      it != index_.end() && it->second < columns_.size() && columns_[it->second].name == name) {
    return &columns_[it->second];
  }
  for (const Column& c : columns_) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const Column& Table::column(std::string_view name) const {
  if (const Column* c = find(name)) return *c;
  fail_for(source_,
           fmt::format("no column {}; columns are: {}", quote_found(name), join_names(names())));
}

Column& Table::column(std::string_view name) {
  return const_cast<Column&>(static_cast<const Table&>(*this).column(name));
}

const std::vector<double>& Table::numeric(std::string_view name) const {
  const Column& c = column(name);
  if (!c.is_numeric()) {
    fail_for(source_,
             fmt::format(
                 "column {} holds text (e.g. {}), expected numbers", quote_found(name),
                 c.categories.empty() ? std::string("\"\"") : quote_found(c.categories.front())));
  }
  return c.values;
}

namespace {

// The whole string is one finite number.
bool parse_finite(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

}  // namespace

std::string join_names(const std::vector<std::string>& names) {
  // Names with a comma, a quote, a control character or invalid UTF-8 are quoted and escaped.
  const auto shown = [](const std::string& name) {
    bool plain = invalid_utf8_at(name) == std::string_view::npos && !name.empty();
    for (const char c : name) {
      plain = plain && static_cast<unsigned char>(c) >= 0x20 && c != 0x7F && c != ',' && c != '"';
    }
    return plain ? name : quote_found(name);
  };
  // A vector, not std::views::transform: clang 14 with libstdc++ 12 cannot compile the view
  // (the sanitizer build uses clang).
  std::vector<std::string> shown_names;
  shown_names.reserve(names.size());
  for (const auto& name : names) shown_names.push_back(shown(name));
  return fmt::format("{}", fmt::join(shown_names, ", "));
}

void fail_in(const Table& table, const std::string& message) {
  fail_for(table.source(), message);
}

SortedCodes sorted_codes(const Column& column) {
  SortedCodes out;
  const std::size_t n = column.size();
  out.codes.resize(n);
  if (column.is_numeric()) {
    std::vector<double> distinct(column.values.begin(), column.values.end());
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    for (double v : distinct) out.names.push_back(fmt::format("{}", v));
    for (std::size_t r = 0; r < n; ++r) {
      out.codes[r] = static_cast<std::int32_t>(
          std::lower_bound(distinct.begin(), distinct.end(), column.values[r]) - distinct.begin());
    }
    return out;
  }
  const auto& cats = column.categories;
  std::vector<double> number(cats.size());
  bool all_numbers = !cats.empty();
  for (std::size_t k = 0; k < cats.size() && all_numbers; ++k) {
    all_numbers = parse_finite(cats[k], &number[k]);
  }
  std::vector<std::int32_t> order(cats.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    if (all_numbers && number[a] != number[b]) return number[a] < number[b];
    return cats[a] < cats[b];
  });
  std::vector<std::int32_t> rank(cats.size());
  for (std::size_t j = 0; j < order.size(); ++j) {
    rank[static_cast<std::size_t>(order[j])] = static_cast<std::int32_t>(j);
    out.names.push_back(cats[static_cast<std::size_t>(order[j])]);
  }
  for (std::size_t r = 0; r < n; ++r)
    out.codes[r] = rank[static_cast<std::size_t>(column.codes[r])];
  return out;
}

}  // namespace assay

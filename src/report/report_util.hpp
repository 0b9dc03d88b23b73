// Helpers shared by the report renderers (private to the report layer): the common Vega-Lite
// spec skeleton and expressions (defined in charts.cpp) and plain-text tables (evaluation.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "assay/core/json.hpp"
#include "assay/report/charts.hpp"

namespace assay::report::detail {

/// A spec with $schema, title (params.title or `default_title`), description, size and the
/// house config (fonts, series_palette() colours).
Json base_spec(const ChartParams& params, const std::string& default_title,
               const std::string& description);
/// A number for chart data; NaN and infinities become null.
Json json_number(double value);
/// Vega expression: datum[field] is a finite number.
std::string finite(const std::string& field);
/// A tooltip entry; quantitative with d3 `format` when given, else nominal.
Json tooltip(const char* field, const char* title, const char* format = nullptr);
Json string_array(const std::vector<std::string>& values);
/// Past series_palette()'s 20 colours: a subtitle saying that colours repeat (tooltips name
/// each series); fewer series: nothing.
void note_repeated_colours(Json& spec, std::size_t n_series);
/// Grey used for guides (diagonals, reference rules).
extern const char* const kGuideGrey;
/// A dashed grey line layer through `points` ({x_field: ..., y_field: ...} objects), without
/// tooltips: the guides under the data (chance diagonal, y = x, zero residual).
Json dashed_guide_line(Json points, const char* x_field, const char* y_field);

/// 4 decimals, "NaN" (kMissingText) for NaN.
std::string fixed4(double value);
/// A column-aligned text table (header line, then rows): the first `left_aligned` columns are
/// left-aligned (labels), the rest right-aligned (numbers); widths count UTF-8 code points.
/// Numbers as the pages show them (unify_number_columns, html.hpp): one format per column,
/// "NaN" for missing values.
std::string text_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows,
                       std::size_t left_aligned = 1);

}  // namespace assay::report::detail

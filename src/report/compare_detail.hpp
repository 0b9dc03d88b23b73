// Private to the report layer: the blocks of a comparison's page (compare.hpp's compare_html and
// add_compare_blocks, which `assay report`'s [compare] section draws with).
#pragma once

#include <string>
#include <vector>

#include "assay/compare/compare.hpp"
#include "assay/compare/gates.hpp"
#include "assay/report/html.hpp"

namespace assay::report::detail {

/// Sub-headings of the comparison's blocks are at `level` (2 on its own page, 3 in the
/// overview); CSV downloads are named "compare-*".
struct CompareBlocks {
  const compare::CompareResult& result;
  const std::vector<compare::GateOutcome>& gates;
  int level = 2;
};

/// Forest plot of the differences (NaN-free ones; nothing when there is none).
void add_forest_plot(HtmlReport& page, const CompareBlocks& blocks);
/// Per-model metrics with intervals and operating-point thresholds.
void add_model_table(HtmlReport& page, const CompareBlocks& blocks);
/// The differences with every test's details.
void add_difference_tables(HtmlReport& page, const CompareBlocks& blocks);
/// Slice charts (one per metric), the slice table and the worst slices; nothing without slices.
void add_slice_blocks(HtmlReport& page, const CompareBlocks& blocks);
/// The gate table; nothing without gates.
void add_gate_table(HtmlReport& page, const CompareBlocks& blocks);
/// Everything above in page order, then the notes.
void add_compare_body(HtmlReport& page, const CompareBlocks& blocks);

}  // namespace assay::report::detail

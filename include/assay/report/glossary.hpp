// The glossary of the report pages: one definition per abbreviation a table may show (R-AUC,
// PRR, AP, ECE, nDSC, Same/Other/All, ...), written once here and shown beside every table that
// uses the term (HtmlReport::add_table / add_data_table find the terms; add_glossary adds some
// by hand).
//
// Finding terms: a text is split into words at every character that is not a letter or a digit
// (bytes of non-ASCII characters count as letters, so "R²" is one word), compared without case.
// A term matches where its words follow each other in the text, the longest term first: "ROC
// AUC" in "ROC AUC (one-vs-rest, macro)", R-AUC in "patient_r_auc", F1@95 in "f1_at_95" (an
// alias), and "ROC AUC" is not also counted as "AUC".
//
// Example:
//   using Texts = std::vector<std::string>;
//   glossary_terms_in(Texts{"set", "model", "R-AUC", "PRR", "F1@95"});  // R-AUC, PRR, F1@95
//   glossary_terms_in(Texts{"ndsc_r_auc_mean"});                        // nDSC R-AUC
//   glossary_entry("PRR")->definition;   // "prediction rejection ratio: ..."
//
// Terms that are ordinary words (Same, Other, All) are never found in text; a page names them
// (TableOptions::glossary, HtmlReport::add_glossary). Definitions say how assay computes the
// number; a definition that depends on an option says which option.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace assay::report {

/// One abbreviation and what it means.
struct GlossaryEntry {
  /// The term as pages print it ("R-AUC").
  std::string_view term;
  /// One or two sentences, true to how assay computes it.
  std::string_view definition;
  /// Other spellings found in tables (column names such as "r_auc"); "" = none.
  std::string_view alias = {};
  /// Found in table text by glossary_terms_in; false for ordinary words (Same, Other, All).
  bool found_in_text = true;
};

/// Every entry, in the order pages list them.
std::span<const GlossaryEntry> glossary();

/// The entry of `term` (its term or alias, without case), or nullptr.
const GlossaryEntry* glossary_entry(std::string_view term);

/// The terms (GlossaryEntry::term) that occur in `texts`, each once, in order of appearance.
std::vector<std::string> glossary_terms_in(std::span<const std::string> texts);

}  // namespace assay::report

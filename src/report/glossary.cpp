#include "assay/report/glossary.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>

namespace assay::report {
namespace {

// The one dictionary. Each definition follows the code that computes the number (docs/shift.md,
// docs/segmentation.md, docs/metrics_classification.md, docs/compare.md, docs/soak.md).
constexpr std::array kEntries{
    // Classification (metrics, compare, cv, soak pages).
    GlossaryEntry{"ROC AUC",
                  "area under the ROC curve (true against false positive rate over every "
                  "threshold): the chance that a random positive scores above a random negative, "
                  "ties counting half; 0.5 = chance. Multi-class: the macro mean of the "
                  "one-vs-rest AUCs.",
                  "roc_auc"},
    GlossaryEntry{"OOD AUROC",
                  "ROC AUC of the uncertainty as a detector of shifted (out-of-domain) samples "
                  "against in-domain ones, in sets that hold both; 0.5 = chance.",
                  "ood_auroc"},
    GlossaryEntry{"AUC",
                  "area under the ROC curve (ROC AUC): the chance that a random positive scores "
                  "above a random negative; 0.5 = chance."},
    GlossaryEntry{"mAP", "mean over the classes of their one-vs-rest average precision (AP)."},
    GlossaryEntry{"AP",
                  "average precision: the area under the precision-recall curve, by the "
                  "method the page names (step by default: the sum over thresholds of precision "
                  "times the gain in recall, as scikit-learn)."},
    GlossaryEntry{"MCC",
                  "Matthews correlation coefficient: the correlation between true and predicted "
                  "labels, from \u22121 to 1 (0 = chance), from the confusion matrix as "
                  "scikit-learn's matthews_corrcoef; NaN when only one class is true or "
                  "predicted."},
    GlossaryEntry{"ECE",
                  "expected calibration error: over the calibration bins (15 of equal width by "
                  "default), the weight-averaged gap |observed frequency \u2212 mean predicted "
                  "probability|; binary: of the positive class, multi-class: of the top label."},
    GlossaryEntry{"MCE",
                  "maximum calibration error: the largest gap |observed frequency \u2212 mean "
                  "predicted probability| over the non-empty calibration bins."},
    GlossaryEntry{"F1-AUC",
                  "area under the F1-retention curve: the F1 of acceptable predictions (error at "
                  "most the acceptable threshold) among the retained, against the retained "
                  "fraction, most uncertain rejected first; higher is better.",
                  "f1_auc"},
    GlossaryEntry{"F1@95",
                  "the F1-retention curve at 95% retained: the F1 of acceptable predictions when "
                  "the 5% most uncertain are rejected.",
                  "f1_at_95"},
    GlossaryEntry{"lesion F1",
                  "F1 over lesions (connected components): a predicted lesion is a true positive "
                  "when its IoU with a true lesion reaches the IoU threshold; a true lesion "
                  "without such a match is a false negative."},
    GlossaryEntry{"F1", "harmonic mean of precision and recall, 2PR / (P + R)."},
    GlossaryEntry{"TP", "true positives: positive predictions that are right."},
    GlossaryEntry{"FP", "false positives: positive predictions that are wrong."},
    GlossaryEntry{"TN", "true negatives: negative predictions that are right."},
    GlossaryEntry{"FN", "false negatives: negative predictions that are wrong."},
    // Comparisons.
    GlossaryEntry{"DeLong",
                  "DeLong's test of two correlated ROC AUCs on the same examples (paired, as R's "
                  "pROC roc.test): the difference over its standard error, a normal z."},
    GlossaryEntry{"McNemar",
                  "exact McNemar test: a two-sided binomial test on the examples only one of "
                  "the two models gets right."},
    GlossaryEntry{"BCa",
                  "bias-corrected and accelerated bootstrap interval (as SciPy's method=\"BCa\"): "
                  "the percentile interval corrected for a skewed or biased bootstrap "
                  "distribution."},
    // Regression and shift.
    GlossaryEntry{"RMSE", "root mean squared error: \u221a(mean of (y \u2212 \u0177)\u00b2)."},
    GlossaryEntry{"MAE", "mean absolute error: mean of |y \u2212 \u0177|."},
    GlossaryEntry{"MAPE",
                  "mean absolute percentage error, as a fraction: mean of |y \u2212 \u0177| / "
                  "max(|y|, 2\u207b\u2075\u00b2) (scikit-learn's)."},
    GlossaryEntry{"R\u00b2",
                  "coefficient of determination: 1 \u2212 (sum of squared errors) / (sum of "
                  "squared deviations of y from its mean); 1 = perfect, 0 = no better than the "
                  "mean; for constant y 1 when every prediction is right, else 0.",
                  "R2"},
    GlossaryEntry{"nDSC R-AUC",
                  "area above the nDSC-retention curve (1 \u2212 the area under nDSC against the "
                  "retained fraction, the most uncertain rejected first): lower is better.",
                  "ndsc_r_auc"},
    GlossaryEntry{"R-AUC",
                  "area under the error-retention curve: the error summed over the retained "
                  "predictions and divided by n (rejected ones replaced by the truth), against "
                  "the retained fraction, the most uncertain rejected first; it falls with "
                  "lower errors and with uncertainty that ranks errors well. Lower is better.",
                  "r_auc"},
    GlossaryEntry{"PRR",
                  "prediction rejection ratio: (random area \u2212 R-AUC) / (random area "
                  "\u2212 oracle area) of the error-retention curve; 1 = the uncertainty ranks "
                  "errors like an oracle, 0 = like chance, below 0 = worse than chance."},
    GlossaryEntry{"AURC",
                  "area under the risk-coverage curve (fd-shifts): the mean error of the "
                  "retained predictions against the retained fraction (coverage), the most "
                  "uncertain rejected first. Lower is better."},
    GlossaryEntry{"AUGRC",
                  "area under the generalised risk-coverage curve (fd-shifts): the error summed "
                  "over the retained predictions and divided by n, against coverage. Lower is "
                  "better."},
    // Segmentation.
    GlossaryEntry{"nDSC",
                  "normalised Dice similarity coefficient, 2TP / (2TP + k\u00b7FP + FN) over "
                  "voxels, with false positives rescaled by k to a reference lesion load r (the "
                  "Shifts 2.0 benchmark), so that it does not grow with the lesion load."},
    GlossaryEntry{"DSC",
                  "Dice similarity coefficient: 2TP / (2TP + FP + FN) over the voxels of the "
                  "predicted and true masks."},
    GlossaryEntry{"IoU", "intersection over union of two masks: |A \u2229 B| / |A \u222a B|."},
    // SOAK: ordinary words, named by the pages that use them.
    GlossaryEntry{"Same", "trained on the test subset's own rows of the other folds (SOAK).", "",
                  false},
    GlossaryEntry{"Other",
                  "trained on the other subsets' rows of the other folds, never on the test "
                  "subset (SOAK).",
                  "", false},
    GlossaryEntry{"All", "trained on every subset's rows of the other folds (SOAK).", "", false},
};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Letters, digits and every byte of a non-ASCII character are word characters.
bool is_word_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalnum(u);
}

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  for (char c : text) {
    if (is_word_char(c)) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      out.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

struct Pattern {
  std::size_t entry;
  std::vector<std::string> words;
};

// Every spelling of every term found in text, the longest (most words) first.
const std::vector<Pattern>& patterns() {
  static const std::vector<Pattern> all = [] {
    std::vector<Pattern> out;
    for (std::size_t i = 0; i < kEntries.size(); ++i) {
      if (!kEntries[i].found_in_text) continue;
      out.push_back({i, words(kEntries[i].term)});
      if (!kEntries[i].alias.empty()) out.push_back({i, words(kEntries[i].alias)});
    }
    std::stable_sort(out.begin(), out.end(), [](const Pattern& a, const Pattern& b) {
      return a.words.size() > b.words.size();
    });
    return out;
  }();
  return all;
}

bool matches_at(const std::vector<std::string>& text, std::size_t at, const Pattern& p) {
  if (at + p.words.size() > text.size()) return false;
  return std::equal(p.words.begin(), p.words.end(), text.begin() + at);
}

}  // namespace

std::span<const GlossaryEntry> glossary() {
  return kEntries;
}

const GlossaryEntry* glossary_entry(std::string_view term) {
  const std::string key = lower(term);
  for (const auto& e : kEntries) {
    if (lower(e.term) == key || (!e.alias.empty() && lower(e.alias) == key)) return &e;
  }
  return nullptr;
}

std::vector<std::string> glossary_terms_in(std::span<const std::string> texts) {
  std::vector<std::size_t> order;  // entries in order of first appearance
  for (const auto& text : texts) {
    const auto w = words(text);
    for (std::size_t at = 0; at < w.size();) {
      std::size_t step = 1;
      for (const auto& p : patterns()) {
        if (matches_at(w, at, p)) {
          if (std::find(order.begin(), order.end(), p.entry) == order.end())
            order.push_back(p.entry);
          step = p.words.size();
          break;
        }
      }
      at += step;
    }
  }
  std::vector<std::string> out;
  for (std::size_t i : order) out.emplace_back(kEntries[i].term);
  return out;
}

}  // namespace assay::report

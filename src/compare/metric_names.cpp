// The names of compare's metrics and options: canonical spellings, aliases, directions.
#include <fmt/ranges.h>
#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "assay/compare/compare.hpp"
#include "assay/compare/operating_point.hpp"
#include "assay/core/error.hpp"
#include "assay/core/names.hpp"

namespace assay::compare {
namespace {

const std::vector<std::string> kBinary = {"roc_auc",     "average_precision",
                                          "brier",       "log_loss",
                                          "accuracy",    "balanced_accuracy",
                                          "precision",   "recall",
                                          "specificity", "fpr",
                                          "f1",          "mcc"};
const std::vector<std::string> kMulticlass = {
    "accuracy",        "balanced_accuracy", "f1_macro", "f1_weighted",
    "precision_macro", "recall_macro",      "mcc",      "log_loss",
    "roc_auc",         "average_precision"};
const std::vector<std::string> kRegression = {"mae", "mse", "rmse", "r2", "mape"};

struct Alias {
  std::string_view alias;
  std::string_view name;
};
constexpr std::array kAliases{Alias{"auc", "roc_auc"},
                              Alias{"roc", "roc_auc"},
                              Alias{"roc_auc_score", "roc_auc"},
                              Alias{"ap", "average_precision"},
                              Alias{"map", "average_precision"},
                              Alias{"average_precision_score", "average_precision"},
                              Alias{"brier_score", "brier"},
                              Alias{"brier_score_loss", "brier"},
                              Alias{"logloss", "log_loss"},
                              Alias{"cross_entropy", "log_loss"},
                              Alias{"acc", "accuracy"},
                              Alias{"accuracy_score", "accuracy"},
                              Alias{"balanced_accuracy_score", "balanced_accuracy"},
                              Alias{"tpr", "recall"},
                              Alias{"sensitivity", "recall"},
                              Alias{"recall_score", "recall"},
                              Alias{"tnr", "specificity"},
                              Alias{"precision_score", "precision"},
                              Alias{"f1_score", "f1"},
                              Alias{"matthews_corrcoef", "mcc"},
                              Alias{"mean_absolute_error", "mae"},
                              Alias{"mean_squared_error", "mse"},
                              Alias{"root_mean_squared_error", "rmse"},
                              Alias{"r2_score", "r2"},
                              Alias{"mean_absolute_percentage_error", "mape"},
                              Alias{"macro_f1", "f1_macro"},
                              Alias{"weighted_f1", "f1_weighted"}};

std::string normalised(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == ' ' || c == '\t') continue;
    out += c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string task_words(Task task) {
  switch (task) {
    case Task::binary:
      return "binary labels";
    case Task::multiclass:
      return "multi-class labels";
    case Task::regression:
      return "regression targets";
    case Task::automatic:
      break;
  }
  return "any task";
}

}  // namespace

// "WHAT: " before a refusal, or nothing when the caller names the option itself.
std::string named(std::string_view what) {
  return what.empty() ? std::string() : std::string(what) + ": ";
}

Task parse_task(const std::string& name, std::string_view what) {
  if (name == "auto") return Task::automatic;
  if (name == "binary") return Task::binary;
  if (name == "multiclass") return Task::multiclass;
  if (name == "regression") return Task::regression;
  fail("{}expected auto, binary, multiclass or regression, found {}", named(what),
       quote_found(name));
}

std::string to_string(Task task) {
  switch (task) {
    case Task::binary:
      return "binary";
    case Task::multiclass:
      return "multiclass";
    case Task::regression:
      return "regression";
    case Task::automatic:
      break;
  }
  return "auto";
}

TestKind parse_test(const std::string& name, std::string_view what) {
  if (name == "auto") return TestKind::automatic;
  if (name == "bootstrap") return TestKind::bootstrap;
  if (name == "permutation") return TestKind::permutation;
  fail("{}expected auto, bootstrap or permutation, found {}", named(what), quote_found(name));
}

bool parse_pairs(const std::string& name, std::string_view what) {
  if (name == "baseline" || name == "all") return name == "all";
  fail("{}expected baseline or all, found {}", named(what), quote_found(name));
}

Correction parse_correction(const std::string& name, std::string_view what) {
  if (name == "holm") return Correction::holm;
  if (name == "bonferroni") return Correction::bonferroni;
  if (name == "fdr_bh") return Correction::fdr_bh;
  if (name == "none") return Correction::none;
  fail("{}expected holm, bonferroni, fdr_bh or none, found {}", named(what), quote_found(name));
}

std::string to_string(Correction correction) {
  switch (correction) {
    case Correction::holm:
      return "Holm";
    case Correction::bonferroni:
      return "Bonferroni";
    case Correction::fdr_bh:
      return "Benjamini-Hochberg";
    case Correction::none:
      break;
  }
  return "none";
}

std::vector<std::string> metric_names(Task task) {
  switch (task) {
    case Task::binary:
      return kBinary;
    case Task::multiclass:
      return kMulticlass;
    case Task::regression:
      return kRegression;
    case Task::automatic:
      break;
  }
  std::vector<std::string> all = kBinary;
  for (const auto* list : {&kMulticlass, &kRegression}) {
    for (const auto& n : *list) {
      if (std::find(all.begin(), all.end(), n) == all.end()) all.push_back(n);
    }
  }
  return all;
}

std::string canonical_metric(const std::string& name, Task task) {
  if (is_point_metric(name)) {
    if (task == Task::multiclass || task == Task::regression) {
      fail("metric {}: operating points need binary labels, found {}", quote_found(name),
           task_words(task));
    }
    return parse_point_metric(name).text;
  }
  std::string key = normalised(name);
  for (const auto& a : kAliases) {
    if (key == a.alias) key = std::string(a.name);
  }
  const auto known = metric_names(task);
  if (std::find(known.begin(), known.end(), key) != known.end()) return key;
  std::string hint;
  std::size_t best = 3;
  for (const auto& k : known) {
    if (const std::size_t d = edit_distance(key, k); d < best) {
      best = d;
      hint = "did you mean \"" + k + "\"? ";
    }
  }
  fail(
      "unknown metric {} for {} ({}known: {}; or an operating point such as "
      "recall@precision>=0.9)",
      quote_found(name), task_words(task), hint, joined(known));
}

bool metric_higher_is_better(const std::string& canonical_name) {
  if (is_point_metric(canonical_name)) {
    return higher_is_better(parse_point_metric(canonical_name).metric);
  }
  static const std::array<std::string_view, 8> kLower{"brier", "log_loss", "fpr",  "mae",
                                                      "mse",   "rmse",     "mape", "fnr"};
  return std::find(kLower.begin(), kLower.end(), canonical_name) == kLower.end();
}

}  // namespace assay::compare

// SOAK experiments and their statistics: _assay.soak_run, _assay.soak_score (one split's
// measures), _assay.soak_statistics and the two t-tests (assay.soak wraps them). Results travel as
// dicts of columns, the layout of soak::results_table, so results computed in Python (the user's
// own estimators) go through the same statistics.
#include <optional>
#include <set>

#include "assay/learners/dataset.hpp"
#include "assay/report/cv.hpp"
#include "assay/report/soak.hpp"
#include "assay/soak/cv.hpp"
#include "assay/soak/experiment.hpp"
#include "assay/soak/statistics.hpp"
#include "bindings.hpp"

namespace assay::python {
namespace {

// Columns of the results that hold counts; they come back as int64 arrays.
bool is_integer_column(const std::string& name) {
  static const std::set<std::string> names{"test.fold", "seed",    "groups", "n.train.groups",
                                           "iteration", "n_train", "n_test", "n",
                                           "n_pairs",   "n_failed"};
  return names.count(name) > 0;
}

/// Table -> {name: numpy array (numeric; int64 for counts) or list[str] (text)}.
py::dict table_to_dict(Table&& table) {
  py::dict out;
  for (Column& c : table.columns()) {
    if (c.is_numeric()) {
      if (is_integer_column(c.name)) {
        std::vector<std::int64_t> v(c.values.begin(), c.values.end());
        out[py::str(c.name)] = to_numpy(std::move(v));
      } else {
        out[py::str(c.name)] = to_numpy(std::move(c.values));
      }
    } else {
      py::list cells;
      for (std::int32_t code : c.codes) cells.append(py::str(c.categories[std::size_t(code)]));
      out[py::str(c.name)] = cells;
    }
  }
  return out;
}

/// {name: array-like} -> Table: numeric dtypes (bool, int, float) become numeric columns, every
/// other column text (None and float NaN read as "").
Table dict_to_table(const py::dict& columns) {
  py::module_ np = py::module_::import("numpy");
  Table table;
  for (auto item : columns) {
    const std::string name = py::str(item.first);
    py::array a = np.attr("asarray")(item.second);
    if (a.ndim() != 1)
      fail("results column {} must be 1-D, found {} dimensions", quote_found(name), a.ndim());
    const char kind = a.dtype().kind();
    if (kind == 'b' || kind == 'i' || kind == 'u' || kind == 'f') {
      Array<double> values = py::cast<Array<double>>(a);
      auto v = view_1d(values, name.c_str());
      table.add_column(Column::numeric(name, std::vector<double>(v.begin(), v.end())));
    } else {
      std::vector<std::string> cells;
      cells.reserve(static_cast<std::size_t>(a.shape(0)));
      for (auto cell : py::iterable(a.attr("tolist")())) {
        if (cell.is_none() ||
            (py::isinstance<py::float_>(cell) && std::isnan(cell.cast<double>()))) {
          cells.emplace_back();
        } else {
          cells.push_back(py::str(cell));
        }
      }
      table.add_column(Column::categorical(name, cells));
    }
  }
  return table;
}

// Learner parameters as JSON text ({"glmnet": {"alpha": 0.5}}; "" = none).
Json learner_params_from_text(const std::string& text) {
  if (text.empty()) return Json::object();
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    fail("learner parameters are not valid JSON: {}", e.what());
  }
}

py::dict ttest_to_dict(const soak::TTest& t) {
  py::dict d;
  d["mean_difference"] = t.mean_difference;
  d["sd"] = t.sd;
  d["t"] = t.t;
  d["df"] = t.df;
  d["p_value"] = t.p_value;
  d["n"] = t.n;
  d["undefined_reason"] = t.undefined_reason;
  return d;
}

py::dict soak_run(const Array<double>& x, const std::optional<Array<std::int32_t>>& y_class,
                  std::vector<std::string> classes, const std::optional<Array<double>>& y_value,
                  const std::optional<Array<double>>& weights, const std::string& task,
                  const Array<std::int32_t>& subset, std::vector<std::string> subset_names,
                  const std::optional<Array<std::int32_t>>& group,
                  const std::optional<Array<std::int32_t>>& stratum,
                  const std::optional<Array<std::int64_t>>& fold, int folds, std::string subsets,
                  int sizes, double ratio, int seeds, std::uint64_t split_seed,
                  std::vector<std::string> learner_names, int threads, std::uint64_t seed,
                  std::string name, std::optional<std::vector<std::string>> feature_names,
                  const std::string& learner_params) {
  learners::Dataset data = dataset_from_arrays(x, y_class, std::move(classes), y_value, weights,
                                               task, std::move(name), std::move(feature_names));

  auto design = soak_design_from_arrays(subset, std::move(subset_names), group, stratum, fold);
  const auto split_params =
      soak_split_params(folds, std::move(subsets), sizes, ratio, seeds, split_seed);
  soak::SoakParams params;
  params.learners = std::move(learner_names);
  params.learner_params = learner_params_from_text(learner_params);
  params.threads = threads;
  params.seed = seed;

  Table table;
  {
    const WithoutGil without_gil;
    std::vector<soak::SoakTask> tasks;  // run_soak checks the data set
    tasks.push_back(
        soak::SoakTask{std::move(data), soak::SoakSplits(std::move(design), split_params)});
    table = soak::results_table(soak::run_soak(tasks, params));
  }
  return table_to_dict(std::move(table));
}

// K-fold comparison of learners on one data set (soak/cv.hpp): results, summary and the
// description; writes the `assay cv` page to `report_path` when given.
py::dict cv_run(const Array<double>& x, const std::optional<Array<std::int32_t>>& y_class,
                std::vector<std::string> classes, const std::optional<Array<double>>& y_value,
                const std::optional<Array<double>>& weights, const std::string& task,
                const std::optional<Array<std::int32_t>>& group,
                const std::optional<Array<std::int64_t>>& fold, int folds,
                std::vector<std::string> learner_names, const std::string& learner_params,
                int threads, std::uint64_t seed, std::string name,
                std::optional<std::vector<std::string>> feature_names,
                const std::string& report_path) {
  learners::Dataset data = dataset_from_arrays(x, y_class, std::move(classes), y_value, weights,
                                               task, std::move(name), std::move(feature_names));
  soak::CvParams params;
  params.task = data.task;
  params.folds = folds;
  params.learners = std::move(learner_names);
  params.learner_params = learner_params_from_text(learner_params);
  params.seed = seed;
  params.threads = threads;
  std::vector<std::int32_t> group_codes = optional_vector(group, "groups");
  std::vector<std::int64_t> fold_ids = optional_vector(fold, "fold");
  Table results, summary;
  std::string description;
  {
    const WithoutGil without_gil;
    std::vector<soak::SoakTask> tasks;
    tasks.push_back(
        soak::cv_task(std::move(data), params, std::move(group_codes), std::move(fold_ids)));
    const soak::CvOutcome outcome = soak::run_cv(std::move(tasks), params);
    description = soak::describe_cv(outcome, params);
    results = soak::cv_results_table(outcome.results);
    summary = soak::cv_summary_table(outcome);
    if (!report_path.empty())
      report::cv_html(outcome, "assay.learners.cv", description).write(report_path);
  }
  py::dict out;
  out["results"] = table_to_dict(std::move(results));
  out["summary"] = table_to_dict(std::move(summary));
  out["description"] = description;
  return out;
}

py::dict split_score_to_dict(const soak::SplitScore& s) {
  py::dict out;
  out["error_percent"] = s.error_percent;
  out["auc"] = s.auc;
  out["mse"] = s.mse;
  out["mae"] = s.mae;
  out["failure"] = s.failure;
  out["auc_one_class"] = s.auc_one_class;
  return out;
}

// The scoring of `assay soak` (soak::score_classification / score_regression) for predictions
// made in Python: assay.soak.run_estimators scores the user's estimators with it.
py::dict soak_score(const std::string& task, const py::array& y, const py::array& predicted,
                    const std::optional<Array<double>>& positive_score,
                    const std::optional<Array<double>>& weights, std::size_t n_classes) {
  const std::vector<double> w = optional_vector(weights, "weights");
  if (task == "classification") {
    const auto y_codes = py::cast<Array<std::int32_t>>(y);
    const auto predicted_codes = py::cast<Array<std::int32_t>>(predicted);
    const std::vector<double> score = optional_vector(positive_score, "positive_score");
    return split_score_to_dict(soak::score_classification(
        view_1d(y_codes, "y"), view_1d(predicted_codes, "predicted"), score, w, n_classes));
  }
  if (task != "regression") {
    fail("task must be \"classification\" or \"regression\", found \"{}\"", task);
  }
  const auto y_values = py::cast<Array<double>>(y);
  const auto predicted_values = py::cast<Array<double>>(predicted);
  return split_score_to_dict(
      soak::score_regression(view_1d(y_values, "y"), view_1d(predicted_values, "predicted"), w));
}

}  // namespace

void bind_soak_run(py::module_& m) {
  m.def("soak_score", &soak_score, py::arg("task"), py::arg("y"), py::arg("predicted"),
        py::arg("positive_score") = py::none(), py::arg("weights") = py::none(),
        py::arg("n_classes") = 0,
        "One split's error measures as `assay soak` computes them: dict with error_percent,\n"
        "auc, mse, mae, failure and auc_one_class. Classification: y and predicted are class\n"
        "codes (int32; a predicted code outside 0..n_classes-1 is wrong), positive_score the\n"
        "score of class 1 (AUC when n_classes == 2); regression: values.");
  m.def("cv_run", &cv_run, py::arg("x"), py::arg("y_class"), py::arg("classes"), py::arg("y_value"),
        py::arg("weights"), py::arg("task"), py::arg("group"), py::arg("fold"), py::arg("folds"),
        py::arg("learners"), py::arg("learner_params"), py::arg("threads"), py::arg("seed"),
        py::arg("name"), py::arg("feature_names"), py::arg("report_path"),
        "K-fold comparison of learners on one data set: {results, summary, description}.");
  m.def("soak_run", &soak_run, py::arg("x"), py::arg("y_class"), py::arg("classes"),
        py::arg("y_value"), py::arg("weights"), py::arg("task"), py::arg("subset"),
        py::arg("subset_names"), py::arg("group"), py::arg("stratum"), py::arg("fold"),
        py::arg("folds"), py::arg("subsets"), py::arg("sizes"), py::arg("ratio"), py::arg("seeds"),
        py::arg("split_seed"), py::arg("learners"), py::arg("threads"), py::arg("seed"),
        py::arg("name"), py::arg("feature_names"), py::arg("learner_params") = "",
        "Runs a SOAK experiment on one data set: dict of result columns (results_table order);\n"
        "learner_params: JSON text keyed by learner name (\"\" = defaults).");

  m.def(
      "soak_statistics",
      [](const py::dict& results, const std::string& measure) {
        const Table table = dict_to_table(results);
        soak::SoakStatistics statistics;
        {
          const WithoutGil without_gil;
          statistics = soak::soak_statistics(soak::results_from_table(table), {.measure = measure});
        }
        py::dict out;
        out["measure"] = statistics.measure;
        out["summaries"] = table_to_dict(soak::summaries_table(statistics));
        out["pvalues"] = table_to_dict(soak::pvalues_table(statistics));
        return out;
      },
      py::arg("results"), py::arg("measure") = "",
      "Mean/SD per train set and paired/Welch t-tests from a dict of result columns.");

  m.def(
      "soak_report",
      [](const py::dict& results, const std::string& measure, const std::string& path,
         const std::string& title, const std::string& description) {
        const Table table = dict_to_table(results);
        const WithoutGil without_gil;
        const soak::SoakResults parsed = soak::results_from_table(table);
        const auto statistics = soak::soak_statistics(parsed, {.measure = measure});
        report::soak_html(statistics, parsed, title, description).write(path);
      },
      py::arg("results"), py::arg("measure"), py::arg("path"), py::arg("title"),
      py::arg("description"),
      "Writes the HTML page of `assay soak` for a dict of result columns to `path`.");

  m.def(
      "paired_t_test",
      [](const Array<double>& x, const Array<double>& y) {
        return ttest_to_dict(soak::paired_t_test(view_1d(x, "x"), view_1d(y, "y")));
      },
      py::arg("x"), py::arg("y"), "Two-sided paired t-test of x - y (as scipy.stats.ttest_rel).");
  m.def(
      "welch_t_test",
      [](const Array<double>& x, const Array<double>& y) {
        return ttest_to_dict(soak::welch_t_test(view_1d(x, "x"), view_1d(y, "y")));
      },
      py::arg("x"), py::arg("y"),
      "Two-sided Welch t-test of mean(x) - mean(y) (scipy.stats.ttest_ind, equal_var=False).");
}

}  // namespace assay::python

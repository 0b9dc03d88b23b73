// _assay.SoakSplits: SOAK train/test splits (assay/soak/splits.hpp). Row lists come back as
// int64 numpy arrays (numpy's index type), built on demand.
#include "assay/soak/splits.hpp"

#include <optional>

#include "bindings.hpp"

namespace assay::python {
namespace {

py::array_t<std::int64_t> rows_to_numpy(const std::vector<std::uint32_t>& rows,
                                        std::int64_t offset) {
  std::vector<std::int64_t> out(rows.begin(), rows.end());
  if (offset != 0)
    for (auto& r : out) r += offset;
  return to_numpy(std::move(out));
}

py::dict info_to_dict(const soak::SoakSplits& splits, const soak::SplitInfo& s) {
  py::dict d;
  d["iteration"] = s.iteration;
  d["test_subset"] = splits.design().subset_names[s.test_subset];
  d["test_subset_code"] = s.test_subset;
  d["train_subsets"] = soak::to_string(s.train_subsets);
  d["groups"] = s.groups;
  d["test_fold"] = s.test_fold;
  d["seed"] = s.seed;
  d["n_train_groups"] = s.n_train_groups;
  return d;
}

// The iteration table as columns, in mlr3's order.
py::dict iteration_columns(const soak::SoakSplits& splits, std::int64_t offset) {
  const std::size_t n = splits.size();
  py::list test_subset, train_subsets, test, train;
  std::vector<std::int64_t> groups(n), n_train_groups(n), iteration(n);
  std::vector<std::int32_t> test_fold(n), seed(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = splits.info(i);
    test_subset.append(splits.design().subset_names[s.test_subset]);
    train_subsets.append(soak::to_string(s.train_subsets));
    groups[i] = s.groups;
    test_fold[i] = s.test_fold;
    seed[i] = s.seed;
    n_train_groups[i] = s.n_train_groups;
    iteration[i] = static_cast<std::int64_t>(s.iteration);
    test.append(rows_to_numpy(splits.test_rows(i), offset));
    train.append(rows_to_numpy(splits.train_rows(i), offset));
  }
  py::dict d;
  d["test.subset"] = test_subset;
  d["train.subsets"] = train_subsets;
  d["groups"] = to_numpy(std::move(groups));
  d["test.fold"] = to_numpy(std::move(test_fold));
  d["test"] = test;
  d["train"] = train;
  d["seed"] = to_numpy(std::move(seed));
  d["n.train.groups"] = to_numpy(std::move(n_train_groups));
  d["iteration"] = to_numpy(std::move(iteration));
  return d;
}

}  // namespace

soak::SoakDesign soak_design_from_arrays(const Array<std::int32_t>& subset,
                                         std::vector<std::string> subset_names,
                                         const std::optional<Array<std::int32_t>>& group,
                                         const std::optional<Array<std::int32_t>>& stratum,
                                         const std::optional<Array<std::int64_t>>& fold) {
  soak::SoakDesign design;
  auto s = view_1d(subset, "subset");
  design.subset.assign(s.begin(), s.end());
  design.subset_names = std::move(subset_names);
  design.group = optional_vector(group, "group");
  design.stratum = optional_vector(stratum, "stratum");
  design.fold = optional_vector(fold, "fold");
  return design;
}

soak::SoakSplitParams soak_split_params(int folds, std::string subsets, int sizes, double ratio,
                                        int seeds, std::uint64_t seed) {
  soak::SoakSplitParams params;
  params.folds = folds;
  params.subsets = std::move(subsets);
  params.sizes = sizes;
  params.ratio = ratio;
  params.seeds = seeds;
  params.seed = seed;
  return params;
}

void bind_soak_splits(py::module_& m) {
  py::class_<soak::SoakSplits>(m, "SoakSplits")
      .def(
          py::init([](const Array<std::int32_t>& subset, std::vector<std::string> subset_names,
                      const std::optional<Array<std::int32_t>>& group,
                      const std::optional<Array<std::int32_t>>& stratum,
                      const std::optional<Array<std::int64_t>>& fold, int folds,
                      std::string subsets, int sizes, double ratio, int seeds, std::uint64_t seed) {
            auto design =
                soak_design_from_arrays(subset, std::move(subset_names), group, stratum, fold);
            const auto params =
                soak_split_params(folds, std::move(subsets), sizes, ratio, seeds, seed);
            return soak::SoakSplits(std::move(design), params);
          }),
          py::arg("subset"), py::arg("subset_names"), py::arg("group") = py::none(),
          py::arg("stratum") = py::none(), py::arg("fold") = py::none(), py::arg("folds") = 10,
          py::arg("subsets") = "SOA", py::arg("sizes") = -1, py::arg("ratio") = 0.5,
          py::arg("seeds") = 1, py::arg("seed") = 1)
      .def("__len__", &soak::SoakSplits::size)
      .def(
          "info",
          [](const soak::SoakSplits& s, std::size_t i) { return info_to_dict(s, s.info(i)); },
          py::arg("i"))
      .def(
          "test_rows",
          [](const soak::SoakSplits& s, std::size_t i) {
            std::vector<std::uint32_t> rows;
            {
              const WithoutGil without_gil;
              rows = s.test_rows(i);
            }
            return rows_to_numpy(rows, 0);
          },
          py::arg("i"))
      .def(
          "train_rows",
          [](const soak::SoakSplits& s, std::size_t i) {
            std::vector<std::uint32_t> rows;
            {
              const WithoutGil without_gil;
              rows = s.train_rows(i);
            }
            return rows_to_numpy(rows, 0);
          },
          py::arg("i"))
      .def("train_twin", &soak::SoakSplits::train_twin, py::arg("i"),
           "The first split whose train rows are exactly split i's (i when none before it).")
      .def("folds",
           [](const soak::SoakSplits& s) {
             auto f = s.folds();
             return to_numpy(std::move(f));
           })
      .def_property_readonly("n_folds", &soak::SoakSplits::n_folds)
      .def_property_readonly("subset_names",
                             [](const soak::SoakSplits& s) { return s.design().subset_names; })
      .def(
          "iteration_table",
          [](const soak::SoakSplits& s, bool one_based_rows) {
            return iteration_columns(s, one_based_rows ? 1 : 0);
          },
          py::arg("one_based_rows") = false);
}

}  // namespace assay::python

// Bindings of the per-subject segmentation measures (assay/shift/segmentation.hpp) on numpy
// arrays. Volumes arrive as C-ordered float64 (forcecast: bool / int masks convert), 3-D; a
// C-ordered array of shape (a, b, c) is the grid nx = c, ny = b, nz = a, and messages name voxels
// by the numpy index. Results are flat arrays and dicts; python/assay/_segmentation_arrays.py
// reshapes them.
#include <optional>

#include "assay/shift/segmentation.hpp"
#include "bindings.hpp"

namespace assay::python {
namespace {

using shift::Grid3;

Grid3 grid_of(const Array<double>& a, const char* what, int leading = 0) {
  if (a.ndim() != 3 + leading) {
    fail("{} must be a {}-D array, found {} dimensions", what, 3 + leading, a.ndim());
  }
  Grid3 g;
  g.nz = static_cast<std::size_t>(a.shape(leading));
  g.ny = static_cast<std::size_t>(a.shape(leading + 1));
  g.nx = static_cast<std::size_t>(a.shape(leading + 2));
  g.c_order_names = true;
  return g;
}

std::span<const double> values(const Array<double>& a) {
  return {a.data(), static_cast<std::size_t>(a.size())};
}

// The grid of `a`, which must match `reference`'s shape.
void check_same_shape(const Array<double>& a, const char* what, Grid3 reference) {
  const Grid3 g = grid_of(a, what);
  if (g.nx != reference.nx || g.ny != reference.ny || g.nz != reference.nz) {
    fail("{}: expected shape ({}, {}, {}) like the prediction, found ({}, {}, {})", what,
         reference.nz, reference.ny, reference.nx, g.nz, g.ny, g.nx);
  }
}

std::vector<std::uint8_t> mask_of(const Array<double>& a, const char* what, Grid3 grid) {
  return shift::binary_mask(values(a), grid, what);
}

py::dict retention_dict(shift::NdscRetention&& r) {
  py::dict d;
  d["fractions"] = to_numpy(std::move(r.fraction));
  d["curve"] = to_numpy(std::move(r.ndsc));
  d["area"] = r.area;
  d["n_voxels"] = r.n_voxels;
  return d;
}

py::dict lesion_dict(const shift::LesionCounts& c) {
  py::dict d;
  d["true_lesions"] = c.true_lesions;
  d["predicted_lesions"] = c.predicted_lesions;
  d["tp"] = c.tp;
  d["fp"] = c.fp;
  d["fn"] = c.fn;
  d["f1"] = c.f1;
  return d;
}

}  // namespace

namespace {

/// Connected lesions, voxel scores, lesion counts and post-processing.
void register_lesions(py::module_& m) {
  m.def(
      "_segmentation_label",
      [](const Array<double>& mask, int connectivity) {
        const Grid3 grid = grid_of(mask, "mask");
        auto binary = mask_of(mask, "mask", grid);
        std::vector<std::int32_t> labels;
        std::uint32_t count = 0;
        {
          const WithoutGil without_gil;
          auto c = shift::label_components(binary, grid, connectivity);
          labels.assign(c.labels.begin(), c.labels.end());
          count = c.count;
        }
        return py::make_tuple(to_numpy(std::move(labels)), count);
      },
      py::arg("mask"), py::arg("connectivity"));

  m.def(
      "_segmentation_voxel_scores",
      [](const Array<double>& prediction, const Array<double>& truth, double r) {
        const Grid3 grid = grid_of(prediction, "prediction");
        check_same_shape(truth, "truth", grid);
        const auto p = mask_of(prediction, "prediction", grid);
        const auto t = mask_of(truth, "truth", grid);
        const auto c = shift::voxel_counts(p, t);
        py::dict d;
        d["n"] = c.n;
        d["tp"] = c.tp;
        d["fp"] = c.fp;
        d["fn"] = c.fn;
        d["dice"] = shift::dice(c);
        d["ndsc"] = shift::normalised_dice(c, r);
        return d;
      },
      py::arg("prediction"), py::arg("truth"), py::arg("r"));

  m.def(
      "_segmentation_lesion_counts",
      [](const Array<double>& prediction, const Array<double>& truth, double iou_threshold,
         int connectivity) {
        const Grid3 grid = grid_of(prediction, "prediction");
        check_same_shape(truth, "truth", grid);
        const auto p = mask_of(prediction, "prediction", grid);
        const auto t = mask_of(truth, "truth", grid);
        shift::LesionCounts c;
        {
          const WithoutGil without_gil;
          c = shift::lesion_counts(p, t, grid, connectivity, iou_threshold);
        }
        return lesion_dict(c);
      },
      py::arg("prediction"), py::arg("truth"), py::arg("iou_threshold"), py::arg("connectivity"));

  m.def(
      "_segmentation_remove_small",
      [](const Array<double>& mask, std::size_t min_size, int connectivity) {
        const Grid3 grid = grid_of(mask, "mask");
        auto binary = mask_of(mask, "mask", grid);
        std::size_t removed = 0;
        {
          const WithoutGil without_gil;
          removed = shift::remove_small_lesions(binary, grid, connectivity, min_size);
        }
        return py::make_tuple(to_numpy(std::move(binary)), removed);
      },
      py::arg("mask"), py::arg("min_size"), py::arg("connectivity"));

  m.def(
      "_segmentation_postprocess",
      [](const Array<double>& probability, double threshold, std::size_t min_lesion_size,
         int connectivity) {
        const Grid3 grid = grid_of(probability, "probability");
        shift::SegmentationParams params;
        params.threshold = threshold;
        params.min_lesion_size = min_lesion_size;
        params.connectivity = connectivity;
        std::vector<std::uint8_t> mask;
        {
          const WithoutGil without_gil;
          mask = shift::postprocess(values(probability), grid, params);
        }
        return to_numpy(std::move(mask));
      },
      py::arg("probability"), py::arg("threshold"), py::arg("min_lesion_size"),
      py::arg("connectivity"));
}

/// nDSC retention and voxel-wise ensemble uncertainty maps.
void register_voxel_uncertainty(py::module_& m) {
  m.def(
      "_segmentation_retention",
      [](const Array<double>& prediction, const Array<double>& truth,
         const Array<double>& uncertainty, const std::optional<Array<double>>& brain_mask, double r,
         std::size_t points) {
        const Grid3 grid = grid_of(prediction, "prediction");
        check_same_shape(truth, "truth", grid);
        check_same_shape(uncertainty, "uncertainty", grid);
        const auto p = mask_of(prediction, "prediction", grid);
        const auto t = mask_of(truth, "truth", grid);
        std::vector<std::uint8_t> brain;
        if (brain_mask) {
          check_same_shape(*brain_mask, "brain mask", grid);
          brain = mask_of(*brain_mask, "brain mask", grid);
        }
        shift::NdscRetention result;
        {
          const WithoutGil without_gil;
          result = shift::ndsc_retention(p, t, values(uncertainty), brain, grid, r, points);
        }
        return retention_dict(std::move(result));
      },
      py::arg("prediction"), py::arg("truth"), py::arg("uncertainty"), py::arg("brain_mask"),
      py::arg("r"), py::arg("points"));

  m.def(
      "_segmentation_ensemble_maps",
      [](const Array<double>& members, double epsilon) {
        const Grid3 grid = grid_of(members, "members", 1);
        const auto n_members = static_cast<std::size_t>(members.shape(0));
        shift::VoxelEnsembleMaps maps;
        {
          const WithoutGil without_gil;
          maps = shift::ensemble_maps(values(members), n_members, grid, epsilon);
        }
        py::dict d;
        d["mean"] = to_numpy(std::move(maps.mean));
        d["entropy_of_expected"] = to_numpy(std::move(maps.entropy_of_expected));
        d["expected_entropy"] = to_numpy(std::move(maps.expected_entropy));
        d["mutual_information"] = to_numpy(std::move(maps.mutual_information));
        d["epkl"] = to_numpy(std::move(maps.epkl));
        d["reverse_mutual_information"] = to_numpy(std::move(maps.reverse_mutual_information));
        return d;
      },
      py::arg("members"), py::arg("epsilon"));
}

/// One subject's scores, as assay segment computes them.
void register_subjects(py::module_& m) {
  m.def(
      "_segmentation_score_subject",
      [](const Array<double>& probability, const Array<double>& truth,
         const std::optional<Array<double>>& uncertainty,
         const std::optional<Array<double>>& brain_mask, double threshold, int connectivity,
         double iou_threshold, std::size_t min_lesion_size, double r, std::size_t points) {
        const Grid3 grid = grid_of(probability, "probability");
        check_same_shape(truth, "truth", grid);
        if (uncertainty) check_same_shape(*uncertainty, "uncertainty", grid);
        if (brain_mask) check_same_shape(*brain_mask, "brain mask", grid);
        shift::SegmentationParams params;
        params.threshold = threshold;
        params.connectivity = connectivity;
        params.iou_threshold = iou_threshold;
        params.min_lesion_size = min_lesion_size;
        params.ndsc_r = r;
        params.retention_points = points;
        shift::SubjectScores s;
        {
          const WithoutGil without_gil;
          s = shift::score_subject(values(probability), values(truth),
                                   uncertainty ? values(*uncertainty) : std::span<const double>{},
                                   brain_mask ? values(*brain_mask) : std::span<const double>{},
                                   grid, params);
        }
        py::dict d;
        d["n_voxels"] = s.n_voxels;
        d["brain_voxels"] = s.brain_voxels;
        d["voxel_tp"] = s.voxel_tp;
        d["voxel_fp"] = s.voxel_fp;
        d["voxel_fn"] = s.voxel_fn;
        d["dsc"] = s.dsc;
        d["ndsc"] = s.ndsc;
        d["true_lesions"] = s.true_lesions;
        d["predicted_lesions"] = s.predicted_lesions;
        d["lesion_tp"] = s.lesion_tp;
        d["lesion_fp"] = s.lesion_fp;
        d["lesion_fn"] = s.lesion_fn;
        d["lesion_f1"] = s.lesion_f1;
        d["removed_lesions"] = s.removed_lesions;
        d["ndsc_retention_auc"] = s.ndsc_retention_auc;
        d["mean_uncertainty"] = s.mean_uncertainty;
        d["retention_fraction"] = to_numpy(std::move(s.retention_fraction));
        d["retention_ndsc"] = to_numpy(std::move(s.retention_ndsc));
        return d;
      },
      py::arg("probability"), py::arg("truth"), py::arg("uncertainty"), py::arg("brain_mask"),
      py::arg("threshold"), py::arg("connectivity"), py::arg("iou_threshold"),
      py::arg("min_lesion_size"), py::arg("r"), py::arg("points"));
}

}  // namespace

void bind_segmentation(py::module_& m) {
  m.attr("_max_retention_points") = shift::kMaxRetentionPoints;
  register_lesions(m);
  register_voxel_uncertainty(m);
  register_subjects(m);
}

}  // namespace assay::python

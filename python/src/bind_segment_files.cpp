// NIfTI volumes and the multi-subject segmentation evaluation on files (core/nifti.hpp,
// shift/segment_experiment.hpp) for assay.shift.segmentation.
#include <array>

#include "assay/core/input_files.hpp"
#include "assay/core/nifti.hpp"
#include "assay/report/segmentation.hpp"
#include "assay/shift/segment_experiment.hpp"
#include "bindings.hpp"

namespace assay::python {
namespace {

using FortranArray = py::array_t<double, py::array::f_style | py::array::forcecast>;

// The voxels as a Fortran-ordered (nx, ny, nz) array (nibabel's get_fdata layout), without a copy,
// and the 4x4 affine.
py::tuple volume_to_numpy(Volume&& volume) {
  const auto shape = volume.shape;
  auto* owned = new std::vector<double>(std::move(volume.data));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<double>*>(p); });
  const auto s = static_cast<py::ssize_t>(sizeof(double));
  py::array_t<double> data({shape[0], shape[1], shape[2]},
                           {s, s * static_cast<py::ssize_t>(shape[0]),
                            s * static_cast<py::ssize_t>(shape[0] * shape[1])},
                           owned->data(), free_when_done);
  std::vector<double> affine(volume.affine.begin(), volume.affine.end());
  return py::make_tuple(data, to_numpy_2d(std::move(affine), 4, 4));
}

}  // namespace

void bind_segment_files(py::module_& m) {
  m.def(
      "read_nifti",
      [](const std::string& path) {
        Volume volume;
        {
          const WithoutGil without_gil;
          volume = read_nifti(path);
        }
        return volume_to_numpy(std::move(volume));
      },
      py::arg("path"));

  m.def(
      "write_nifti",
      [](const std::string& path, const FortranArray& data, const Array<double>& affine,
         const std::string& dtype) {
        if (data.ndim() != 3)
          fail("{}: expected a 3-D array, found {} dimensions", path, data.ndim());
        if (affine.ndim() != 2 || affine.shape(0) != 4 || affine.shape(1) != 4) {
          fail("{}: expected a 4x4 affine", path);
        }
        Volume volume;
        for (int axis = 0; axis < 3; ++axis) volume.shape[axis] = data.shape(axis);
        volume.data.assign(data.data(), data.data() + data.size());
        std::copy(affine.data(), affine.data() + 16, volume.affine.begin());
        const NiftiType type = parse_nifti_type(dtype);
        const WithoutGil without_gil;
        write_nifti(path, volume, type);
      },
      py::arg("path"), py::arg("data"), py::arg("affine"), py::arg("dtype"));

  m.def(
      "segment_evaluate",
      [](std::vector<std::string> pred, std::string truth, std::string uncertainty,
         std::string brain_mask, std::string partition, std::string voxel_measure, double threshold,
         int connectivity, double iou, std::size_t min_size, double r, int threads,
         std::string write_masks, std::string write_uncertainty) {
        shift::SegmentParams params;
        params.pred = std::move(pred);
        params.truth = std::move(truth);
        params.uncertainty = std::move(uncertainty);
        params.brain_mask = std::move(brain_mask);
        params.partition_csv = std::move(partition);
        params.voxel_measure = std::move(voxel_measure);
        params.scoring.threshold = threshold;
        params.scoring.connectivity = connectivity;
        params.scoring.iou_threshold = iou;
        params.scoring.min_lesion_size = min_size;
        params.scoring.ndsc_r = r;
        params.threads = threads;
        params.write_masks = std::move(write_masks);
        params.write_uncertainty = std::move(write_uncertainty);
        std::string json;
        {
          const WithoutGil without_gil;
          const InputFilesScope inputs;  // no output of the call may replace one of them
          json = report::segment_json(shift::evaluate_segmentation_files(params)).dump();
        }
        return json;
      },
      py::arg("pred"), py::arg("truth"), py::arg("uncertainty"), py::arg("brain_mask"),
      py::arg("partition"), py::arg("voxel_measure"), py::arg("threshold"), py::arg("connectivity"),
      py::arg("iou"), py::arg("min_size"), py::arg("r"), py::arg("threads"), py::arg("write_masks"),
      py::arg("write_uncertainty"));
}

}  // namespace assay::python

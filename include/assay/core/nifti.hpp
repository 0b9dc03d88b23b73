// NIfTI-1 and NIfTI-2 volumes (.nii, .nii.gz) read and written with Debian's libnifti2.
//
// Layout: Volume::data holds the voxels in the file's order, first index fastest: voxel
// (i, j, k) is data[i + nx * (j + ny * k)] with shape = {nx, ny, nz} (nibabel's `shape`; a numpy
// array from nibabel's get_fdata() is Fortran-ordered the same way). Values are converted to
// double and the header's scaling applied (scl_slope/scl_inter, as nibabel's get_fdata). Only 3-D
// volumes (or 4-D with one time point) of integer or floating data types are accepted.
// `affine` is the voxel-to-world matrix nibabel reports (sform if set, else qform, else the
// pixel-size diagonal), row-major 4×4.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace assay {

struct Volume {
  /// {nx, ny, nz}.
  std::array<std::size_t, 3> shape{};
  /// nx*ny*nz voxels, first index fastest.
  std::vector<double> data;
  /// Row-major voxel-to-world matrix.
  std::array<double, 16> affine{};
  /// The path it was read from (for messages); empty for volumes built in memory.
  std::string path;

  std::size_t size() const { return shape[0] * shape[1] * shape[2]; }
};

/// Reads a .nii or .nii.gz file. Throws assay::Error naming the path for a missing, corrupt or
/// truncated file, an unsupported data type or dimensionality, or non-finite scaling.
Volume read_nifti(const std::string& path);

/// How write_nifti stores the voxels.
enum class NiftiType { uint8, int16, int32, float32, float64 };

/// Writes `volume` as NIfTI-1 (.nii or, by the suffix, .nii.gz) with its affine as the sform
/// (and qform). Throws assay::Error naming the path if it cannot.
void write_nifti(const std::string& path, const Volume& volume, NiftiType type);

/// Whether two volumes share shape and, within `tolerance` per entry, affine.
bool same_grid(const Volume& a, const Volume& b, double tolerance = 1e-4);

}  // namespace assay

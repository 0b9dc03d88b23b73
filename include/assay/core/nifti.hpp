// NIfTI-1 and NIfTI-2 volumes (.nii, .nii.gz) read and written with Debian's libnifti2.
//
// Layout: Volume::data holds the voxels in the file's order, first index fastest: voxel
// (i, j, k) is data[i + nx * (j + ny * k)] with shape = {nx, ny, nz} (nibabel's `shape`; a numpy
// array from nibabel's get_fdata() is Fortran-ordered the same way). Values are converted to
// double and the header's scaling applied as nibabel's get_fdata does: value * scl_slope +
// scl_inter, unless scl_slope is 0 or not finite (then the stored values as they are; nibabel
// writes NaN there for unscaled data); a valid slope with a non-finite scl_inter is an error.
// Accepted: 1-, 2- or 3-D images (missing dimensions are 1) and 4-D..7-D images whose extra
// dimensions are all 1; data types uint8, int8, uint16, int16, uint32, int32, uint64, int64,
// float32, float64, either byte order. `affine` is the voxel-to-world matrix nibabel reports
// (img.affine): the sform if sform_code > 0, else the qform if qform_code > 0, else nibabel's
// fall-back (pixel sizes on the diagonal, x negated, centred on the middle voxel), row-major 4×4.
//
// Reading is guarded: libnifti only ever sees a file that exists and whose header was checked
// first (size, sizeof_hdr, magic "n+1"/"n+2"); its messages are silenced; the voxel data are
// read (and, for .nii.gz, decompressed with zlib, CRC checked) by assay, so a corrupt or
// truncated file is an assay::Error naming the path, never an exit() or a short read. Reading
// is thread-safe (volumes of different subjects are read in parallel).
//
// Example:
//   Volume v = read_nifti("sub-01_mask.nii.gz");       // e.g. shape {182, 218, 182}
//   double x = v.data[i + v.shape[0] * (j + v.shape[1] * k)];   // voxel (i, j, k)
//   Volume out{.shape = {2, 2, 1}, .data = {0, 1, 1, 0}, .affine = v.affine};
//   write_nifti("out.nii.gz", out, NiftiType::uint8);  // read back: the same data and affine
//   shape_string(out);                                 // "2×2×1"
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
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

/// Reads a .nii or .nii.gz file. Throws assay::Error naming the path for a missing, empty,
/// corrupt or truncated file, a wrong magic, an unsupported data type or dimensionality (e.g.
/// 4-D with more than one volume), or a non-finite scl_inter with a valid scl_slope.
Volume read_nifti(const std::string& path);

/// Same, into `volume`, reusing its memory (no allocation when it held a volume of the same
/// size: the pipelines read one volume per subject into the same buffers).
void read_nifti_into(const std::string& path, Volume& volume);

/// Receives a block of a volume's voxels in order, `values` starting at voxel `first`; may
/// change them (read_nifti_into's `check`).
using VoxelBlockCheck = std::function<void(std::size_t first, std::span<double> values)>;

/// read_nifti_into, calling `check` on each block of up to 16,384 voxels as soon as it is
/// decoded (still in the cache): a caller's scan of the values (a range check, clamping) costs
/// no second read of the volume. An exception from `check` stops the reading and propagates.
void read_nifti_into(const std::string& path, Volume& volume, const VoxelBlockCheck& check);

/// Receives a volume's voxels in order, `values` starting at voxel `first`.
using VoxelConsumer = std::function<void(std::size_t first, std::span<const double> values)>;

/// Same checks and values as read_nifti_into, but the voxels are handed to `consume` in blocks
/// of at most 16,384 (as doubles, scaled) instead of being stored: a caller that keeps another
/// form, such as a 0/1 mask of bytes, does not write and re-read 8 bytes per voxel. `volume`
/// gets the shape (set before the first block) and path, then the affine; its data are emptied.
/// An exception from `consume` stops the reading and propagates.
/// With `consume_bytes` given, a uint8 volume without scaling (value = stored byte: how masks
/// are written) hands over its stored bytes instead, in blocks of up to 1 MiB.
using ByteConsumer = std::function<void(std::size_t first, std::span<const std::uint8_t> bytes)>;
void read_nifti_voxels(const std::string& path, Volume& volume, const VoxelConsumer& consume,
                       const ByteConsumer& consume_bytes = {});

/// While one lives on a thread, reads of .nii.gz files on that thread keep the buffer a file is
/// inflated into for the next file (up to 256 MiB) instead of freeing it; the last one to go
/// frees it. For a caller that reads many volumes in a row (assay segment's workers): a fresh
/// buffer of tens of megabytes per file costs the kernel's zeroing of its pages every time.
class KeepInflateBuffer {
 public:
  KeepInflateBuffer();
  ~KeepInflateBuffer();
  KeepInflateBuffer(const KeepInflateBuffer&) = delete;
  KeepInflateBuffer& operator=(const KeepInflateBuffer&) = delete;
};

/// How write_nifti stores the voxels.
enum class NiftiType { uint8, int16, int32, float32, float64 };

/// "uint8", "int16", "int32", "float32" or "float64"; anything else is an assay::Error.
NiftiType parse_nifti_type(std::string_view name);
std::string_view to_string(NiftiType type);

/// Writes `volume` as NIfTI-1 (.nii, or gzip level 1 for a path ending in .nii.gz; any other
/// suffix is an error) with its affine as the sform and the qform (both code 1, scanner), no
/// scaling (scl_slope 1, scl_inter 0). Integer types need integer values in range: anything else
/// (NaN, 0.5, 300 for uint8) is an error naming the voxel. Throws assay::Error naming the path if
/// the file cannot be written (a partial file is removed).
void write_nifti(const std::string& path, const Volume& volume, NiftiType type);

/// Whether two volumes share shape and, within `tolerance` per entry, affine.
bool same_grid(const Volume& a, const Volume& b, double tolerance = 1e-4);

/// "182×218×182" for messages.
std::string shape_string(const Volume& volume);

}  // namespace assay

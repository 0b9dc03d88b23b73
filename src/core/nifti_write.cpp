// NIfTI writing (a NIfTI-1 header made by libnifti, the voxels stored in the chosen data type
// through zlib, the file replaced atomically) and the data type names; reading is in nifti.cpp.
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/nifti.hpp"
#include "assay/core/output_file.hpp"
#include "core/nifti_detail.hpp"

extern "C" {
#include <nifti2_io.h>
}

namespace assay {

using namespace nifti_detail;  // nifti_detail.hpp

NiftiType parse_nifti_type(std::string_view name) {
  if (name == "uint8") return NiftiType::uint8;
  if (name == "int16") return NiftiType::int16;
  if (name == "int32") return NiftiType::int32;
  if (name == "float32") return NiftiType::float32;
  if (name == "float64") return NiftiType::float64;
  fail("NIfTI data type: expected uint8, int16, int32, float32 or float64, found {}",
       quote_found(name));
}

std::string_view to_string(NiftiType type) {
  switch (type) {
    case NiftiType::uint8:
      return "uint8";
    case NiftiType::int16:
      return "int16";
    case NiftiType::int32:
      return "int32";
    case NiftiType::float32:
      return "float32";
    case NiftiType::float64:
      return "float64";
  }
  return "?";
}

namespace {

template <typename T>
void store(const Volume& volume, NiftiType type, const std::string& path,
           std::vector<unsigned char>& out) {
  const std::size_t n = volume.data.size();
  out.resize(n * sizeof(T));
  for (std::size_t i = 0; i < n; ++i) {
    const double v = volume.data[i];
    T stored;
    if constexpr (std::is_integral_v<T>) {
      constexpr double lo = static_cast<double>(std::numeric_limits<T>::min());
      constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
      if (!(v >= lo && v <= hi && v == std::floor(v))) {
        const std::size_t nx = volume.shape[0], ny = volume.shape[1];
        fail("{}: voxel ({}, {}, {}) = {} cannot be stored as {}: expected an integer in [{}, {}]",
             path, i % nx, (i / nx) % ny, i / (nx * ny), v, to_string(type), lo, hi);
      }
      stored = static_cast<T>(v);
    } else {
      stored = static_cast<T>(v);
    }
    std::memcpy(out.data() + i * sizeof(T), &stored, sizeof(T));
  }
}

// The header, an empty extension and the voxels through zlib (transparent for .nii) into `fd`
// (a copy of it is closed here).
void write_volume_bytes(int fd, bool compress, const nifti_1_header& header,
                        const std::vector<unsigned char>& bytes, const std::string& path) {
  const int copy = ::dup(fd);
  if (copy < 0) fail("{}: cannot write: {}", path, std::strerror(errno));
  GzFile file(gzdopen(copy, compress ? "wb1" : "wbT"));
  if (!file) {
    ::close(copy);
    fail("{}: cannot write: {}", path, std::strerror(errno));
  }
  gzbuffer(file.get(), 1u << 18);
  const unsigned char extension[4] = {0, 0, 0, 0};
  bool ok = gzwrite(file.get(), &header, sizeof header) == static_cast<int>(sizeof header) &&
            gzwrite(file.get(), extension, 4) == 4;
  for (std::size_t done = 0; ok && done < bytes.size();) {
    const auto chunk = static_cast<unsigned>(std::min<std::size_t>(bytes.size() - done, 1u << 30));
    ok = gzwrite(file.get(), bytes.data() + done, chunk) == static_cast<int>(chunk);
    done += chunk;
  }
  std::string reason = ok ? "" : gz_message(file.get(), path);
  const int closed = gzclose_w(file.release());
  if (ok && closed != Z_OK) {
    ok = false;
    reason = closed == Z_ERRNO ? std::strerror(errno) : fmt::format("zlib error {}", closed);
  }
  if (!ok) fail("{}: cannot write: {}", path, reason);
}

}  // namespace

void write_nifti(const std::string& path, const Volume& volume, NiftiType type) {
  check_suffix(path);
  if (volume.size() != volume.data.size() || volume.size() == 0) {
    fail("{}: expected {} voxels for shape {}, found {}", path, volume.size(), shape_string(volume),
         volume.data.size());
  }
  for (double v : volume.affine) {
    if (!std::isfinite(v)) fail("{}: expected a finite affine, found {}", path, v);
  }
  int datatype = DT_FLOAT32;
  std::vector<unsigned char> bytes;
  switch (type) {
    case NiftiType::uint8:
      datatype = DT_UINT8;
      store<std::uint8_t>(volume, type, path, bytes);
      break;
    case NiftiType::int16:
      datatype = DT_INT16;
      store<std::int16_t>(volume, type, path, bytes);
      break;
    case NiftiType::int32:
      datatype = DT_INT32;
      store<std::int32_t>(volume, type, path, bytes);
      break;
    case NiftiType::float32:
      datatype = DT_FLOAT32;
      store<float>(volume, type, path, bytes);
      break;
    case NiftiType::float64:
      datatype = DT_FLOAT64;
      store<double>(volume, type, path, bytes);
      break;
  }

  nifti_1_header header{};
  {
    quiet_libnifti();
    std::lock_guard lock(libnifti_mutex());
    const std::int64_t dims[8] = {3,
                                  static_cast<std::int64_t>(volume.shape[0]),
                                  static_cast<std::int64_t>(volume.shape[1]),
                                  static_cast<std::int64_t>(volume.shape[2]),
                                  1,
                                  1,
                                  1,
                                  1};
    nifti_image* nim = nifti_make_new_nim(dims, datatype, 0);
    if (nim == nullptr) fail("{}: libnifti could not make a header", path);
    nifti_dmat44 m{};
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) m.m[r][c] = volume.affine[r * 4 + c];
    }
    nim->sto_xyz = m;
    nim->sform_code = NIFTI_XFORM_SCANNER_ANAT;
    double qb, qc, qd, qx, qy, qz, dx, dy, dz, qfac;
    nifti_dmat44_to_quatern(m, &qb, &qc, &qd, &qx, &qy, &qz, &dx, &dy, &dz, &qfac);
    nim->quatern_b = qb;
    nim->quatern_c = qc;
    nim->quatern_d = qd;
    nim->qoffset_x = qx;
    nim->qoffset_y = qy;
    nim->qoffset_z = qz;
    nim->qfac = qfac;
    nim->qform_code = NIFTI_XFORM_SCANNER_ANAT;
    nim->dx = nim->pixdim[1] = dx;
    nim->dy = nim->pixdim[2] = dy;
    nim->dz = nim->pixdim[3] = dz;
    nim->pixdim[0] = qfac;
    nim->scl_slope = 1;
    nim->scl_inter = 0;
    nim->nifti_type = NIFTI_FTYPE_NIFTI1_1;
    const int status = nifti_convert_nim2n1hdr(nim, &header);
    nifti_image_free(nim);
    if (status != 0) fail("{}: libnifti could not make a header", path);
  }
  header.vox_offset = 352;
  std::memcpy(header.magic, "n+1\0", 4);

  const bool compress = path.ends_with(".gz");
  // Into a temporary next to `path`, renamed over it when complete: never a truncated volume.
  write_file_atomic_with(path,
                         [&](int fd) { write_volume_bytes(fd, compress, header, bytes, path); });
}

bool same_grid(const Volume& a, const Volume& b, double tolerance) {
  if (a.shape != b.shape) return false;
  for (std::size_t i = 0; i < 16; ++i) {
    if (!(std::abs(a.affine[i] - b.affine[i]) <= tolerance)) return false;
  }
  return true;
}

std::string shape_string(const Volume& volume) {
  return fmt::format("{}×{}×{}", volume.shape[0], volume.shape[1], volume.shape[2]);
}

}  // namespace assay

// NIfTI reading (writing is in nifti_write.cpp). libnifti2 parses the header (NIfTI-1 and
// NIfTI-2, byte order, qform/sform matrices); everything that can fail on a bad file — existence,
// the gzip stream, the header's size and magic, the amount of voxel data — is checked here first,
// because libnifti reports problems on stderr and can exit() on some of them.
#include "assay/core/nifti.hpp"

#include <fcntl.h>
#include <libdeflate.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <type_traits>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/output_file.hpp"
#include "core/nifti_detail.hpp"

extern "C" {
#include <nifti2_io.h>
}

namespace assay {

namespace nifti_detail {

std::mutex& libnifti_mutex() {
  static std::mutex mutex;
  return mutex;
}

void quiet_libnifti() {
  static std::once_flag once;
  std::call_once(once, [] { nifti_set_debug_level(0); });
}

void check_suffix(const std::string& path) {
  if (!path.ends_with(".nii") && !path.ends_with(".nii.gz")) {
    fail("{}: expected a file name ending in .nii or .nii.gz", path);
  }
}

std::string gz_message(gzFile file, const std::string& path) {
  int code = Z_OK;
  const char* text = gzerror(file, &code);
  if (code == Z_ERRNO) return std::strerror(errno);
  std::string_view message = text != nullptr ? text : "unknown zlib error";
  const std::string prefix = path + ": ";
  if (message.starts_with(prefix)) message.remove_prefix(prefix.size());
  return std::string(message);
}

}  // namespace nifti_detail

using namespace nifti_detail;  // nifti_detail.hpp

namespace {

constexpr int kNifti1HeaderSize = 348;
constexpr int kNifti2HeaderSize = 540;

// Reads up to n bytes; returns the count (< n at the end of the data). Throws for corrupt data.
std::size_t read_bytes(gzFile file, unsigned char* out, std::size_t n, const std::string& path) {
  std::size_t done = 0;
  while (done < n) {
    const auto chunk = static_cast<unsigned>(std::min<std::size_t>(n - done, 1u << 30));
    const int got = gzread(file, out + done, chunk);
    if (got < 0) fail("{}: corrupt compressed data (zlib: {})", path, gz_message(file, path));
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

// The most a compressed file can inflate to here: zlib's ratio is at most ~1032:1.
std::size_t inflated_limit(std::size_t file_size) {
  return file_size * 1100 + (1u << 16);
}

struct DecompressorFree {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};

// The whole file's bytes when it starts with the gzip magic; else, or when it cannot be read in
// one go, empty (the stream path then reads it, or reports why). An uncompressed .nii is never
// read whole.
std::vector<unsigned char> slurp_gzip(const std::string& path, std::size_t size) {
  std::vector<unsigned char> bytes;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return bytes;
  unsigned char magic[2] = {0, 0};
  if (::pread(fd, magic, 2, 0) != 2 || magic[0] != 0x1f || magic[1] != 0x8b) {
    ::close(fd);
    return bytes;
  }
  try {
    bytes.resize(size);
  } catch (const std::bad_alloc&) {
    ::close(fd);
    return {};
  }
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::read(fd, bytes.data() + done, size - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<std::size_t>(got);
  }
  ::close(fd);
  if (done != size) bytes.clear();
  return bytes;
}

// Inflates a file that is a sequence of complete gzip members (CRC-32 and length of each checked)
// into out[0, inflated); `out` only grows, so a buffer reused for the next file is not cleared
// again. False for anything else — not gzip, truncated, corrupt, trailing bytes, inflating
// to more than a quarter of the memory this process can allocate (the volume's doubles still
// have to fit) — which the zlib stream then reads chunk by chunk or reports in its own words.
bool inflate_whole(const std::string& path, std::size_t file_size, std::vector<unsigned char>& out,
                   std::size_t& inflated) {
  constexpr std::size_t kMinMember = 18;  // 10-byte header, empty block, 8-byte trailer
  if (file_size < kMinMember) return false;
  if (file_size > allocatable_bytes() / 4) return false;
  const std::vector<unsigned char> in = slurp_gzip(path, file_size);
  if (in.size() != file_size) return false;
  const std::unique_ptr<libdeflate_decompressor, DecompressorFree> d(
      libdeflate_alloc_decompressor());
  if (!d) return false;
  // The last member's ISIZE (its length mod 2^32) is the first guess; grow when it is short.
  const std::size_t limit = std::min(inflated_limit(file_size), allocatable_bytes() / 4);
  const unsigned char* isize = &in[file_size - 4];
  const std::size_t last_size =
      isize[0] | (isize[1] << 8) | (isize[2] << 16) | (static_cast<std::size_t>(isize[3]) << 24);
  const std::size_t capacity = std::min(last_size, limit);
  std::size_t used = 0, pos = 0;
  try {
    if (out.size() < std::max<std::size_t>(capacity, 1))
      out.resize(std::max<std::size_t>(capacity, 1));
    while (pos < file_size) {
      if (file_size - pos < kMinMember || in[pos] != 0x1f || in[pos + 1] != 0x8b) return false;
      std::size_t in_used = 0, out_used = 0;
      const libdeflate_result r =
          libdeflate_gzip_decompress_ex(d.get(), in.data() + pos, file_size - pos,
                                        out.data() + used, out.size() - used, &in_used, &out_used);
      if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
        if (out.size() >= limit) return false;
        out.resize(std::min(limit, std::max(out.size() * 2, out.size() + (1u << 20))));
        continue;
      }
      if (r != LIBDEFLATE_SUCCESS) return false;
      pos += in_used;
      used += out_used;
    }
  } catch (const std::bad_alloc&) {
    return false;
  }
  inflated = used;
  return true;
}

// The buffer a thread inflates files into, kept for its next file while a KeepInflateBuffer
// lives on the thread (and when at most 256 MiB).
struct InflatedBuffer {
  static constexpr std::size_t kKept = std::size_t{256} << 20;
  std::vector<unsigned char> bytes;
  bool lent = false;
  int keepers = 0;  // KeepInflateBuffer objects alive on the thread
};

InflatedBuffer& thread_inflated_buffer() {
  thread_local InflatedBuffer buffer;
  return buffer;
}

// Holds the thread's buffer while a file is read (a second file open at once on the thread gets
// a buffer of its own) and gives it back, also when reading throws.
class InflatedLease {
 public:
  InflatedLease() {
    InflatedBuffer& kept = thread_inflated_buffer();
    if (kept.lent) return;
    bytes.swap(kept.bytes);
    kept.lent = borrowed_ = true;
  }
  ~InflatedLease() {
    if (!borrowed_) return;
    InflatedBuffer& kept = thread_inflated_buffer();
    if (kept.keepers > 0 && bytes.size() <= InflatedBuffer::kKept) kept.bytes.swap(bytes);
    kept.lent = false;
  }
  InflatedLease(const InflatedLease&) = delete;
  InflatedLease& operator=(const InflatedLease&) = delete;

  std::vector<unsigned char> bytes;

 private:
  bool borrowed_ = false;
};

// The decompressed bytes of a .nii or .nii.gz, front to back. A .nii.gz is inflated whole with
// libdeflate (2-3x zlib's speed); an uncompressed file, and a .nii.gz libdeflate refuses, go
// through zlib's gz stream (transparent for .nii), whose words the error messages quote.
class ByteSource {
 public:
  ByteSource(const std::string& path, std::size_t file_size) : path_(path) {
    in_memory_ = inflate_whole(path, file_size, inflated_.bytes, inflated_size_);
    if (in_memory_) return;
    file_.reset(gzopen(path.c_str(), "rb"));
    if (!file_) fail("{}: cannot open: {}", path, std::strerror(errno));
    gzbuffer(file_.get(), 1u << 18);
  }

  bool compressed() const { return in_memory_ || gzdirect(file_.get()) == 0; }

  // Up to n bytes into `out`; the count (< n at the end of the data).
  std::size_t read(unsigned char* out, std::size_t n) {
    if (!in_memory_) return read_bytes(file_.get(), out, n, path_);
    const std::size_t got = std::min(n, inflated_size_ - pos_);
    if (got > 0) std::memcpy(out, inflated_.bytes.data() + pos_, got);
    pos_ += got;
    return got;
  }

  // The next (up to) n bytes: a view into the inflated file, or read into `scratch`.
  std::span<const unsigned char> next(std::size_t n, std::vector<unsigned char>& scratch) {
    if (!in_memory_) {
      scratch.resize(std::max(scratch.size(), n));
      return {scratch.data(), read(scratch.data(), n)};
    }
    const std::size_t got = std::min(n, inflated_size_ - pos_);
    pos_ += got;
    return {inflated_.bytes.data() + pos_ - got, got};
  }

  // Reads to the end so that zlib checks the stream's CRC and length, then closes the file (the
  // inflated file was checked whole already).
  void finish(std::vector<unsigned char>& scratch) {
    if (in_memory_) return;
    while (read_bytes(file_.get(), scratch.data(), scratch.size(), path_) > 0) {
    }
    int code = Z_OK;
    gzerror(file_.get(), &code);
    if (code == Z_BUF_ERROR) {
      fail("{}: truncated: the compressed data end early (zlib: {})", path_,
           gz_message(file_.get(), path_));
    }
    if (code != Z_OK)
      fail("{}: corrupt compressed data (zlib: {})", path_, gz_message(file_.get(), path_));
    const int closed = gzclose_r(file_.release());
    if (closed != Z_OK) fail("{}: corrupt compressed data (zlib error {})", path_, closed);
  }

 private:
  std::string path_;
  bool in_memory_ = false;
  InflatedLease inflated_;  // bytes[0, inflated_size_) is the file
  std::size_t inflated_size_ = 0, pos_ = 0;
  GzFile file_;
};

// A T stored at `bytes` (any alignment), its bytes reversed first when the file's byte order is
// not the machine's.
template <typename T>
T load(const unsigned char* bytes, bool swap) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  using U = std::conditional_t<
      sizeof(T) == 1, std::uint8_t,
      std::conditional_t<sizeof(T) == 2, std::uint16_t,
                         std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  U u;
  std::memcpy(&u, bytes, sizeof(T));
  if (swap) {
    if constexpr (sizeof(T) == 2) u = __builtin_bswap16(u);
    if constexpr (sizeof(T) == 4) u = __builtin_bswap32(u);
    if constexpr (sizeof(T) == 8) u = __builtin_bswap64(u);
  }
  T v;
  std::memcpy(&v, &u, sizeof(T));
  return v;
}

std::string quoted_bytes(const unsigned char* bytes, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char c = bytes[i];
    if (c >= 32 && c < 127 && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return '"' + out + '"';
}

// What read_nifti needs from the header, copied out of libnifti's struct.
struct HeaderInfo {
  std::int64_t dim[8]{};
  int datatype = 0;
  int nbyper = 0;
  double pixdim[8]{};
  int qform_code = 0, sform_code = 0;
  double qto_xyz[4][4]{}, sto_xyz[4][4]{};
  std::int64_t data_offset = 0;
};

HeaderInfo header_from_libnifti(const std::string& path) {
  quiet_libnifti();
  HeaderInfo info;
  std::lock_guard lock(libnifti_mutex());
  nifti_image* nim = nifti_image_read(path.c_str(), 0);
  if (nim == nullptr) fail("{}: libnifti could not parse the NIfTI header", path);
  for (int d = 0; d < 8; ++d) {
    info.dim[d] = nim->dim[d];
    info.pixdim[d] = nim->pixdim[d];
  }
  info.datatype = nim->datatype;
  info.nbyper = nim->nbyper;
  info.qform_code = nim->qform_code;
  info.sform_code = nim->sform_code;
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) {
      info.qto_xyz[r][c] = nim->qto_xyz.m[r][c];
      info.sto_xyz[r][c] = nim->sto_xyz.m[r][c];
    }
  }
  info.data_offset = nim->iname_offset;
  nifti_image_free(nim);
  return info;
}

const char* datatype_name(int datatype) {
  const char* name = nifti_datatype_string(datatype);
  return name != nullptr ? name : "unknown";
}

template <typename T>
void convert(const unsigned char* src, std::size_t n, bool swap, double* out) {
  for (std::size_t i = 0; i < n; ++i) {
    const T v = load<T>(src + i * sizeof(T), swap);
    out[i] = static_cast<double>(v);
  }
}

void convert_voxels(int datatype, const unsigned char* src, std::size_t n, bool swap, double* out) {
  switch (datatype) {
    case DT_UINT8:
      return convert<std::uint8_t>(src, n, swap, out);
    case DT_INT8:
      return convert<std::int8_t>(src, n, swap, out);
    case DT_UINT16:
      return convert<std::uint16_t>(src, n, swap, out);
    case DT_INT16:
      return convert<std::int16_t>(src, n, swap, out);
    case DT_UINT32:
      return convert<std::uint32_t>(src, n, swap, out);
    case DT_INT32:
      return convert<std::int32_t>(src, n, swap, out);
    case DT_UINT64:
      return convert<std::uint64_t>(src, n, swap, out);
    case DT_INT64:
      return convert<std::int64_t>(src, n, swap, out);
    case DT_FLOAT32:
      return convert<float>(src, n, swap, out);
    case DT_FLOAT64:
      return convert<double>(src, n, swap, out);
    default:
      ASSAY_ASSERT(false);
  }
}

int bytes_per_voxel(int datatype) {
  switch (datatype) {
    case DT_UINT8:
    case DT_INT8:
      return 1;
    case DT_UINT16:
    case DT_INT16:
      return 2;
    case DT_UINT32:
    case DT_INT32:
    case DT_FLOAT32:
      return 4;
    case DT_UINT64:
    case DT_INT64:
    case DT_FLOAT64:
      return 8;
    default:
      return 0;
  }
}

// nibabel's fall-back affine (AnalyzeHeader.get_base_affine): pixel sizes on the diagonal with x
// negated, origin at the centre voxel.
std::array<double, 16> base_affine(const std::array<std::size_t, 3>& shape, const double* pixdim) {
  std::array<double, 16> a{};
  for (int axis = 0; axis < 3; ++axis) {
    const double zoom = (axis == 0 ? -1.0 : 1.0) * pixdim[axis + 1];
    a[axis * 4 + axis] = zoom;
    a[axis * 4 + 3] = -(static_cast<double>(shape[axis]) - 1) / 2.0 * zoom;
  }
  a[15] = 1;
  return a;
}

// The header bytes as stored, with their version (size) and byte order.
struct RawHeader {
  unsigned char bytes[kNifti2HeaderSize];
  int size = 0;  // kNifti1HeaderSize or kNifti2HeaderSize
  bool swapped = false;
  bool nifti1() const { return size == kNifti1HeaderSize; }
};

// A path that names a non-empty regular file (a pipe or device would block or never end).
struct stat stat_regular_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    fail("{}: cannot open: {}", path, std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) {
    fail(
        "{}: cannot open: not a regular file (a pipe or device; NIfTI volumes are read from "
        "files)",
        path);
  }
  if (info.st_size == 0) fail("{}: empty file, expected a NIfTI header", path);
  return info;
}

// Reads the header: sizeof_hdr tells the version and the byte order; then the magic.
void read_raw_header(ByteSource& file, const std::string& path, RawHeader& raw) {
  unsigned char* header = raw.bytes;
  std::size_t got = file.read(header, 4);
  if (got < 4) {
    fail("{}: truncated: expected a NIfTI header of at least 348 bytes, found {}", path, got);
  }
  const std::int32_t size_native = load<std::int32_t>(header, false);
  const std::int32_t size_swapped = load<std::int32_t>(header, true);
  if (size_native == kNifti1HeaderSize || size_swapped == kNifti1HeaderSize) {
    raw.size = kNifti1HeaderSize;
  } else if (size_native == kNifti2HeaderSize || size_swapped == kNifti2HeaderSize) {
    raw.size = kNifti2HeaderSize;
  } else {
    fail("{}: not a NIfTI file: expected sizeof_hdr 348 (NIfTI-1) or 540 (NIfTI-2), found {}", path,
         size_native);
  }
  raw.swapped = size_native != raw.size;
  got += file.read(header + 4, raw.size - 4);
  if (got < static_cast<std::size_t>(raw.size)) {
    fail("{}: truncated: expected a {}-byte header, found {} bytes", path, raw.size, got);
  }
  if (raw.nifti1()) {
    const unsigned char* magic = header + 344;
    if (std::memcmp(magic, "n+1\0", 4) != 0) {
      fail("{}: not a single-file NIfTI-1 image: expected magic \"n+1\", found {}{}", path,
           quoted_bytes(magic, 4),
           std::memcmp(magic, "ni1\0", 4) == 0
               ? " (the header of a .hdr/.img pair, renamed; assay reads .nii/.nii.gz files)"
               : "");
    }
  } else {
    const unsigned char* magic = header + 4;
    if (std::memcmp(magic, "n+2\0\r\n\032\n", 8) != 0) {
      fail("{}: not a single-file NIfTI-2 image: expected magic \"n+2\", found {}", path,
           quoted_bytes(magic, 8));
    }
  }
}

// Dimensions and data type from the header bytes, checked before libnifti sees them (it prints
// its own complaints on stderr whatever its debug level).
void check_raw_dims_and_type(const RawHeader& raw, const std::string& path) {
  const unsigned char* header = raw.bytes;
  std::int64_t dim[8];
  int datatype = 0;
  // NIfTI-1: int16 dim[8] at byte 40, int16 datatype at 70; NIfTI-2: int64 dim[8] at 16,
  // int16 datatype at 12.
  for (int d = 0; d < 8; ++d) {
    dim[d] = raw.nifti1() ? load<std::int16_t>(header + 40 + 2 * d, raw.swapped)
                          : load<std::int64_t>(header + 16 + 8 * d, raw.swapped);
  }
  datatype = load<std::int16_t>(header + (raw.nifti1() ? 70 : 12), raw.swapped);
  if (dim[0] < 1 || dim[0] > 7) {
    fail("{}: expected 1 to 7 dimensions, found dim[0] = {}", path, dim[0]);
  }
  for (int d = 1; d <= dim[0]; ++d) {
    if (dim[d] < 1) fail("{}: expected positive dimensions, found dim[{}] = {}", path, d, dim[d]);
  }
  if (bytes_per_voxel(datatype) == 0) {
    fail("{}: unsupported data type {} ({}): expected an integer or float32/float64 type", path,
         datatype_name(datatype), datatype);
  }
}

// vox_offset from the raw bytes: libnifti silently replaces an invalid one (0, negative, NaN,
// huge) by the header size, which would read every voxel shifted.
std::int64_t raw_vox_offset(const RawHeader& raw, const std::string& path) {
  double offset_value = 0;
  // NIfTI-1: float at byte 108; NIfTI-2: int64 at 168.
  offset_value = raw.nifti1()
                     ? load<float>(raw.bytes + 108, raw.swapped)
                     : static_cast<double>(load<std::int64_t>(raw.bytes + 168, raw.swapped));
  if (!std::isfinite(offset_value) || offset_value != std::floor(offset_value) ||
      offset_value < raw.size || offset_value > 9e15) {
    fail("{}: expected vox_offset a whole number >= {}, found {}", path, raw.size, offset_value);
  }
  return static_cast<std::int64_t>(offset_value);
}

// The voxel grid of a 3-D volume and the bytes its data take.
struct VoxelLayout {
  std::array<std::size_t, 3> shape{};
  std::size_t n = 1;        // voxels
  std::size_t n_bytes = 0;  // stored bytes
  int nbyper = 0;           // stored bytes per voxel
};

// Checks libnifti's reading of the header (a 3-D volume of a supported type) and that the data
// fit in the file (at most zlib's ~1032:1 ratio when compressed), before anything is allocated:
// a damaged dim[] would otherwise ask for terabytes.
VoxelLayout check_layout(const HeaderInfo& h, const std::string& path, std::size_t file_size,
                         bool compressed) {
  const std::int64_t ndim = h.dim[0];
  if (ndim < 1 || ndim > 7) fail("{}: expected 1 to 7 dimensions, found dim[0] = {}", path, ndim);
  for (int d = 1; d <= ndim; ++d) {
    if (h.dim[d] < 1)
      fail("{}: expected positive dimensions, found dim[{}] = {}", path, d, h.dim[d]);
  }
  std::int64_t extra = 1;
  bool extra_overflow = false;  // dims 4..7 can multiply past 2^63 (found by fuzz_nifti)
  for (int d = 4; d <= ndim; ++d) extra_overflow |= __builtin_mul_overflow(extra, h.dim[d], &extra);
  if (extra_overflow || extra != 1) {
    std::string dims;
    for (int d = 1; d <= ndim; ++d) dims += (d > 1 ? "×" : "") + std::to_string(h.dim[d]);
    fail("{}: expected a 3-D volume, found a {}-D image of {} with {} volumes", path, ndim, dims,
         extra_overflow ? std::string("more than 2^63") : std::to_string(extra));
  }
  VoxelLayout layout;
  layout.nbyper = bytes_per_voxel(h.datatype);
  if (layout.nbyper == 0) {
    fail("{}: unsupported data type {} ({}): expected an integer or float32/float64 type", path,
         datatype_name(h.datatype), h.datatype);
  }
  auto& shape = layout.shape;
  bool overflow = false;
  for (int axis = 0; axis < 3; ++axis) {
    shape[axis] = axis < ndim ? static_cast<std::size_t>(h.dim[axis + 1]) : 1;
    overflow |= __builtin_mul_overflow(layout.n, shape[axis], &layout.n);
  }
  overflow |=
      __builtin_mul_overflow(layout.n, static_cast<std::size_t>(layout.nbyper), &layout.n_bytes);
  const std::size_t limit = compressed ? inflated_limit(file_size) : file_size;
  const auto offset = static_cast<std::size_t>(std::max<std::int64_t>(h.data_offset, 0));
  if (overflow) {
    fail("{}: expected a volume that fits in memory, found dim = {}×{}×{} (more than 2^64 bytes)",
         path, shape[0], shape[1], shape[2]);
  }
  if (layout.n_bytes > limit || offset + layout.n_bytes > limit) {
    const std::size_t available = limit > offset ? limit - offset : 0;
    fail("{}: truncated: expected {} bytes of voxel data ({} {} voxels) from byte {}, found {}{}",
         path, layout.n_bytes, layout.n, datatype_name(h.datatype), offset,
         compressed ? "at most " : "",
         compressed ? fmt::format("{} (a {}-byte compressed file)", available, file_size)
                    : std::to_string(available));
  }
  return layout;
}

// Skips the header extensions up to the voxel data.
void skip_extensions(ByteSource& file, const std::string& path, const HeaderInfo& h,
                     int header_size, std::vector<unsigned char>& scratch) {
  if (h.data_offset < header_size) {
    fail("{}: expected vox_offset >= {}, found {}", path, header_size, h.data_offset);
  }
  std::size_t to_skip = static_cast<std::size_t>(h.data_offset) - header_size;
  while (to_skip > 0) {
    const std::size_t chunk = std::min(to_skip, scratch.size());
    const std::size_t skipped = file.read(scratch.data(), chunk);
    if (skipped < chunk) {
      fail("{}: truncated: expected voxel data from byte {}, found the end of the data at byte {}",
           path, h.data_offset, h.data_offset - static_cast<std::int64_t>(to_skip - skipped));
    }
    to_skip -= chunk;
  }
}

struct Scaling {
  double slope = 0, inter = 0;
  bool apply = false;  // a finite, non-zero slope other than value = stored value
};

// Scaling from the header bytes: libnifti replaces a non-finite scl_inter by 0 silently.
Scaling raw_scaling(const RawHeader& raw, const std::string& path) {
  double slope = 0, inter = 0;
  if (raw.nifti1()) {
    std::uint32_t bits[2];
    std::memcpy(bits, raw.bytes + 112, 8);
    float values[2];
    for (int k = 0; k < 2; ++k) {
      if (raw.swapped) bits[k] = __builtin_bswap32(bits[k]);
      std::memcpy(&values[k], &bits[k], 4);
    }
    slope = values[0];
    inter = values[1];
  } else {
    std::uint64_t bits[2];
    std::memcpy(bits, raw.bytes + 176, 16);
    for (int k = 0; k < 2; ++k) {
      if (raw.swapped) bits[k] = __builtin_bswap64(bits[k]);
    }
    std::memcpy(&slope, &bits[0], 8);
    std::memcpy(&inter, &bits[1], 8);
  }
  const bool scaled = slope != 0 && std::isfinite(slope);
  if (scaled) {
    if (!std::isfinite(inter)) {
      fail("{}: expected a finite scl_inter with scl_slope {}, found {}", path, slope, inter);
    }
  }
  return {slope, inter, scaled && (slope != 1 || inter != 0)};
}

// Decodes the voxel bytes chunk by chunk (of the inflated file, or decompressed by zlib into a
// 1 MiB buffer): `decode(bytes, voxels, first)` gets each chunk's bytes and the index of its
// first voxel.
template <typename Decode>
void read_voxels(ByteSource& file, const std::string& path, const HeaderInfo& h,
                 const VoxelLayout& layout, Decode&& decode) {
  const std::size_t n = layout.n, n_bytes = layout.n_bytes;
  constexpr std::size_t kChunk = (std::size_t{1} << 20) / 8 * 8;
  std::vector<unsigned char> scratch;
  std::size_t data_read = 0, first = 0;
  while (data_read < n_bytes) {
    const std::size_t want = std::min(kChunk, n_bytes - data_read);
    const std::span<const unsigned char> got = file.next(want, scratch);
    if (got.size() < want) {
      fail("{}: truncated: expected {} bytes of voxel data ({} {} voxels) from byte {}, found {}",
           path, n_bytes, n, datatype_name(h.datatype), h.data_offset, data_read + got.size());
    }
    const std::size_t voxels = got.size() / static_cast<std::size_t>(layout.nbyper);
    decode(got.data(), voxels, first);
    first += voxels;
    data_read += got.size();
  }
}

// Voxels per block handed to a caller's check or consumer: 128 KiB of doubles, in the L2 cache.
constexpr std::size_t kConsumedVoxels = std::size_t{1} << 14;

// value = stored * slope + inter, as nibabel, where the header scales.
void apply_scaling(const Scaling& scaling, double* values, std::size_t n) {
  if (!scaling.apply) return;
  for (std::size_t i = 0; i < n; ++i) values[i] = values[i] * scaling.slope + scaling.inter;
}

// Converts and scales the voxels a block of up to kConsumedVoxels at a time into
// `destination(first)`, then hands each block to `then(first, block)`.
template <typename Destination, typename Then>
void decode_blocks(ByteSource& file, const std::string& path, const HeaderInfo& h,
                   const VoxelLayout& layout, const Scaling& scaling, bool swapped,
                   Destination&& destination, Then&& then) {
  const auto nbyper = static_cast<std::size_t>(layout.nbyper);
  read_voxels(file, path, h, layout,
              [&](const unsigned char* bytes, std::size_t voxels, std::size_t first) {
                for (std::size_t done = 0; done < voxels; done += kConsumedVoxels) {
                  const std::size_t m = std::min(kConsumedVoxels, voxels - done);
                  double* block = destination(first + done);
                  convert_voxels(h.datatype, bytes + done * nbyper, m, swapped, block);
                  apply_scaling(scaling, block, m);
                  then(first + done, std::span<double>(block, m));
                }
              });
}

// Into `volume.data`, which keeps its memory when it is reused for a volume of the same size;
// `check` (if any) sees each block as soon as it is decoded.
void read_voxels_into(ByteSource& file, const std::string& path, const HeaderInfo& h,
                      const VoxelLayout& layout, const Scaling& scaling, bool swapped,
                      Volume& volume, const VoxelBlockCheck& check) {
  const auto& shape = layout.shape;
  try {
    volume.data.resize(layout.n);
  } catch (const std::bad_alloc&) {
    fail("{}: needs {:.1f} GB for a {}×{}×{} volume of doubles, more than could be allocated", path,
         static_cast<double>(layout.n) * sizeof(double) / 1e9, shape[0], shape[1], shape[2]);
  }
  decode_blocks(
      file, path, h, layout, scaling, swapped,
      [&](std::size_t first) { return volume.data.data() + first; },
      [&](std::size_t first, std::span<double> block) {
        if (check) check(first, block);
      });
}

// Through `consume` (the stored bytes through `consume_bytes` when given and the file holds
// unscaled uint8), a block at a time.
void read_voxels_to(ByteSource& file, const std::string& path, const HeaderInfo& h,
                    const VoxelLayout& layout, const Scaling& scaling, bool swapped,
                    const VoxelConsumer& consume, const ByteConsumer& consume_bytes) {
  if (consume_bytes && h.datatype == DT_UINT8 && !scaling.apply) {
    return read_voxels(file, path, h, layout,
                       [&](const unsigned char* bytes, std::size_t voxels, std::size_t first) {
                         consume_bytes(first, std::span<const std::uint8_t>(bytes, voxels));
                       });
  }
  std::vector<double> buffer(kConsumedVoxels);
  decode_blocks(
      file, path, h, layout, scaling, swapped, [&](std::size_t) { return buffer.data(); },
      [&](std::size_t first, std::span<double> block) { consume(first, block); });
}

// The voxel-to-world matrix: sform, else qform, else the voxel sizes; it must be finite.
void set_affine(const HeaderInfo& h, const std::string& path, Volume& volume) {
  if (h.sform_code > 0) {
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) volume.affine[r * 4 + c] = h.sto_xyz[r][c];
    }
  } else if (h.qform_code > 0) {
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) volume.affine[r * 4 + c] = h.qto_xyz[r][c];
    }
  } else {
    volume.affine = base_affine(volume.shape, h.pixdim);
  }
  const char* source = h.sform_code > 0 ? "sform" : h.qform_code > 0 ? "qform" : "pixdim";
  for (std::size_t i = 0; i < 16; ++i) {
    if (!std::isfinite(volume.affine[i])) {
      fail("{}: expected a finite voxel-to-world matrix (from the {}), found {} at entry [{}][{}]",
           path, source, volume.affine[i], i / 4, i % 4);
    }
  }
}

}  // namespace

KeepInflateBuffer::KeepInflateBuffer() {
  ++thread_inflated_buffer().keepers;
}

KeepInflateBuffer::~KeepInflateBuffer() {
  InflatedBuffer& kept = thread_inflated_buffer();
  if (--kept.keepers == 0) std::vector<unsigned char>().swap(kept.bytes);
}

Volume read_nifti(const std::string& path) {
  Volume volume;
  read_nifti_into(path, volume);
  return volume;
}

namespace {

// Everything before the voxels: the checked header, its layout and scaling.
struct OpenedVolume {
  HeaderInfo header;
  VoxelLayout layout;
  Scaling scaling;
  bool swapped = false;
};

// Reads and checks the header, leaving the file at the first voxel byte. With `doubles_held`
// (the voxels will be held as doubles) the memory they take is checked first: a small .nii.gz
// can hold a huge volume of zeros.
OpenedVolume open_volume(const std::string& path, ByteSource& file, std::size_t file_size,
                         const Volume& volume, bool doubles_held) {
  RawHeader raw;
  read_raw_header(file, path, raw);
  check_raw_dims_and_type(raw, path);
  const std::int64_t raw_offset = raw_vox_offset(raw, path);

  OpenedVolume opened;
  opened.header = header_from_libnifti(path);
  opened.header.data_offset = raw_offset;
  opened.layout = check_layout(opened.header, path, file_size, file.compressed());
  const auto& shape = opened.layout.shape;
  const std::size_t n = opened.layout.n;
  if (doubles_held && volume.data.size() != n) {
    try {
      check_memory((n - std::min(n, volume.data.capacity())) * sizeof(double),
                   fmt::format("a {}×{}×{} volume ({} voxels as 8-byte doubles)", shape[0],
                               shape[1], shape[2], n));
    } catch (const Error& e) {
      fail("{}: {}", path, e.what());
    }
  }
  std::vector<unsigned char> scratch(1u << 16);
  skip_extensions(file, path, opened.header, raw.size, scratch);
  opened.scaling = raw_scaling(raw, path);
  opened.swapped = raw.swapped;
  return opened;
}

// A .hdr/.img pair (NIfTI-1 or Analyze 7.5, as FSL writes with FSLOUTPUTTYPE=NIFTI_PAIR and old
// SPM wrote) is named with how to convert it: the volumes assay reads are single files.
void refuse_pair(const std::string& path) {
  for (const char* suffix : {".hdr", ".img", ".hdr.gz", ".img.gz"}) {
    if (!path.ends_with(suffix)) continue;
    const std::string stem = path.substr(0, path.size() - std::strlen(suffix));
    const std::string header = stem + (path.ends_with(".gz") ? ".hdr.gz" : ".hdr");
    fail(
        "{}: expected a single-file NIfTI volume (.nii or .nii.gz), found one file of a .hdr/.img "
        "pair (as FSL writes with FSLOUTPUTTYPE=NIFTI_PAIR, or Analyze 7.5); convert it, e.g. "
        "with fslchfiletype NIFTI_GZ {} or in Python nibabel.save(nibabel.load(\"{}\"), "
        "\"{}.nii.gz\")",
        path, header, header, stem);
  }
}

std::size_t checked_file_size(const std::string& path) {
  check_utf8_name(path);
  refuse_pair(path);
  check_suffix(path);
  return static_cast<std::size_t>(stat_regular_file(path).st_size);
}

// Opens and checks the file, sets the volume's path and shape, lets `read_voxels_with` read
// the voxels, checks the end of the stream and sets the affine.
template <typename ReadVoxels>
void read_volume(const std::string& path, Volume& volume, bool doubles_held,
                 ReadVoxels&& read_voxels_with) {
  const std::size_t file_size = checked_file_size(path);
  note_input(path, "a NIfTI volume");
  ByteSource file(path, file_size);
  const OpenedVolume v = open_volume(path, file, file_size, volume, doubles_held);
  volume.path = path;
  volume.shape = v.layout.shape;
  read_voxels_with(file, v);
  std::vector<unsigned char> scratch(1u << 16);
  file.finish(scratch);
  set_affine(v.header, path, volume);
}

}  // namespace

void read_nifti_into(const std::string& path, Volume& volume) {
  read_nifti_into(path, volume, VoxelBlockCheck());
}

void read_nifti_into(const std::string& path, Volume& volume, const VoxelBlockCheck& check) {
  read_volume(path, volume, true, [&](ByteSource& file, const OpenedVolume& v) {
    read_voxels_into(file, path, v.header, v.layout, v.scaling, v.swapped, volume, check);
  });
}

void read_nifti_voxels(const std::string& path, Volume& volume, const VoxelConsumer& consume,
                       const ByteConsumer& consume_bytes) {
  volume.data.clear();
  read_volume(path, volume, false, [&](ByteSource& file, const OpenedVolume& v) {
    read_voxels_to(file, path, v.header, v.layout, v.scaling, v.swapped, consume, consume_bytes);
  });
}

}  // namespace assay

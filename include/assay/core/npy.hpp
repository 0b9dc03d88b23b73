// Reading NumPy .npy files (format versions 1.0, 2.0 and 3.0) into doubles.
//
// Layout: NpyArray::data holds the elements in C order (row-major: for shape (r, c), element
// (i, j) is data[i*c + j]), whatever the file's order — Fortran-order files are transposed while
// reading. shape is empty for a 0-d array (one element). Accepted dtypes: f8 f4 f2 i8 i4 i2 i1 u8
// u4 u2 u1 b1 in either byte order ('<', '>', '=', '|' or none: ">f8" from a big-endian machine is
// byte-swapped) and numpy's one-letter codes ("d", "<f"); bool reads as 0/1, and 64-bit integers
// beyond 2^53 are rounded to the nearest double. Structured dtypes, complex numbers, strings,
// dates and pickled objects (never unpickled) are refused with a message naming the dtype.
// Headers as every numpy version wrote them are read: format 1.0, 2.0 (long headers) and 3.0
// (UTF-8), keys in any order, either quote, Python 2's `3L` and u'' literals, any padding.
// A file must hold exactly the bytes its header announces (truncated data or trailing bytes are
// errors). A pipe or device is read as far as the header announces (/dev/zero is refused at
// once: no magic string); an .npz (zip) archive is named as such.
//
// Example:
//   // np.save("a.npy", np.arange(6, dtype="<i4").reshape(2, 3))
//   NpyArray a = read_npy("a.npy");
//   // a.shape == {2, 3}, a.dtype == "<i4", a.data == {0, 1, 2, 3, 4, 5}:
//   // element (i, j) is a.data[i * 3 + j]
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace assay {

struct NpyArray {
  /// Size of each dimension; empty for a 0-d array.
  std::vector<std::int64_t> shape;
  /// Elements in C order, converted to double.
  std::vector<double> data;
  /// The dtype descriptor as the file wrote it, e.g. "<f4".
  std::string dtype;
};

/// Reads a .npy file; throws assay::Error prefixed with the path ("x.npy: ...") for a missing
/// file, a wrong magic string, a malformed header, an unsupported dtype or truncated data.
NpyArray read_npy(const std::string& path);

/// Same, for the bytes of a .npy file in memory; `name` stands for the file name in messages.
NpyArray parse_npy(std::string_view bytes, const std::string& name);

}  // namespace assay

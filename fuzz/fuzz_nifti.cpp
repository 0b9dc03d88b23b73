// libFuzzer target: NIfTI header and data -> assay::read_nifti. The reader takes a path, so the
// bytes go to a scratch file: "fuzz.nii.gz" when they start with gzip's magic bytes (zlib path),
// else "fuzz.nii".
#include "assay/core/nifti.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const bool gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  const assay::fuzz::TempFile file(data, size, gzip ? ".nii.gz" : ".nii");
  return assay::fuzz::guarded([&] { assay::read_nifti(file.path()); });
}

// Private to the NIfTI files (nifti.cpp reads, nifti_write.cpp writes): the lock and settings
// around every call into libnifti, the file-name check, and zlib's gz streams.
#pragma once

#include <zlib.h>

#include <memory>
#include <mutex>
#include <string>

namespace assay::nifti_detail {

// libnifti keeps global options (debug level) and is not documented as thread-safe: every call
// into it holds this lock. The calls are header-sized, so the lock costs nothing measurable.
std::mutex& libnifti_mutex();

/// Sets libnifti's debug level to 0 (once): it would print its own complaints on stderr.
void quiet_libnifti();

/// Refuses a path that does not end in .nii or .nii.gz.
void check_suffix(const std::string& path);

struct GzCloser {
  void operator()(gzFile_s* file) const {
    if (file != nullptr) gzclose(file);
  }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// zlib's words for the stream's error, without the file name it puts in front (ours is there).
std::string gz_message(gzFile file, const std::string& path);

}  // namespace assay::nifti_detail

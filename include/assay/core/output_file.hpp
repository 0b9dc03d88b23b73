// One writer for every file assay writes: the bytes go to a temporary file in the target's
// folder, are flushed to disk (fsync), and the temporary is renamed over the target. A reader
// therefore sees either the old file or the complete new one, never a truncated one, and a
// failure (disk full, file size limit, no permission) leaves no file that looks complete.
//
//   write_file_atomic("out/results.json", json.dump(2) + "\n");
//   check_writable("out/report.html");   // before long work: fails now, not after an hour
#pragma once

#include <string>
#include <string_view>

namespace assay {

/// Writes `bytes` to `path` atomically (temporary file in the same folder, fsync, rename).
/// Throws assay::Error naming the path and the system's reason when any step fails; the
/// temporary file is removed then.
void write_file_atomic(const std::string& path, std::string_view bytes);

/// Throws assay::Error unless a file could be created in `path`'s folder (the folder exists and
/// is writable) and `path` is not a folder. Creates nothing.
void check_writable(const std::string& path);

}  // namespace assay

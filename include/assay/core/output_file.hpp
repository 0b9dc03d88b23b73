// One writer for every file assay writes: the bytes go to a temporary file in the target's
// folder, are flushed to disk (fsync), and the temporary is renamed over the target. A reader
// therefore sees either the old file or the complete new one, never a truncated one, and a
// failure (disk full, file size limit, no permission) leaves no file that looks complete.
//
// An output never replaces an input, a device, a FIFO or a socket: every writer refuses a target
// that is an input of the running command (input_files.hpp: however it is spelled, or a hard
// link) or that exists and is not a regular file. A symbolic link to a regular file (or to
// nothing yet) is followed: the file it points to is written and the link stays a link.
//
// Example:
//   write_file_atomic("out/results.json", json.dump(2) + "\n");
//   check_writable("out/report.html", "--html");  // before long work: fails now, not after an hour
//
// A command with several outputs stages them all, then commits them together, so that a failure
// on the last one does not leave the first ones looking like a complete run:
//
// Example:
//   OutputBatch batch;
//   batch.stage("out/results.json", json_text);   // written to a temporary now
//   batch.stage("out/report.html", page_html);    // disk full here: nothing is renamed
//   batch.commit();                                // renames every temporary over its target
//
// Commits of several processes to the same targets do not interleave: a commit holds an
// exclusive lock (flock) on the targets' folders, taken in a fixed order, so two runs writing the
// same --json-out and --html leave the set of one of them.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace assay {

/// Writes `bytes` to `path` atomically (temporary file in the same folder, fsync, rename).
/// Throws assay::Error naming the path and the system's reason when any step fails; the
/// temporary file is removed then. Refuses a target that is an input or not a regular file
/// (see above) before writing anything.
void write_file_atomic(const std::string& path, std::string_view bytes);

/// As write_file_atomic for a writer that streams (e.g. through zlib): `write` gets the open
/// descriptor of the temporary file and throws assay::Error if it fails (it may dup() the
/// descriptor and close its copy); the temporary is then flushed and renamed over `path`.
void write_file_atomic_with(const std::string& path, const std::function<void(int fd)>& write);

/// Throws assay::Error unless a file could be created in `path`'s folder (the folder exists and
/// is writable), `path` is not a folder, not a noted input and, when it exists, a regular file.
/// `what` names the option that gave `path` in the messages, e.g. "--html base.csv: is the input
/// file ./base.csv (the data); an output never replaces an input: choose another name".
/// Creates nothing.
void check_writable(const std::string& path, std::string_view what = {});

/// For outputs a command writes under names of its own (soak's --out DIR/results.csv, the
/// report's PAGE.json): refuses `folder`/`name` for each of `names` when it is a noted input or
/// exists and is not a regular file; `given_as` is how the user named them, e.g. "--out DIR":
/// "--out DIR: writes DIR/results.csv, which is the input file ...". The folder need not exist.
void check_derived_outputs(const std::string& folder, const std::vector<std::string>& names,
                           std::string_view given_as);

/// An output folder: with `create`, makes `folder` (and its parents); without, only checks that
/// it could be made (its nearest existing ancestor is a folder) and creates nothing, for
/// commands that just plan. Throws assay::Error "FOLDER: cannot create directory: REASON", or
/// when `folder` is a noted input file.
void prepare_output_folder(const std::string& folder, bool create);

/// Throws assay::Error when two of `paths` (empty ones skipped) name the same file: a command
/// would overwrite one output with another. `names` (one per path, e.g. "--json-out") say which
/// options gave them.
void check_distinct_outputs(const std::vector<std::string>& paths,
                            const std::vector<std::string>& names);

/// Several outputs of one command, written all-or-nothing (as far as the file system allows).
/// Requires: commit() at most once. Ensures: before commit() no target is touched; a staged
/// temporary that is never committed is removed by the destructor.
class OutputBatch {
 public:
  OutputBatch();
  ~OutputBatch();
  OutputBatch(const OutputBatch&) = delete;
  OutputBatch& operator=(const OutputBatch&) = delete;

  /// Writes `bytes` to a temporary file next to `path` (next to the file a link points to) and
  /// flushes it to disk; throws assay::Error (and removes the temporary) when that fails or when
  /// `path` may not be written (see write_file_atomic).
  void stage(const std::string& path, std::string_view bytes);
  /// Renames every staged temporary over its target, in staging order, holding the targets'
  /// folders' locks. If a rename fails, the targets renamed before it in this batch are removed
  /// and assay::Error is thrown.
  void commit();

 private:
  struct Staged;
  std::vector<std::unique_ptr<Staged>> staged_;
};

}  // namespace assay

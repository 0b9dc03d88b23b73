// The files a command reads, so that none of its outputs replaces one of them.
//
// A command (the CLI's main, a Python entry point that reads and writes files) holds an
// InputFilesScope. While it lives, the command notes the inputs it names and every reader notes
// the file it opens, by device and inode: another spelling (./base.csv, an absolute path, a
// symbolic link) or a hard link is the same file. The output writers (output_file.hpp) refuse a
// target that is a noted input:
//
// Example:
//   InputFilesScope inputs;                      // main(): for the whole command
//   note_input("./base.csv", "the data");        // the command names its inputs first, ...
//   check_writable("base.csv", "--html");        // ... so this fails before any work:
//       // throws: --html base.csv: is the input file ./base.csv (the data); an output never
//       // replaces an input: choose another name
//   read_csv("base.csv");                        // readers note what they open (one line each)
//
// Without a scope nothing is noted: a library user, or a long Python session, is never kept
// from writing a file that it read in another call. The record is one per process (readers run
// on worker threads too), so two Python calls running at once share it: each then also refuses
// the other's inputs, which it could only have raced with anyway.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace assay {

/// A file a command reads: the path as the command spelled it and what it is for messages
/// ("the data", "the --model file", "a NIfTI volume").
struct NamedInput {
  std::string path;
  std::string role;
};

/// Notes `path` as an input of the running command while an InputFilesScope lives; does nothing
/// otherwise, for an empty path, or for a path that names no file (its reader reports that).
/// The first note of a file keeps its spelling and role.
void note_input(const std::string& path, std::string_view role);

/// note_input for each of `inputs`.
void note_inputs(const std::vector<NamedInput>& inputs);

/// The noted input that is the same file as `path` (same device and inode; a link is followed),
/// if any.
std::optional<NamedInput> noted_input(const std::string& path);

/// Inputs are noted while at least one scope lives; the record is cleared when the last ends.
/// Scopes nest (a Python call made inside another shares the outer record).
class InputFilesScope {
 public:
  InputFilesScope();
  ~InputFilesScope();
  InputFilesScope(const InputFilesScope&) = delete;
  InputFilesScope& operator=(const InputFilesScope&) = delete;
};

}  // namespace assay

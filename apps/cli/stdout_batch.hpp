// A command's standard output and files, all or nothing. A command that prints its result and
// also writes files stages the files first (OutputBatch: temporaries, nothing visible yet),
// prints, calls require_stdout_written(), and only then commits the files. When stdout fails
// (disk full, closed pipe, file size limit) the run stops there: no file of it is left behind,
// and the message is "cannot write to standard output: REASON", exit status 2.
//
//   OutputBatch files;
//   files.stage(path, page.render());
//   std::cout << summary;
//   require_stdout_written();   // throws when any byte of stdout was lost
//   files.commit();
#pragma once

namespace assay::cli {

/// Flushes stdout; when any output on it was lost, prints "assay: cannot write to standard
/// output: REASON" on stderr and throws ExitCode{2} (main does not repeat the message).
void require_stdout_written();

}  // namespace assay::cli

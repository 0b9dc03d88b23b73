// See stdout_batch.hpp.
#include "stdout_batch.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "commands.hpp"

namespace assay::cli {

void require_stdout_written() {
  // A long output fails while it is written, not at the final flush: the failed write's errno
  // is the reason (nothing has run since that could change it).
  const int during_writes = std::ferror(stdout) != 0 ? errno : 0;
  errno = 0;
  std::cout.flush();  // flushes stdout itself (synced with stdio)
  std::fflush(stdout);
  const int at_flush = errno;
  if (std::ferror(stdout) == 0 && std::cout) return;
  const int reason = at_flush ? at_flush : during_writes;
  std::fprintf(stderr, "assay: cannot write to standard output%s%s\n", reason ? ": " : "",
               reason ? std::strerror(reason) : "");
  // Reported once: main's final check of stdout must not say it again.
  std::clearerr(stdout);
  std::cout.clear();
  throw ExitCode{2};
}

}  // namespace assay::cli

// CSV files: read whole (memory-mapped, or a stream read to its end within a limit), a cell found
// again in its file for a message (cell_location), and tables written (format_csv, write_csv).
// Parsing is in csv.cpp.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/options.hpp"
#include "assay/core/output_file.hpp"
#include "assay/core/validate.hpp"
#include "core/csv_detail.hpp"

namespace assay {

using namespace csv_detail;  // csv_detail.hpp

namespace {

/// "1.0 GB", "12.3 MB" or "5000 bytes", for messages.
std::string byte_count(std::size_t bytes) {
  if (bytes >= 1'000'000'000) return fmt::format("{:.1f} GB", static_cast<double>(bytes) / 1e9);
  if (bytes >= 1'000'000) return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6);
  return fmt::format("{} bytes", bytes);
}

/// The most bytes read from a stream and where that limit comes from (for the message).
struct StreamLimit {
  std::size_t bytes;
  std::string why;
};

StreamLimit stream_limit(std::size_t requested) {
  if (requested > 0) return {requested, fmt::format("the limit max_stream_bytes = {}", requested)};
  if (const char* env = std::getenv("ASSAY_MAX_STREAM_BYTES"); env && *env) {
    const std::uint64_t bytes = parse_unsigned("ASSAY_MAX_STREAM_BYTES", env);
    if (bytes > 0) return {bytes, fmt::format("the limit ASSAY_MAX_STREAM_BYTES={}", bytes)};
  }
  const std::size_t allocatable = allocatable_bytes();
  const std::size_t bytes = std::max<std::size_t>(allocatable / 3, 1);
  return {bytes,
          fmt::format("the limit for a stream: a third of the {} this process can allocate, as "
                      "the table needs up to twice the text's size again; set "
                      "ASSAY_MAX_STREAM_BYTES to change it",
                      byte_count(allocatable))};
}

/// A region of memory obtained with mmap (a file's bytes, or address space reserved for a
/// stream), unmapped when it goes, also when a constructor throws half-way.
struct Mapping {
  void* address = MAP_FAILED;
  std::size_t length = 0;
  Mapping() = default;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (address != MAP_FAILED) ::munmap(address, length);
  }
};

/// Closes a file descriptor when it goes.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

/// A whole file, read only: memory-mapped when it is a regular file with a size; read to the end
/// otherwise (a pipe, a FIFO, /dev/stdin, a /proc file whose size reads as 0).
class MappedFile {
 public:
  /// `stream_limit`: CsvParams::max_stream_bytes (0 = the default limit).
  explicit MappedFile(const std::string& path, std::size_t stream_limit = 0) : path_(path) {
    const FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (file.fd < 0) {
      throw Error(Location{path}, fmt::format("cannot open: {}", std::strerror(errno)));
    }
    struct stat st {};
    if (::fstat(file.fd, &st) != 0) {
      throw Error(Location{path}, fmt::format("cannot open: {}", std::strerror(errno)));
    }
    if (S_ISDIR(st.st_mode)) {
      throw Error(Location{path}, fmt::format("cannot open: {}", std::strerror(EISDIR)));
    }
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
      size_ = static_cast<std::size_t>(st.st_size);
      mapping_.length = size_;
      mapping_.address = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, file.fd, 0);
      if (mapping_.address == MAP_FAILED) {
        throw Error(Location{path}, fmt::format("cannot read: {}", std::strerror(errno)));
      }
    } else {
      read_stream(file.fd, stream_limit);
    }
  }

  std::string_view view() const {
    return size_ ? std::string_view(static_cast<const char*>(mapping_.address), size_)
                 : std::string_view();
  }

 private:
  /// Reads until the end of the stream into an anonymous mapping that grows by mremap (pages
  /// move, bytes are never copied: the memory taken is the bytes read), refusing more than the
  /// limit as soon as it arrives, and a NUL byte or UTF-16 at once, so that /dev/zero and
  /// `yes |` end with a message, not an OOM kill.
  void read_stream(int fd, std::size_t requested_limit) {
    const StreamLimit limit = stream_limit(requested_limit);
    const std::size_t most = limit.bytes + 1;  // one byte more: a stream that fills it is too long
    grow_stream_buffer(std::min(most, std::size_t{16} << 20), limit);
    ::fcntl(fd, F_SETPIPE_SZ, 1 << 20);  // fewer, larger reads from a pipe; fails harmlessly
    constexpr std::size_t kRead = std::size_t{1} << 20;
    while (size_ < most) {
      if (size_ == mapping_.length) grow_stream_buffer(std::min(most, 2 * size_), limit);
      char* const buffer = static_cast<char*>(mapping_.address);
      const ssize_t got = ::read(fd, buffer + size_, std::min(kRead, mapping_.length - size_));
      if (got == 0) break;
      if (got < 0) {
        if (errno == EINTR) continue;
        throw Error(Location{path_}, fmt::format("cannot read: {}", std::strerror(errno)));
      }
      const std::size_t before = size_;
      size_ += static_cast<std::size_t>(got);
      check_stream_bytes(before);
    }
    if (size_ > limit.bytes) {
      throw Error(Location{path_},
                  fmt::format("cannot read: the stream holds more than {} ({}); to read more, "
                              "save the data to a file (a file is mapped, not copied)",
                              byte_count(limit.bytes), limit.why));
    }
  }

  /// The stream's buffer made `length` bytes long (a first mapping, or a larger one).
  void grow_stream_buffer(std::size_t length, const StreamLimit& limit) {
    void* p =
        mapping_.address == MAP_FAILED
            ? ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            : ::mremap(mapping_.address, mapping_.length, length, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) {
      throw Error(Location{path_},
                  fmt::format("cannot read: the stream holds more than {}, and no more memory can "
                              "be had for it ({}; {})",
                              byte_count(size_), std::strerror(errno), limit.why));
    }
    mapping_.address = p;
    mapping_.length = length;
  }

  /// Refuses UTF-16 and NUL bytes among the bytes that arrived from `from` on.
  void check_stream_bytes(std::size_t from) const {
    const std::string_view bytes = view();
    if (from < 4) check_not_utf16(bytes, path_);
    const void* nul = std::memchr(bytes.data() + from, '\0', bytes.size() - from);
    if (!nul) return;
    std::string_view text = bytes;
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    const Text t{text.data(), text.data() + text.size(), path_};
    t.fail({static_cast<const char*>(nul), kNulMessage});
  }

  std::string path_;
  Mapping mapping_;
  std::size_t size_ = 0;  // bytes of the file or stream at the start of the mapping
};

}  // namespace

Table read_csv(const std::string& path, const CsvParams& params) {
  check_utf8_name(path);
  note_input(path, "a CSV input");
  const MappedFile file(path, params.max_stream_bytes);
  return parse_csv(file.view(), path, params);
}

Location cell_location(const Table& table, std::size_t row, std::string_view column) {
  const std::int64_t line = table.row_line(row);
  Location whole_line{table.source(), line, 0};
  if (line == 0) return whole_line;
  const auto& names = table.columns();
  std::size_t index = names.size();
  for (std::size_t c = 0; c < names.size() && index == names.size(); ++c) {
    if (names[c].name == column) index = c;
  }
  struct stat st {};
  if (index == names.size() || ::stat(table.source().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return whole_line;  // a stream cannot be read twice; a table parsed from memory has no file
  }
  try {
    const MappedFile file(table.source());
    std::string_view bytes = file.view();
    if (bytes.substr(0, 3) == "\xEF\xBB\xBF") bytes.remove_prefix(3);
    const Text text{bytes.data(), bytes.data() + bytes.size(), table.source(), table.delimiter()};
    const char* p = text.begin;
    for (std::int64_t l = 1; l < line && p < text.end; ++l) {
      const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(text.end - p));
      p = nl ? static_cast<const char*>(nl) + 1 : text.end;
    }
    FieldReader reader(p, text.end, table.delimiter());
    const char* start = nullptr;
    std::string_view cell;
    Problem problem;
    for (std::size_t c = 0; c <= index; ++c) {
      const bool more = reader.next(start, cell, problem);
      if (problem.at || (!more && c < index)) return whole_line;  // the file changed since
    }
    return text.locate(start);
  } catch (const Error&) {
    return whole_line;
  }
}

void fail_at_cell(const Table& table, std::size_t row, std::string_view column,
                  const std::string& message) {
  if (table.row_line(row) > 0) {
    throw Error(cell_location(table, row, column),
                fmt::format("column {}: {}", quote_found(column), message));
  }
  fail_in(table, fmt::format("column {}, data row {}: {}", quote_found(column), row + 1, message));
}

namespace {

bool needs_quotes(const std::string& cell) {
  // An empty string is quoted: an empty unquoted cell is a missing value.
  return cell.empty() || cell.find_first_of(",\"\r\n") != std::string::npos;
}

void append_cell(std::string& out, const std::string& cell) {
  if (!needs_quotes(cell)) {
    out += cell;
    return;
  }
  out += '"';
  for (char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void append_number(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v > 0 ? "Inf" : "-Inf";
  } else {
    out += fmt::format("{}", v);
  }
}

}  // namespace

std::string format_csv(const Table& table) {
  std::string out;
  const auto& columns = table.columns();
  for (std::size_t j = 0; j < columns.size(); ++j) {
    if (j) out += ',';
    append_cell(out, columns[j].name);
  }
  out += '\n';
  for (std::size_t i = 0; i < table.n_rows(); ++i) {
    for (std::size_t j = 0; j < columns.size(); ++j) {
      if (j) out += ',';
      const Column& c = columns[j];
      if (c.is_numeric()) {
        append_number(out, c.values[i]);
      } else {
        append_cell(out, c.categories[static_cast<std::size_t>(c.codes[i])]);
      }
    }
    out += '\n';
  }
  return out;
}

void write_csv(const Table& table, const std::string& path) {
  write_file_atomic(path, format_csv(table));
}

}  // namespace assay

// .npy reader: magic, version, a Python-dict header, then the raw elements
// (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html).
#include "assay/core/npy.hpp"

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>

#include <fmt/ranges.h>

#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"

namespace assay {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the .npy reader assumes a little-endian host");

/// Quotes raw bytes: printable ASCII as is, everything else as \xNN (messages stay ASCII).
std::string quote_bytes(std::string_view bytes, std::size_t max_shown = 20) {
  std::string out = "\"";
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == max_shown) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out + "\"";
}

/// Parser for the header, a Python dict literal such as
/// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : s_(text), name_(name) {
    // Padding (spaces, a final newline) is not part of the dict; leave it out of messages.
    while (!s_.empty() && (s_.back() == ' ' || s_.back() == '\n' || s_.back() == '\0'))
      s_.remove_suffix(1);
  }

  void parse(std::string& descr, bool& fortran, std::vector<std::int64_t>& shape) {
    bool has_descr = false, has_fortran = false, has_shape = false;
    expect('{', "'{'");
    for (;;) {
      skip_space();
      if (peek() == '}') {
        ++i_;
        break;
      }
      const std::string key = read_string("a key");
      expect(':', fmt::format("':' after '{}'", key));
      if (key == "descr") {
        skip_space();
        if (peek() == '[') {
          fail_at(Location{name_},
                  "unsupported dtype: structured arrays (descr is a list) are not supported");
        }
        descr = read_string("a dtype string");
        has_descr = true;
      } else if (key == "fortran_order") {
        fortran = read_bool();
        has_fortran = true;
      } else if (key == "shape") {
        shape = read_shape();
        has_shape = true;
      } else {
        fail_at(Location{name_},
                "malformed header: unexpected key '{}' (expected descr, fortran_order, shape)",
                key);
      }
      skip_space();
      if (peek() == ',') {
        ++i_;
      } else if (peek() != '}') {
        expected("',' or '}'");
      }
    }
    skip_space();
    if (i_ != s_.size()) expected("the end of the header");
    if (!has_descr) missing("descr");
    if (!has_fortran) missing("fortran_order");
    if (!has_shape) missing("shape");
  }

 private:
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t')) ++i_;
  }
  [[noreturn]] void expected(std::string_view what) const {
    const std::string_view rest = s_.substr(std::min(i_, s_.size()));
    fail_at(Location{name_}, "malformed header: expected {}, found {}", what,
            rest.empty() ? std::string("the end of the header") : quote_bytes(rest));
  }
  [[noreturn]] void missing(std::string_view key) const {
    fail_at(Location{name_}, "malformed header: no '{}' key", key);
  }
  void expect(char c, std::string_view what) {
    skip_space();
    if (peek() != c) expected(what);
    ++i_;
  }
  std::string read_string(std::string_view what) {
    skip_space();
    const char q = peek();
    if (q != '\'' && q != '"') expected(what);
    const std::size_t end = s_.find(q, i_ + 1);
    if (end == std::string_view::npos) expected(fmt::format("a closing {}", q));
    std::string out(s_.substr(i_ + 1, end - i_ - 1));
    i_ = end + 1;
    return out;
  }
  bool read_bool() {
    skip_space();
    if (s_.substr(i_, 4) == "True") {
      i_ += 4;
      return true;
    }
    if (s_.substr(i_, 5) == "False") {
      i_ += 5;
      return false;
    }
    expected("True or False");
  }
  std::vector<std::int64_t> read_shape() {
    expect('(', "'(' starting the shape");
    std::vector<std::int64_t> shape;
    for (;;) {
      skip_space();
      if (peek() == ')') {
        ++i_;
        return shape;
      }
      if (peek() < '0' || peek() > '9') expected("a dimension (a non-negative integer)");
      std::int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (v > (std::numeric_limits<std::int64_t>::max() - 9) / 10)
          expected("a dimension below 2^63");
        v = v * 10 + (s_[i_++] - '0');
      }
      if (peek() == 'L') ++i_;  // Python 2 longs
      shape.push_back(v);
      skip_space();
      if (peek() == ',') {
        ++i_;
      } else if (peek() != ')') {
        expected("',' or ')' in the shape");
      }
    }
  }

  std::string_view s_;
  const std::string& name_;
  std::size_t i_ = 0;
};

double half_to_double(std::uint16_t h) {
  const int sign = (h >> 15) & 1;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double v;
  if (exponent == 0) {
    v = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    v = mantissa ? std::numeric_limits<double>::quiet_NaN()
                 : std::numeric_limits<double>::infinity();
  } else {
    v = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return sign ? -v : v;
}

template <typename T>
void convert(const char* p, std::size_t n, double* out) {
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      // A bool byte other than 0 or 1 is not a valid bool object: read the byte (numpy reads any
      // non-zero byte as True).
      out[i] = p[i] != 0 ? 1.0 : 0.0;
    } else {
      T v;
      std::memcpy(&v, p + i * sizeof(T), sizeof(T));
      out[i] = static_cast<double>(v);
    }
  }
}

std::string shape_string(const std::vector<std::int64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

// The data's first byte: checks the magic string and version, then reads the header length.
// Sets header_start to the header's first byte.
std::size_t data_start_of(std::string_view bytes, const Location& where,
                          std::size_t& header_start) {
  constexpr std::string_view kMagic = "\x93NUMPY";
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    fail_at(
        where, "expected the magic string \"\\x93NUMPY\", found {}",
        bytes.empty() ? std::string("an empty file") : quote_bytes(bytes.substr(0, kMagic.size())));
  }
  if (bytes.size() < 8)
    fail_at(where, "truncated header (the file ends after {} bytes)", bytes.size());
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    fail_at(where, "unsupported format version {}.{} (expected 1.0, 2.0 or 3.0)", major, minor);
  }
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) {
    fail_at(where, "truncated header (the file ends after {} bytes)", bytes.size());
  }
  std::size_t header_length = 0;
  for (std::size_t k = 0; k < length_bytes; ++k) {
    header_length |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + k])) << (8 * k);
  }
  const std::size_t data_start = 8 + length_bytes + header_length;
  if (bytes.size() < data_start) {
    fail_at(where, "truncated header (expected {} bytes, found {})", header_length,
            bytes.size() - 8 - length_bytes);
  }
  header_start = 8 + length_bytes;
  return data_start;
}

using Converter = void (*)(const char*, std::size_t, double*);

// The converter to doubles of a dtype and its item size: byte order + kind + size; '=' (native)
// and '|' (not applicable) mean little-endian here.
Converter converter_of(const std::string& d, const Location& where, std::size_t& item) {
  const char order = d.empty() ? '\0' : d[0];
  const std::string_view code = d.size() > 1 ? std::string_view(d).substr(1) : std::string_view();
  Converter conv = nullptr;
  if (order == '<' || order == '|' || order == '=') {
    struct Entry {
      std::string_view code;
      Converter conv;
      std::size_t size;
    };
    static const Entry kTypes[] = {
        {"f8", convert<double>, 8},
        {"f4", convert<float>, 4},
        {"i8", convert<std::int64_t>, 8},
        {"i4", convert<std::int32_t>, 4},
        {"i2", convert<std::int16_t>, 2},
        {"i1", convert<std::int8_t>, 1},
        {"u8", convert<std::uint64_t>, 8},
        {"u4", convert<std::uint32_t>, 4},
        {"u2", convert<std::uint16_t>, 2},
        {"u1", convert<std::uint8_t>, 1},
        {"b1", convert<bool>, 1},
        {"f2",
         [](const char* p, std::size_t n, double* o) {
           for (std::size_t i = 0; i < n; ++i) {
             std::uint16_t h;
             std::memcpy(&h, p + 2 * i, 2);
             o[i] = half_to_double(h);
           }
         },
         2},
    };
    for (const Entry& e : kTypes) {
      if (e.code == code) {
        conv = e.conv;
        item = e.size;
      }
    }
  }
  if (!conv) {
    std::string why;
    if (order == '>') {
      why = " (big-endian data is not supported)";
    } else if (!code.empty() && code[0] == 'O') {
      why = " (pickled Python objects are not supported)";
    }
    fail_at(where,
            "unsupported dtype \"{}\"{}; expected one of <f8, <f4, <f2, <i8, <i4, <i2, |i1, "
            "<u8, <u4, <u2, |u1, |b1",
            d, why);
  }
  return conv;
}

// The number of elements of the shape; the data after the header must be exactly their bytes.
std::size_t checked_count(const NpyArray& out, std::size_t item, std::size_t have,
                          const Location& where) {
  std::size_t count = 1;
  for (std::int64_t dim : out.shape) {
    const auto u = static_cast<std::size_t>(dim);
    if (u != 0 && count > std::numeric_limits<std::size_t>::max() / u / item) {
      fail_at(where, "shape {} is too large", shape_string(out.shape));
    }
    count *= u;
  }
  const std::size_t need = count * item;
  if (have < need) {
    fail_at(where, "truncated data (expected {} bytes for shape {} of {}, found {})", need,
            shape_string(out.shape), out.dtype, have);
  }
  if (have > need) {
    fail_at(where, "{} unexpected bytes after the data (shape {} of {} needs {})", have - need,
            shape_string(out.shape), out.dtype, need);
  }
  return count;
}

// Reorders Fortran-order data (first dimension fastest) to C order.
void fortran_to_c_order(NpyArray& out, std::size_t count) {
  // Element with C index (i0..ik) sits at F offset sum_j i_j * prod_{l<j} shape_l.
  const std::size_t rank = out.shape.size();
  std::vector<std::size_t> f_stride(rank, 1);
  for (std::size_t j = 1; j < rank; ++j)
    f_stride[j] = f_stride[j - 1] * static_cast<std::size_t>(out.shape[j - 1]);
  std::vector<double> c_order(count);
  std::vector<std::size_t> idx(rank, 0);
  std::size_t f = 0;
  for (std::size_t i = 0; i < count; ++i) {
    c_order[i] = out.data[f];
    for (std::size_t j = rank; j-- > 0;) {  // increment the C index, last dimension fastest
      if (++idx[j] < static_cast<std::size_t>(out.shape[j])) {
        f += f_stride[j];
        break;
      }
      f -= f_stride[j] * (idx[j] - 1);
      idx[j] = 0;
    }
  }
  out.data = std::move(c_order);
}

}  // namespace

NpyArray parse_npy(std::string_view bytes, const std::string& name) {
  const Location where{name};
  std::size_t header_start = 0;
  const std::size_t data_start = data_start_of(bytes, where, header_start);

  NpyArray out;
  bool fortran = false;
  HeaderParser(bytes.substr(header_start, data_start - header_start), name)
      .parse(out.dtype, fortran, out.shape);
  std::size_t item = 0;
  const Converter conv = converter_of(out.dtype, where, item);
  const std::size_t count = checked_count(out, item, bytes.size() - data_start, where);

  // As doubles the data take up to 8 times the file's bytes (|b1, |u1), twice for Fortran order.
  const std::size_t copies = fortran && out.shape.size() > 1 ? 2 : 1;
  try {
    check_memory(
        count * sizeof(double) * copies,
        fmt::format("{} values of shape {} as 8-byte doubles", count, shape_string(out.shape)));
    out.data.resize(count);
  } catch (const Error& e) {
    fail_at(where, "{}", e.what());
  } catch (const std::bad_alloc&) {
    fail_at(where, "cannot allocate {} doubles for shape {}", count, shape_string(out.shape));
  }
  conv(bytes.data() + data_start, count, out.data.data());
  if (fortran && out.shape.size() > 1 && count > 1) fortran_to_c_order(out, count);
  return out;
}

NpyArray read_npy(const std::string& path) {
  check_utf8_name(path);
  note_input(path, "a .npy input");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) throw Error(Location{path}, fmt::format("cannot open: {}", std::strerror(errno)));
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const std::size_t got = std::fread(buffer, 1, sizeof buffer, file.get());
    bytes.append(buffer, got);
    if (got < sizeof buffer) {
      if (std::ferror(file.get())) {
        throw Error(Location{path}, fmt::format("cannot read: {}", std::strerror(errno)));
      }
      break;
    }
  }
  return parse_npy(bytes, path);
}

}  // namespace assay

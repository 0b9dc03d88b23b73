#include "assay/core/error.hpp"

namespace assay {

std::string Location::to_string() const {
  std::string out = file;
  if (line > 0) {
    out += fmt::format(":{}", line);
    if (column > 0) out += fmt::format(":{}", column);
  }
  return out;
}

Error::Error(const std::string& message) : std::runtime_error(message), message_(message) {}

Error::Error(Location where, const std::string& message)
    : std::runtime_error(where.to_string() + ": " + message),
      message_(message),
      location_(std::move(where)) {}

std::string quote_found(std::string_view text) {
  constexpr std::size_t kMaxShown = 40;
  std::string out = "\"";
  std::size_t shown = 0;
  for (char c : text) {
    if (shown == kMaxShown) {
      out += "...";
      break;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
    ++shown;
  }
  out += "\"";
  return out;
}

namespace detail {
void assertion_failed(const char* condition, const char* file, int line) {
  throw std::logic_error(fmt::format("assay internal error: {} failed at {}:{} (please report)",
                                     condition, file, line));
}
}  // namespace detail

}  // namespace assay

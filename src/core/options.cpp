#include "assay/core/options.hpp"

#include <charconv>
#include <cstdlib>
#include <string>

#include "assay/core/error.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/core/warning.hpp"

namespace assay {
namespace {

// "NAME: " before a message, or nothing for an unnamed value.
std::string prefix(std::string_view name) {
  return name.empty() ? std::string() : std::string(name) + ": ";
}

// The one rule for probabilities (confidence levels, delta): the open interval (0, 1); NaN fails.
bool is_probability(double value) {
  return value > 0 && value < 1;
}

constexpr std::int64_t kMostThreads = 1 << 16;

bool threads_forced_by_environment() {
  const char* env = std::getenv("ASSAY_THREADS_FORCE");
  return env != nullptr && std::string_view(env) == "1";
}

}  // namespace

std::uint64_t parse_unsigned(std::string_view name, std::string_view text, std::uint64_t max) {
  std::uint64_t value = 0;
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  const auto [end, ec] = digits ? std::from_chars(text.data(), text.data() + text.size(), value)
                                : std::from_chars_result{text.data(), std::errc::invalid_argument};
  if (!digits || ec != std::errc() || end != text.data() + text.size() || value > max) {
    fail("{}expected an integer in 0..{}, found {}", prefix(name), max, quote_found(text));
  }
  return value;
}

int checked_threads(std::int64_t requested, std::string_view name, bool force) {
  if (requested < 0) {
    fail("{}expected 0 (all cores) or a positive number of threads, found {}", prefix(name),
         requested);
  }
  if (requested > kMostThreads) {
    fail("{}expected at most {} threads, found {}", prefix(name), kMostThreads, requested);
  }
  const int cores = hardware_threads();
  if (requested > cores && !force && !threads_forced_by_environment()) {
    warn(
        fmt::format("{} {} is more than the {} cores of this machine; using {} (--threads-force or "
                    "ASSAY_THREADS_FORCE=1 uses {} anyway)",
                    name, requested, cores, cores, requested));
    return cores;
  }
  return static_cast<int>(requested);
}

std::int64_t parse_threads(std::string_view name, std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool whole = !text.empty() && end == text.data() + text.size();
  if (whole && ec == std::errc::result_out_of_range && text.front() != '-') {
    fail("{}expected at most {} threads, found {}", prefix(name), kMostThreads, text);
  }
  if (!whole || ec != std::errc()) {
    fail("{}expected 0 (all cores) or a positive number of threads, found {}", prefix(name),
         quote_found(text));
  }
  checked_threads(value, name, /*force=*/true);  // the range only: callers cap later
  return value;
}

void check_probability(std::string_view name, double value) {
  if (!is_probability(value)) fail("{}expected a number in (0, 1), found {}", prefix(name), value);
}

double parse_probability(std::string_view name, std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    fail("{}expected a number in (0, 1), found {}", prefix(name), quote_found(text));
  }
  check_probability(name, value);
  return value;
}

}  // namespace assay

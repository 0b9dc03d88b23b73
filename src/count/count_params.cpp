// The counting methods' one spelling (parse_count_method, to_string) and the time limit's rule.
#include "assay/count/count_params.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "assay/core/error.hpp"

namespace assay::count {

namespace {

// "auto, structural or enumerate": the methods a caller accepts, as its message lists them.
std::string method_list(std::span<const CountMethod> allowed) {
  std::string out;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    if (i > 0) out += i + 1 == allowed.size() ? " or " : ", ";
    out += to_string(allowed[i]);
  }
  return out;
}

[[noreturn]] void bad_method(std::string_view name, std::span<const CountMethod> allowed,
                             std::string_view context) {
  fail("method must be {}{}{}, found {}", method_list(allowed), context.empty() ? "" : " ", context,
       quote_found(name));
}

bool is_allowed(CountMethod method, std::span<const CountMethod> allowed) {
  return std::find(allowed.begin(), allowed.end(), method) != allowed.end();
}

}  // namespace

CountMethod parse_count_method(std::string_view name, std::span<const CountMethod> allowed,
                               std::string_view context) {
  for (const CountMethod method : kCountMethods) {
    if (name == to_string(method) && is_allowed(method, allowed)) return method;
  }
  bad_method(name, allowed, context);
}

void check_count_method(CountMethod method, std::span<const CountMethod> allowed,
                        std::string_view context) {
  if (!is_allowed(method, allowed)) bad_method(to_string(method), allowed, context);
}

std::string_view to_string(CountMethod method) {
  switch (method) {
    case CountMethod::automatic:
      return "auto";
    case CountMethod::structural:
      return "structural";
    case CountMethod::enumerate:
      return "enumerate";
    case CountMethod::exact_cnf:
      return "exact-cnf";
    case CountMethod::approx:
      return "approx";
    case CountMethod::split:
      return "split";
  }
  return "";
}

void check_time_limit(std::string_view name, double seconds, std::string_view as_written) {
  if (!(seconds >= 0 && seconds <= kMaxTimeLimit)) {
    fail(
        "{}{}expected seconds in [0, {:.0f}] (0 = no limit; larger values overflow the clock), "
        "found {}",
        name, name.empty() ? "" : ": ", kMaxTimeLimit,
        as_written.empty() ? fmt::format("{}", seconds) : quote_found(as_written));
  }
}

}  // namespace assay::count

// What the generated header examples (cmake/header_examples.py) call: checks of the values an
// example's comments state, failures collected with the header's file:line, each example run
// in a fresh temporary folder.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <ranges>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "assay/core/json.hpp"

namespace hx {

/// A value an example's comment states.
struct Expected {
  enum class Kind { number, text, list, json, same } kind;
  double value = 0;
  double tolerance = 0;
  std::string text;
  std::vector<Expected> items;
  std::function<bool(const void*)> same;  ///< Kind::same: compares with an enumerator
};

inline Expected number(double value, double tolerance) {
  return {.kind = Expected::Kind::number, .value = value, .tolerance = tolerance};
}
inline Expected text(std::string s) {
  return {.kind = Expected::Kind::text, .text = std::move(s)};
}
inline Expected list(std::vector<Expected> items) {
  return {.kind = Expected::Kind::list, .items = std::move(items)};
}
inline Expected json(std::string s) {
  return {.kind = Expected::Kind::json, .text = std::move(s)};
}

template <class E>
struct EqualTo {
  E value;
};
/// An enumerator (or any value compared with ==).
template <class E>
EqualTo<E> equal_to(E value) {
  return {value};
}

/// Records a failure of the running example.
void fail(const char* location, const std::string& what);

template <class T>
concept Range = requires(const T& t) {
  std::begin(t);
  std::end(t);
};

template <class T>
std::string describe(const T& actual);

template <class T>
bool matches(const T& actual, const Expected& e) {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, assay::Json>) {
    switch (e.kind) {
      case Expected::Kind::json:
        return actual == assay::Json::parse(e.text);
      case Expected::Kind::number:
        return actual.is_number() && matches(actual.template get<double>(), e);
      case Expected::Kind::text:
        return actual.is_string() && actual == e.text;
      case Expected::Kind::list:
        if (!actual.is_array() || actual.size() != e.items.size()) return false;
        for (std::size_t i = 0; i < e.items.size(); ++i)
          if (!matches(actual[i], e.items[i])) return false;
        return true;
      default:
        return false;
    }
  } else if constexpr (std::is_arithmetic_v<U>) {
    if (e.kind != Expected::Kind::number) return false;
    const double a = static_cast<double>(actual);
    if (std::isnan(e.value)) return std::isnan(a);
    if (std::isinf(e.value)) return a == e.value;
    return std::fabs(a - e.value) <= e.tolerance;
  } else if constexpr (std::is_convertible_v<const U&, std::string_view>) {
    const std::string_view a(actual);
    if (e.kind == Expected::Kind::json) return assay::Json::parse(a) == assay::Json::parse(e.text);
    if (e.kind != Expected::Kind::text) return false;
    // "text ..." states the start of a longer text.
    if (e.text.ends_with("...")) return a.starts_with(e.text.substr(0, e.text.size() - 3));
    return a == e.text;
  } else if constexpr (Range<U>) {
    if (e.kind != Expected::Kind::list) return false;
    std::size_t i = 0;
    for (const auto& item : actual) {
      if (i >= e.items.size() || !matches(item, e.items[i])) return false;
      ++i;
    }
    return i == e.items.size();
  } else {
    static_assert(sizeof(U) == 0, "a stated value of this type cannot be checked");
  }
}

template <class T>
std::string describe(const T& actual) {
  using U = std::remove_cvref_t<T>;
  std::ostringstream out;
  out.precision(17);
  if constexpr (std::is_same_v<U, assay::Json>) {
    out << actual.dump();
  } else if constexpr (std::is_arithmetic_v<U>) {
    out << +actual;
  } else if constexpr (std::is_convertible_v<const U&, std::string_view>) {
    out << '"' << std::string_view(actual) << '"';
  } else if constexpr (Range<U>) {
    out << '{';
    const char* sep = "";
    for (const auto& item : actual) out << sep << describe(item), sep = ", ";
    out << '}';
  } else {
    out << "(a value)";
  }
  return out.str();
}

/// Checks that `actual` (the example's `text`) is the value its comment states.
template <class T>
void check(const char* location, const char* text, const T& actual, const Expected& expected) {
  if (!matches(actual, expected)) fail(location, std::string(text) + " is " + describe(actual));
}

template <class T, class E>
void check(const char* location, const char* text, const T& actual, const EqualTo<E>& expected) {
  if (!(actual == expected.value)) fail(location, std::string(text) + " is another value");
}

/// Checks that `statement` throws an exception whose what() starts with `message` (any, when
/// null): a comment states the message up to the end of its line.
template <class F>
void check_throws(const char* location, F statement, const char* message) {
  try {
    statement();
  } catch (const std::exception& e) {
    if (message != nullptr && !std::string_view(e.what()).starts_with(message))
      fail(location,
           std::string("threw \"") + e.what() + "\", the comment says \"" + message + "\"");
    return;
  }
  fail(location, "did not throw");
}

/// A reference for compile-only examples: never used at run time.
template <class T>
T& never() {
  return *static_cast<T*>(nullptr);
}

/// Writes `text` to `path` (folders made), for examples that read files.
void write_file(const std::filesystem::path& path, std::string_view text);

/// Registers an example: `compile_only` non-null names why it is not run.
struct Registered {
  Registered(const char* header, void (*run)(), const char* compile_only);
};

/// Headers whose layer is not built here (their examples are neither compiled nor run).
extern const std::vector<const char*> not_built;

}  // namespace hx

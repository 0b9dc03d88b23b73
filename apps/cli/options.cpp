#include "options.hpp"

#include <charconv>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/options.hpp"
#include "assay/metrics/evaluate.hpp"
#include "assay/metrics/uncertainty.hpp"

namespace assay::cli {
namespace {

// Every --threads option registered, with the value it fills (the parsed subcommand's only are
// counted as given).
std::vector<std::pair<CLI::Option*, int*>>& thread_options() {
  static std::vector<std::pair<CLI::Option*, int*>> options;
  return options;
}

// A validator that applies one of core/options' rules: the rule and its wording live there, so
// the CLI and the Python functions refuse a value with the same message.
template <typename Rule>
CLI::Validator core_rule(Rule rule, const std::string& description) {
  return CLI::Validator(
      [rule](std::string& text) -> std::string {
        try {
          rule(text);
        } catch (const Error& e) {
          return e.message();
        }
        return {};
      },
      description);
}

// `text` whole as a number of type T (from_chars: no sign "+", no spaces), else nullopt.
template <typename T>
std::optional<T> whole_number(const std::string& text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A validator of decimal numbers for which `accept` holds, saying "expected <what>, found ...".
template <typename Accept>
CLI::Validator number_rule(Accept accept, const std::string& what, const std::string& shown) {
  return CLI::Validator(
      [accept, what](std::string& text) -> std::string {
        const auto value = whole_number<double>(text);
        if (value && std::isfinite(*value) && accept(*value)) return {};
        return "expected " + what + ", found " + quote_found(text);
      },
      shown);
}

}  // namespace

const CLI::Validator& non_negative_integer() {
  static const CLI::Validator validator =
      core_rule([](const std::string& text) { parse_unsigned("", text); }, "INTEGER >= 0");
  return validator;
}

const CLI::Validator& open_probability() {
  static const CLI::Validator validator =
      core_rule([](const std::string& text) { parse_probability("", text); }, "NUMBER in (0, 1)");
  return validator;
}

const CLI::Validator& finite_number() {
  static const CLI::Validator validator =
      number_rule([](double) { return true; }, "a finite number", "NUMBER");
  return validator;
}

const CLI::Validator& positive_number() {
  static const CLI::Validator validator =
      number_rule([](double v) { return v > 0; }, "a finite number > 0", "POSITIVE");
  return validator;
}

CLI::Validator integer_in(int low, int high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        const auto value = whole_number<long long>(text);
        if (value && *value >= low && *value <= high) return {};
        return fmt::format("expected an integer in {}..{}, found {}", low, high, quote_found(text));
      },
      fmt::format("{}..{}", low, high));
}

void refuse_empty_numbers(CLI::App& app) {
  static const CLI::Validator not_empty(
      [](std::string& text) -> std::string {
        if (text.empty()) return R"(expected a number, found "")";
        return {};
      },
      "");
  for (CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    const bool numeric =
        type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0 || type.rfind("FLOAT", 0) == 0;
    if (numeric) option->check(not_empty);
  }
  for (CLI::App* sub : app.get_subcommands({})) refuse_empty_numbers(*sub);
}

const CLI::Validator& resample_count() {
  static const CLI::Validator validator = core_rule(
      [](const std::string& text) {
        metrics::check_resample_count(parse_unsigned("", text), 1, "");
      },
      "INTEGER in 0..1000000");
  return validator;
}

const CLI::Validator& non_empty_text() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        if (text.empty()) return "expected a value, found an empty one";
        return {};
      },
      "NOT EMPTY");
  return validator;
}

const CLI::Validator& class_label() {
  static const CLI::Validator validator =
      core_rule([](const std::string& text) { metrics::check_pos_label("", text); }, "NOT EMPTY");
  return validator;
}

const CLI::Validator& output_file_name() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        if (text.empty()) return "expected a file name, found an empty one";
        return {};
      },
      "FILE");
  return validator;
}

void CsvDialectOptions::add_to(CLI::App* cmd) {
  static const CLI::Validator delimiter_rule =
      core_rule([](const std::string& text) { parse_delimiter(text, ""); }, "CHAR");
  static const CLI::Validator decimal_rule =
      core_rule([](const std::string& text) { parse_decimal(text, ""); }, "'.'|','");
  cmd->add_option_function<std::string>(
         "--delimiter", [this](const std::string& text) { delimiter = parse_delimiter(text, ""); },
         "CSV field separator: ',', ';', tab (or '\\t'), '|', ... (default: ',', or ';' / tab "
         "when the header is separated by one of them, with a note)")
      ->check(delimiter_rule);
  cmd->add_option_function<std::string>(
         "--decimal", [this](const std::string& text) { decimal = parse_decimal(text, ""); },
         "decimal mark of numbers in the CSV: '.' or ',' (default: ',' with a detected ';', "
         "else '.')")
      ->check(decimal_rule);
}

CsvParams CsvDialectOptions::applied_to(CsvParams params) const {
  if (delimiter) params.delimiter = delimiter;
  if (decimal) params.decimal = decimal;
  return params;
}

CLI::Option* add_seed_option(CLI::App* cmd, std::uint64_t& seed, const std::string& help) {
  return cmd->add_option("--seed", seed, help + " (0..2^64-1)")
      ->capture_default_str()
      ->check(non_negative_integer());
}

CLI::Option* add_chart_axis_option(CLI::App* cmd, report::AxisRange& axis,
                                   const std::string& default_text) {
  static const CLI::Validator validator =
      core_rule([](const std::string& text) { report::parse_axis_range(text); }, "fit|full");
  return cmd
      ->add_option_function<std::string>(
          "--chart-axis",
          [&axis](const std::string& text) { axis = report::parse_axis_range(text); },
          "HTML page: the value axis of dot-and-whisker and per-subject charts fits the data "
          "(fit) or spans the whole range such as 0..1 (full); default: " +
              default_text)
      ->check(validator);
}

CLI::Option* add_threads_option(CLI::App* cmd, int& threads, const std::string& help) {
  // The range only: the cap at the machine's cores waits for cap_thread_options.
  static const CLI::Validator validator =
      core_rule([](const std::string& text) { parse_threads("", text); }, "INTEGER >= 0");
  auto* option =
      cmd->add_option("--threads", threads, help)->capture_default_str()->check(validator);
  thread_options().emplace_back(option, &threads);
  return option;
}

void cap_thread_options(bool force) {
  for (auto& [option, threads] : thread_options()) {
    if (option->count() > 0) *threads = checked_threads(*threads, "--threads", force);
  }
}

}  // namespace assay::cli

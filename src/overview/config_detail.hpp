// Private to the overview layer: the TOML reader behind read_report_config.
#pragma once

#include <string>

#include "assay/core/json.hpp"
#include "assay/overview/config.hpp"

namespace assay::report::detail {

/// Paths of key locations in a ConfigSource end with this (the value's location has none).
inline constexpr const char* kKeySuffix = "#key";

/// Parses TOML text into JSON (tables -> objects, arrays, strings, integers, floats, booleans)
/// and records where every key and value is in `source`. Throws assay::Error at the syntax
/// error's line and column, or for dates and times (not used by any key).
Json parse_toml(const std::string& text, const std::string& name, ConfigSource& source);

/// The whole file; throws assay::Error "PATH: cannot open: <reason>".
std::string read_text_file(const std::string& path);

}  // namespace assay::report::detail

// JSON output. Keys keep insertion order; NaN and infinities are written as null (JSON has no
// NaN), which readers must treat as "undefined".
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace assay {

using Json = nlohmann::ordered_json;

/// Writes `value` to `path` (pretty-printed, 2-space indent); throws assay::Error if it cannot.
void write_json_file(const std::string& path, const Json& value);

}  // namespace assay

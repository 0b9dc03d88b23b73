// JSON output. Keys keep insertion order; NaN and infinities are written as null (JSON has no
// NaN), which readers must treat as "undefined". Text that is not UTF-8 never makes writing fail:
// the readers refuse such bytes first, and as a last line of defence dump_json writes each
// invalid byte as U+FFFD.
//
// Example:
//   Json j = {{"auc", 0.75}, {"ap", std::nan("")}};
//   dump_json(j, -1);                         // {"auc":0.75,"ap":null}
//   write_json_file("out/metrics.json", j);   // 2-space indent; assay::Error if it cannot
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace assay {

using Json = nlohmann::ordered_json;

/// `value` as JSON text (indent < 0: one line), invalid UTF-8 replaced by U+FFFD (never throws).
std::string dump_json(const Json& value, int indent = 2);

/// Writes `value` to `path` (dump_json, 2-space indent); throws assay::Error if it cannot.
void write_json_file(const std::string& path, const Json& value);

}  // namespace assay

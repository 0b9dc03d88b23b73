#include "assay/core/json.hpp"

#include "assay/core/output_file.hpp"

namespace assay {

std::string dump_json(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

void write_json_file(const std::string& path, const Json& value) {
  write_file_atomic(path, dump_json(value, 2) + "\n");
}

}  // namespace assay

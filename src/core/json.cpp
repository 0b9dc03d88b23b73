#include "assay/core/json.hpp"

#include "assay/core/output_file.hpp"

namespace assay {

void write_json_file(const std::string& path, const Json& value) {
  write_file_atomic(path, value.dump(2) + "\n");
}

}  // namespace assay

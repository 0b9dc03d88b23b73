#include "assay/core/json.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "assay/core/error.hpp"

namespace assay {

void write_json_file(const std::string& path, const Json& value) {
  std::ofstream out(path);
  if (!out) fail("cannot write {}: {}", path, std::strerror(errno));
  out << value.dump(2) << '\n';
  if (!out) fail("cannot write {}: {}", path, std::strerror(errno));
}

}  // namespace assay

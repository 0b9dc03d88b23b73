#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "assay/core/json.hpp"

namespace assay {
namespace {

// The last line of defence behind the readers' UTF-8 checks: text that is not UTF-8 never makes
// writing JSON fail (nlohmann's dump throws type_error.316 on it, which surfaced as exit 1
// "internal error" with a 0-byte file left behind).
TEST(Json, TextThatIsNotUtf8IsReplacedNotThrown) {
  Json doc = {{"file", "caf\xE9.csv"}, {"ok", "caf\xC3\xA9"}};
  EXPECT_EQ(dump_json(doc, -1), "{\"file\":\"caf\xEF\xBF\xBD.csv\",\"ok\":\"caf\xC3\xA9\"}");
  const auto path = std::filesystem::temp_directory_path() / "assay_test_json_latin1.json";
  write_json_file(path.string(), doc);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(Json::parse(text.str())["file"], "caf\xEF\xBF\xBD.csv");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace assay

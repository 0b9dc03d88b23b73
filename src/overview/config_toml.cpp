// TOML text -> JSON value plus the line and column of every key and value (toml++, Debian's
// libtomlplusplus-dev, header-only), so that the schema checks in config.cpp can point at them.
#include <toml++/toml.h>

#include <fstream>
#include <sstream>

#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "config_detail.hpp"

namespace assay::report::detail {
namespace {

Location location_of(const toml::source_region& region, const std::string& name) {
  return {name, static_cast<std::int64_t>(region.begin.line),
          static_cast<std::int64_t>(region.begin.column)};
}

Json convert(const toml::node& node, const std::string& path, const std::string& name,
             ConfigSource& source) {
  source.set(path, location_of(node.source(), name));
  if (const auto* table = node.as_table()) {
    Json out = Json::object();
    for (const auto& [key, child] : *table) {
      const std::string key_text(key.str());
      const std::string child_path = path.empty() ? key_text : path + "." + key_text;
      source.set(child_path + kKeySuffix, location_of(key.source(), name));
      out[key_text] = convert(child, child_path, name, source);
    }
    return out;
  }
  if (const auto* array = node.as_array()) {
    Json out = Json::array();
    for (std::size_t i = 0; i < array->size(); ++i) {
      out.push_back(convert(*array->get(i), path + "[" + std::to_string(i) + "]", name, source));
    }
    return out;
  }
  if (const auto* s = node.as_string()) return Json(s->get());
  if (const auto* i = node.as_integer()) return Json(i->get());
  if (const auto* f = node.as_floating_point()) return Json(f->get());
  if (const auto* b = node.as_boolean()) return Json(b->get());
  fail_at(location_of(node.source(), name),
          "{}: expected a string, number, boolean, array or table, found a date or time",
          path.empty() ? std::string("value") : path);
}

}  // namespace

Json parse_toml(const std::string& text, const std::string& name, ConfigSource& source) {
  toml::table table;
  try {
    table = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw Error(Location{name, static_cast<std::int64_t>(where.line),
                         static_cast<std::int64_t>(where.column)},
                fmt::format("TOML syntax: {}", e.description()));
  }
  return convert(table, "", name, source);
}

std::string read_text_file(const std::string& path) {
  note_input(path, "the report configuration");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot open: {}", path, std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace assay::report::detail

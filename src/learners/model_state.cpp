#include "learners/model_state.hpp"

#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/version.hpp"
#include "learners/registry.hpp"

namespace assay::learners {
namespace {

constexpr const char* kFormatName = "assay-learner-model";

Json parse_saved(std::span<const std::uint8_t> bytes) {
  try {
    return Json::from_cbor(bytes.begin(), bytes.end());
  } catch (const Json::exception& e) {
    fail(
        "expected a saved assay learner model ({} bytes of CBOR), found bytes that do not decode: "
        "{}",
        bytes.size(), e.what());
  }
}

// The header's format version, or an error naming both versions.
void check_version(const Json& saved) {
  const auto version = saved.find("version");
  if (version == saved.end() || !version->is_number_integer()) {
    fail("saved assay learner model: expected an integer \"version\", found {}",
         version == saved.end() ? "none" : version->dump());
  }
  const auto writer = saved.find("assay");
  const std::string by =
      writer != saved.end() && writer->is_string() ? writer->get<std::string>() : "unknown";
  if (version->get<std::int64_t>() != kModelFormatVersion) {
    fail(
        "this model was saved in assay learner-model format version {} (by assay {}); this "
        "assay {} reads format version {} only: refit the model with this assay, or load it "
        "with assay {}",
        version->get<std::int64_t>(), by, assay::version(), kModelFormatVersion, by);
  }
}

}  // namespace

std::vector<std::uint8_t> save_model(const Model& model) {
  Json saved{{"format", kFormatName},
             {"version", kModelFormatVersion},
             {"assay", std::string(assay::version())},
             {"model", model.save()}};
  return Json::to_cbor(saved);
}

std::unique_ptr<Model> load_model(std::span<const std::uint8_t> bytes) {
  const Json saved = parse_saved(bytes);
  if (!saved.is_object() || saved.value("format", Json()) != kFormatName) {
    fail(
        "expected a saved assay learner model (format \"{}\"), found {}", kFormatName,
        saved.is_object() && saved.contains("format") ? saved["format"].dump() : "no format field");
  }
  check_version(saved);
  const auto model = saved.find("model");
  if (model == saved.end() || !model->is_object() || !model->contains("learner") ||
      !(*model)["learner"].is_string()) {
    fail("saved assay learner model: expected a \"model\" object naming its learner, found {}",
         model == saved.end() ? "none" : model->type_name());
  }
  const state::Reader read(*model);
  if (const RegisteredLearner* entry = find_registered(read.learner())) return entry->load(read);
  fail("saved assay learner model: unknown learner {}; known learners: {}",
       quote_found(read.learner()), fmt::join(learner_names(), ", "));
}

namespace state {

Reader::Reader(const Json& state)
    : state_(state), learner_(state.at("learner").get<std::string>()) {}

void Reader::invalid(const std::string& what) const {
  fail("saved {} model: {} (the saved state was not written by assay, or is damaged)", learner_,
       what);
}

const Json& Reader::field(const std::string& key) const {
  const auto it = state_.find(key);
  if (it == state_.end()) invalid(fmt::format("field \"{}\" is missing", key));
  return *it;
}

double Reader::number(const std::string& key) const {
  const Json& v = field(key);
  if (!v.is_number())
    invalid(fmt::format("field \"{}\": expected a number, found {}", key, v.dump()));
  return v.get<double>();
}

std::size_t Reader::count(const std::string& key, std::size_t most) const {
  const Json& v = field(key);
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() > most) {
    invalid(
        fmt::format("field \"{}\": expected an integer in [0, {}], found {}", key, most, v.dump()));
  }
  return static_cast<std::size_t>(v.get<std::uint64_t>());
}

bool Reader::flag(const std::string& key) const {
  const Json& v = field(key);
  if (!v.is_boolean())
    invalid(fmt::format("field \"{}\": expected true or false, found {}", key, v.dump()));
  return v.get<bool>();
}

const std::vector<std::uint8_t>& Reader::binary(const std::string& key, std::size_t width,
                                                std::size_t size) const {
  const Json& v = field(key);
  if (!v.is_binary()) {
    invalid(fmt::format("field \"{}\": expected packed numbers, found {}", key, v.type_name()));
  }
  const std::vector<std::uint8_t>& bytes = v.get_binary();
  if (bytes.size() % width != 0 || (size != npos && bytes.size() != size * width)) {
    invalid(fmt::format("field \"{}\": expected {} values of {} bytes, found {} bytes", key,
                        size == npos ? std::string("whole") : std::to_string(size), width,
                        bytes.size()));
  }
  return bytes;
}

}  // namespace state
}  // namespace assay::learners

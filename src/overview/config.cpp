// The schema of a report configuration, checked key by key (see config.hpp). Each analysis has
// one reader function that takes its table apart with a KeyReader; every rule about a key lives
// in the KeyReader method that reads it, so each kind of mistake has one wording.
#include "assay/overview/config.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/names.hpp"
#include "assay/core/options.hpp"
#include "assay/core/task.hpp"
#include "assay/metrics/calibration.hpp"
#include "assay/metrics/evaluate.hpp"
#include "assay/metrics/ranking.hpp"
#include "assay/metrics/uncertainty.hpp"
#include "config_detail.hpp"

namespace assay::report {
namespace {

namespace fs = std::filesystem;
using detail::kKeySuffix;
constexpr double kInf = std::numeric_limits<double>::infinity();

const std::map<std::string, std::vector<std::string>> kKeys = {
    {"",
     {"title", "out", "seed", "threads", "chart_axis", "metrics", "soak", "cv", "shift", "segment",
      "count", "compare", "regression"}},
    {"regression",
     {"file", "label", "models", "weight", "bootstrap", "confidence", "seed", "delimiter",
      "decimal"}},
    {"metrics",
     {"file", "label", "models", "weight", "threshold", "pos_label", "ap_method", "ap_grid", "bins",
      "bin_strategy", "bootstrap", "confidence", "seed", "delimiter", "decimal"}},
    {"soak",
     {"file",    "files", "label",   "subset", "group",     "fold",           "strata",   "folds",
      "subsets", "seeds", "sizes",   "ratio",  "learners",  "learner_params", "features", "drop",
      "weight",  "task",  "measure", "seed",   "delimiter", "decimal"}},
    {"cv",
     {"file", "files", "label", "group", "fold", "folds", "learners", "learner_params", "features",
      "drop", "weight", "task", "seed", "delimiter", "decimal"}},
    {"shift",
     {"file", "target", "pred", "uncertainty", "members", "member_vars", "partition", "shifted",
      "acceptable", "beta", "convention", "error", "bootstrap", "confidence", "seed", "delimiter",
      "decimal"}},
    {"segment",
     {"models", "pred", "truth", "uncertainty", "brain_mask", "partition", "threshold",
      "connectivity", "iou", "min_size", "r", "voxel_measure"}},
    {"count",
     {"models", "spec", "property", "method", "time_limit", "epsilon", "delta", "ambiguity_limit",
      "fraction_bits", "weight_bits", "activation_bits", "samples", "test", "label", "seed",
      "confidence", "delimiter", "decimal"}},
    {"compare", {"file",     "label",     "weight",       "task",       "by",        "metrics",
                 "baseline", "pairs",     "pos_label",    "threshold",  "resamples", "confidence",
                 "seed",     "test",      "permutations", "correction", "gates",     "gate_on",
                 "models",   "delimiter", "decimal"}},
};

std::string describe(const Json& value) {
  switch (value.type()) {
    case Json::value_t::string:
      return quote_found(value.get<std::string>());
    case Json::value_t::object:
      return "a table";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case Json::value_t::null:
      return "nothing";
    case Json::value_t::number_float: {
      // JSON has no NaN or infinity (dump() writes null): say what the file says.
      const double x = value.get<double>();
      if (std::isnan(x)) return "nan";
      if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
      return value.dump();
    }
    default:
      return value.dump();
  }
}

std::string join(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

// Text of the configuration reaches the page and the terminal, where a control character (NUL,
// escape, ...) cannot be shown: it is refused where it was written. In text, tab, newline and
// carriage return are whitespace and pass; a key names a model or table and takes none of them.
bool is_control(char c, bool name) {
  const auto u = static_cast<unsigned char>(c);
  const bool whitespace = c == '\t' || c == '\n' || c == '\r';
  return (u < 0x20 && (name || !whitespace)) || u == 0x7F;
}

void check_text(const std::string& text, const std::string& path, const std::string& what,
                bool name, const ConfigSource& source) {
  const auto bad =
      std::find_if(text.begin(), text.end(), [name](char c) { return is_control(c, name); });
  if (bad == text.end()) return;
  throw Error(
      source.where(path),
      fmt::format("{}: expected {} without control characters, found {} (byte 0x{:02X})", what,
                  name ? "a name" : "text", quote_found(text), static_cast<unsigned char>(*bad)));
}

// Every key and string of the configuration, before the schema reads any of them.
void check_texts(const Json& value, const std::string& path, const ConfigSource& source) {
  if (value.is_string()) {
    check_text(value.get<std::string>(), path, path.empty() ? "value" : path, false, source);
  } else if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      const std::string child_path = path.empty() ? key : path + "." + key;
      check_text(key, child_path + kKeySuffix, path.empty() ? "key" : path + " key", true, source);
      check_texts(child, child_path, source);
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      check_texts(value[i], path + "[" + std::to_string(i) + "]", source);
  }
}

// Reads the keys of one table of the configuration. `path` is the table's place ("metrics",
// "metrics.models"; "" = top level).
class KeyReader {
 public:
  KeyReader(const ConfigSource& source, std::string path, const Json& table,
            const std::vector<std::string>& allowed)
      : source_(source), path_(std::move(path)), table_(table) {
    if (!table.is_object()) fail_value("", "expected a table", table);
    for (const auto& [key, value] : table.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string hint;
      std::size_t best = 3;
      for (const auto& a : allowed) {
        const std::size_t d = edit_distance(key, a);
        if (d < best) {
          best = d;
          hint = fmt::format("did you mean \"{}\"? ", a);
        }
      }
      throw Error(source_.where(child(key) + kKeySuffix),
                  fmt::format("{}unknown key {} ({}allowed: {})", prefix(), quote_found(key), hint,
                              join(allowed)));
    }
  }

  bool has(const std::string& key) const { return table_.contains(key); }
  const Json& value(const std::string& key) const { return table_.at(key); }
  std::string child(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  Location where(const std::string& key = "") const {
    return source_.where(key.empty() ? path_ : child(key));
  }
  const ConfigSource& source() const { return source_; }
  const std::string& path() const { return path_; }

  [[noreturn]] void fail_value(const std::string& key, const std::string& expected,
                               const Json& found) const {
    throw Error(where(key), fmt::format("{}{}{}, found {}", prefix(), key.empty() ? "" : key + ": ",
                                        expected, describe(found)));
  }
  [[noreturn]] void fail_key(const std::string& key, const std::string& message) const {
    throw Error(where(key),
                fmt::format("{}{}{}", prefix(), key.empty() ? "" : key + ": ", message));
  }
  void require(const std::string& key) const {
    if (!has(key)) throw Error(where(), fmt::format("{}missing key \"{}\"", prefix(), key));
  }

  std::string text(const std::string& key, std::string fallback = "") const {
    if (!has(key)) return fallback;
    const Json& v = value(key);
    if (!v.is_string() || v.get<std::string>().empty())
      fail_value(key, "expected a non-empty string", v);
    return v.get<std::string>();
  }
  std::string required_text(const std::string& key) const {
    require(key);
    return text(key);
  }
  /// A string or an array of strings.
  std::vector<std::string> texts(const std::string& key,
                                 std::vector<std::string> fallback = {}) const {
    if (!has(key)) return fallback;
    const Json& v = value(key);
    if (v.is_string() && !v.get<std::string>().empty()) return {v.get<std::string>()};
    std::vector<std::string> out;
    if (v.is_array() && !v.empty()) {
      for (const auto& item : v) {
        if (!item.is_string() || item.get<std::string>().empty()) {
          out.clear();
          break;
        }
        out.push_back(item.get<std::string>());
      }
    }
    if (out.empty()) fail_value(key, "expected a non-empty string or array of strings", v);
    return out;
  }
  double number(const std::string& key, double fallback, double low, double high,
                bool low_open = false) const {
    if (!has(key)) return fallback;
    const Json& v = value(key);
    if (!v.is_number()) fail_value(key, "expected a number", v);
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < low || x > high || (low_open && x == low))
      fail_value(key,
                 std::isinf(low) && std::isinf(high)
                     ? std::string("expected a finite number")
                     : fmt::format("expected a number in {}{}, {}]", low_open ? "(" : "[",
                                   fmt::format("{:g}", low), fmt::format("{:g}", high)),
                 v);
    return x;
  }
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t low,
                       std::int64_t high) const {
    if (!has(key)) return fallback;
    const Json& v = value(key);
    if (!v.is_number_integer()) fail_value(key, "expected an integer", v);
    const auto x = v.get<std::int64_t>();
    if (x < low || x > high)
      fail_value(key, fmt::format("expected an integer from {} to {}", low, high), v);
    return x;
  }
  std::uint64_t seed(const std::string& key, std::uint64_t fallback) const {
    return option<std::uint64_t>(key, fallback,
                                 [](const std::string& t) { return parse_unsigned("", t); });
  }
  /// The positive class (--pos-label): metrics::check_pos_label's rule.
  std::string pos_label() const {
    if (!has("pos_label")) return {};
    const Json& v = value("pos_label");
    if (!v.is_string()) fail_value("pos_label", "expected a class label", v);
    try {
      metrics::check_pos_label("", v.get<std::string>());
    } catch (const Error& e) {
      fail_key("pos_label", e.message());
    }
    return v.get<std::string>();
  }
  /// A bootstrap resample count, as --bootstrap reads it (metrics::check_resample_count).
  std::size_t resamples(const std::string& key, std::size_t fallback) const {
    return option<std::size_t>(key, fallback, [](const std::string& t) {
      const std::uint64_t n = parse_unsigned("", t);
      metrics::check_resample_count(n, 1, "");
      return static_cast<std::size_t>(n);
    });
  }
  /// A confidence level (or another probability), as --confidence reads it.
  double probability(const std::string& key, double fallback) const {
    return option<double>(key, fallback,
                          [](const std::string& t) { return parse_probability("", t); });
  }
  /// Runs `rule`, the library's reading of the option's command-line text (core/options.hpp),
  /// on the key's number written as that text, re-throwing its message at the key: `seed = -5`
  /// is refused as `--seed -5` is. A string is refused even where its text would pass.
  template <typename T>
  T option(const std::string& key, T fallback,
           const std::function<T(const std::string&)>& rule) const {
    if (!has(key)) return fallback;
    const Json& v = value(key);
    if (!v.is_number() && !v.is_string()) fail_value(key, "expected a number", v);
    T out{};
    try {
      out = rule(v.is_string() ? v.get<std::string>() : describe(v));
    } catch (const Error& e) {
      fail_key(key, e.message());
    }
    if (v.is_string()) fail_value(key, "expected a number", v);
    return out;
  }
  /// A path relative to the configuration's folder.
  std::string path(const std::string& key, const std::string& base_dir) const {
    const std::string p = text(key);
    return p.empty() ? p : resolve(p, base_dir);
  }
  static std::string resolve(const std::string& p, const std::string& base_dir) {
    if (p.empty() || fs::path(p).is_absolute() || base_dir.empty()) return p;
    return (fs::path(base_dir) / p).lexically_normal().string();
  }
  /// Runs `parse` (a library parser such as parse_ap_method) on the key's text, re-throwing its
  /// message at the key.
  template <typename T>
  T parsed(const std::string& key, T fallback,
           const std::function<T(const std::string&)>& parse) const {
    if (!has(key)) return fallback;
    const std::string t = text(key);
    try {
      return parse(t);
    } catch (const Error& e) {
      fail_key(key, e.message());
    }
  }
  /// A table whose values are read by the caller.
  KeyReader table(const std::string& key) const {
    const Json& v = value(key);
    if (!v.is_object() || v.empty()) fail_value(key, "expected a table of at least one entry", v);
    std::vector<std::string> keys;
    for (const auto& [k, _] : v.items()) keys.push_back(k);
    return KeyReader(source_, child(key), v, keys);
  }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const auto& [k, _] : table_.items()) out.push_back(k);
    return out;
  }

 private:
  std::string prefix() const { return path_.empty() ? "" : "[" + path_ + "] "; }

  const ConfigSource& source_;
  std::string path_;
  const Json& table_;
};

// Models keep the order in which they were written: TOML tables are read into JSON objects,
// which sort keys, so the order comes from the recorded key locations (line, column).
std::vector<std::string> written_order(const KeyReader& models) {
  std::vector<std::string> keys = models.keys();
  std::stable_sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) {
    const Location la = models.source().where(models.child(a) + kKeySuffix);
    const Location lb = models.source().where(models.child(b) + kKeySuffix);
    return std::tie(la.line, la.column) < std::tie(lb.line, lb.column);
  });
  return keys;
}

std::vector<std::string> data_files(const KeyReader& r, const std::string& base_dir) {
  if (r.has("file") && r.has("files")) r.fail_key("files", "give \"file\" or \"files\", not both");
  if (!r.has("file") && !r.has("files"))
    throw Error(r.where(), fmt::format("[{}] missing key \"file\" (or \"files\")", r.path()));
  std::vector<std::string> files = r.texts(r.has("file") ? "file" : "files");
  for (auto& f : files) f = KeyReader::resolve(f, base_dir);
  return files;
}

learners::TaskKind task_kind(const KeyReader& r) {
  return r.parsed<learners::TaskKind>("task", learners::TaskKind::classification,
                                      [](const std::string& t) { return parse_task_kind(t, ""); });
}

// Learner parameters go to the learners as written; NaN or infinity is no parameter value (the
// learners would report it as null), so it is refused here, where it was written.
void check_finite(const Json& value, const std::string& path, const ConfigSource& source) {
  if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    throw Error(source.where(path),
                fmt::format("{}: expected a finite number, found {}", path, describe(value)));
  }
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) check_finite(child, path + "." + key, source);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      check_finite(value[i], path + "[" + std::to_string(i) + "]", source);
  }
}

Json learner_params(const KeyReader& r) {
  if (!r.has("learner_params")) return Json::object();
  const KeyReader params = r.table("learner_params");
  for (const auto& name : params.keys()) {
    if (!params.value(name).is_object())
      params.fail_value(name, "expected a table of the learner's parameters", params.value(name));
    check_finite(params.value(name), params.child(name), params.source());
  }
  return r.value("learner_params");
}

// A section's `delimiter` and `decimal` keys, read by the words of --delimiter and --decimal.
CsvParams read_csv_dialect(const KeyReader& r) {
  CsvParams csv;
  using Mark = std::optional<char>;
  csv.delimiter = r.parsed<Mark>("delimiter", std::nullopt,
                                 [](const std::string& t) { return parse_delimiter(t, ""); });
  csv.decimal = r.parsed<Mark>("decimal", std::nullopt,
                               [](const std::string& t) { return parse_decimal(t, ""); });
  return csv;
}

MetricsSection read_metrics(const KeyReader& r, const ReportConfig& c) {
  MetricsSection m;
  m.file = KeyReader::resolve(r.required_text("file"), c.base_dir);
  m.csv = read_csv_dialect(r);
  m.columns.label = r.required_text("label");
  m.columns.weight = r.text("weight");
  auto& p = m.params;
  p.threshold = r.number("threshold", p.threshold, -kInf, kInf);
  p.pos_label = r.pos_label();
  p.ap.method = r.parsed<metrics::ApMethod>(
      "ap_method", p.ap.method, [](const std::string& s) { return metrics::parse_ap_method(s); });
  p.ap.grid = r.parsed<metrics::ApGrid>(
      "ap_grid", p.ap.grid, [](const std::string& s) { return metrics::parse_ap_grid(s); });
  p.calibration.bins = static_cast<std::int32_t>(r.integer("bins", p.calibration.bins, 1, 100000));
  p.calibration.strategy = r.parsed<metrics::BinStrategy>(
      "bin_strategy", p.calibration.strategy,
      [](const std::string& s) { return metrics::parse_bin_strategy(s); });
  p.bootstrap.n_resamples = r.resamples("bootstrap", 1000);
  p.bootstrap.confidence = r.probability("confidence", p.bootstrap.confidence);
  p.bootstrap.seed = r.seed("seed", c.seed);
  p.bootstrap.threads = c.threads;

  r.require("models");
  const KeyReader models = r.table("models");
  for (const auto& name : written_order(models)) {
    const Json& v = models.value(name);
    MetricsModel model{name, {}, {}};
    if (v.is_object()) {
      const KeyReader one(models.source(), models.child(name), v, {"score", "pred"});
      if (one.has("score") == one.has("pred"))
        one.fail_key("", "give \"score\" (column or columns) or \"pred\" (a column of labels)");
      model.scores = one.texts("score");
      model.pred = one.text("pred");
    } else {
      if (!v.is_string() && !v.is_array())
        models.fail_value(name, "expected a score column, an array of score columns or a table", v);
      model.scores = models.texts(name);
    }
    m.models.push_back(std::move(model));
  }
  return m;
}

RegressionSection read_regression(const KeyReader& r, const ReportConfig& c) {
  RegressionSection s;
  s.file = KeyReader::resolve(r.required_text("file"), c.base_dir);
  s.csv = read_csv_dialect(r);
  s.columns.label = r.required_text("label");
  s.columns.weight = r.text("weight");
  auto& b = s.params.bootstrap;
  b.n_resamples = r.resamples("bootstrap", 1000);
  b.confidence = r.probability("confidence", b.confidence);
  b.seed = r.seed("seed", c.seed);
  b.threads = c.threads;
  r.require("models");
  const KeyReader models = r.table("models");
  for (const auto& name : written_order(models)) {
    if (!models.value(name).is_string())
      models.fail_value(name, "expected the model's prediction column", models.value(name));
    s.columns.models.emplace_back(name, models.text(name));
  }
  if (s.columns.models.empty()) r.fail_key("models", "expected at least one model");
  return s;
}

SoakSection read_soak(const KeyReader& r, const ReportConfig& c) {
  SoakSection s;
  s.files = data_files(r, c.base_dir);
  s.csv = read_csv_dialect(r);
  s.spec.data.label = r.required_text("label");
  s.spec.data.features = r.texts("features");
  s.spec.data.drop = r.texts("drop");
  if (!s.spec.data.features.empty() && !s.spec.data.drop.empty())
    r.fail_key("drop", "give \"features\" or \"drop\", not both");
  s.spec.data.weight = r.text("weight");
  s.spec.design = {r.required_text("subset"), r.text("group"), r.text("fold"), r.texts("strata")};
  s.spec.task = task_kind(r);
  auto& sp = s.params.splits;
  sp.folds = static_cast<int>(r.integer("folds", 10, 2, 1000000));
  sp.subsets = r.text("subsets", sp.subsets);
  if (sp.subsets.find_first_not_of("SOA") != std::string::npos)
    r.fail_value("subsets", "expected a combination of S, O and A", r.value("subsets"));
  sp.seeds = static_cast<int>(r.integer("seeds", sp.seeds, 1, 1000000));
  sp.sizes = static_cast<int>(r.integer("sizes", sp.sizes, -1, 1000));
  sp.ratio = r.probability("ratio", sp.ratio);
  sp.seed = r.seed("seed", c.seed);
  s.params.run.learners = r.texts("learners", {"featureless", "glmnet"});
  s.params.run.learner_params = learner_params(r);
  s.params.run.threads = c.threads;
  s.params.run.seed = sp.seed;
  s.params.statistics.measure = r.text("measure");
  return s;
}

CvSection read_cv(const KeyReader& r, const ReportConfig& c) {
  CvSection s;
  s.files = data_files(r, c.base_dir);
  s.csv = read_csv_dialect(r);
  auto& p = s.params;
  p.data.label = r.required_text("label");
  p.data.features = r.texts("features");
  p.data.drop = r.texts("drop");
  if (!p.data.features.empty() && !p.data.drop.empty())
    r.fail_key("drop", "give \"features\" or \"drop\", not both");
  p.data.weight = r.text("weight");
  p.group = r.text("group");
  p.fold = r.text("fold");
  p.task = task_kind(r);
  p.folds = static_cast<int>(r.integer("folds", p.folds, 2, 1000000));
  p.learners = r.texts("learners", p.learners);
  p.learner_params = learner_params(r);
  p.seed = r.seed("seed", c.seed);
  p.threads = c.threads;
  return s;
}

ShiftSection read_shift(const KeyReader& r, const ReportConfig& c) {
  ShiftSection s;
  s.file = KeyReader::resolve(r.required_text("file"), c.base_dir);
  s.csv = read_csv_dialect(r);
  auto& col = s.columns;
  col.target = r.required_text("target");
  col.pred = r.texts("pred");
  col.uncertainty = r.texts("uncertainty");
  col.members = r.texts("members");
  col.member_vars = r.texts("member_vars");
  col.partition = r.text("partition");
  col.shifted = r.text("shifted");
  if (col.pred.empty() && col.members.empty())
    throw Error(r.where(), "[shift] missing key \"pred\" (or \"members\" for an ensemble)");
  if (col.uncertainty.size() != col.pred.size())
    r.fail_key(col.uncertainty.empty() ? "" : "uncertainty",
               fmt::format("give one uncertainty column per pred column (found {} pred, {} "
                           "uncertainty)",
                           col.pred.size(), col.uncertainty.size()));
  if (!col.member_vars.empty() && col.member_vars.size() != col.members.size())
    r.fail_key("member_vars", fmt::format("give one variance column per member (found {} "
                                          "members, {} member_vars)",
                                          col.members.size(), col.member_vars.size()));
  auto& p = s.params;
  if (r.has("acceptable")) p.acceptable = r.number("acceptable", 0, 0, 1e300);
  p.beta = r.number("beta", p.beta, 0, 1e300, true);
  p.convention = r.parsed<shift::RetentionConvention>(
      "convention", p.convention,
      [](const std::string& t) { return shift::parse_retention_convention(t); });
  p.error = r.parsed<shift::ErrorKind>(
      "error", p.error, [](const std::string& t) { return shift::parse_error_kind(t); });
  p.bootstrap.n_resamples = r.resamples("bootstrap", 200);
  p.bootstrap.confidence = r.probability("confidence", p.bootstrap.confidence);
  p.bootstrap.seed = r.seed("seed", c.seed);
  p.bootstrap.threads = c.threads;
  return s;
}

SegmentSection read_segment(const KeyReader& r, const ReportConfig& c) {
  SegmentSection s;
  auto& p = s.params;
  p.truth = KeyReader::resolve(r.required_text("truth"), c.base_dir);
  p.uncertainty = r.path("uncertainty", c.base_dir);
  p.brain_mask = r.path("brain_mask", c.base_dir);
  p.partition_csv = r.path("partition", c.base_dir);
  p.voxel_measure = r.text("voxel_measure", p.voxel_measure);
  p.scoring.threshold = r.number("threshold", p.scoring.threshold, 0, 1);
  p.scoring.connectivity =
      static_cast<int>(r.integer("connectivity", p.scoring.connectivity, 6, 26));
  if (p.scoring.connectivity != 6 && p.scoring.connectivity != 18 && p.scoring.connectivity != 26)
    r.fail_value("connectivity", "expected 6, 18 or 26", r.value("connectivity"));
  p.scoring.iou_threshold = r.number("iou", p.scoring.iou_threshold, 0, 1);
  p.scoring.min_lesion_size = static_cast<std::size_t>(
      r.integer("min_size", static_cast<std::int64_t>(p.scoring.min_lesion_size), 0, 1 << 30));
  p.scoring.ndsc_r = r.number("r", p.scoring.ndsc_r, 0, 1, true);
  p.threads = c.threads;
  if (r.has("models") == r.has("pred"))
    r.fail_key("",
               "give \"pred\" (one model's prediction source or sources) or a \"models\" "
               "table (model name = source or sources)");
  if (r.has("pred")) {
    s.models.push_back({"model", r.texts("pred")});
  } else {
    const KeyReader models = r.table("models");
    for (const auto& name : written_order(models)) s.models.push_back({name, models.texts(name)});
  }
  for (auto& m : s.models) {
    for (auto& source : m.pred) source = KeyReader::resolve(source, c.base_dir);
  }
  return s;
}

CountSection read_count(const KeyReader& r, const ReportConfig& c) {
  CountSection s;
  s.spec = KeyReader::resolve(r.required_text("spec"), c.base_dir);
  s.csv = read_csv_dialect(r);
  r.require("models");
  const KeyReader models = r.table("models");
  for (const auto& name : written_order(models))
    s.models.push_back({name, KeyReader::resolve(models.text(name), c.base_dir)});
  s.test = r.path("test", c.base_dir);
  s.test_label = r.text("label");
  if (!s.test.empty() && s.test_label.empty())
    r.fail_key("test", "needs \"label\" (the test set's column of true class names)");
  if (s.test.empty() && !s.test_label.empty()) r.fail_key("label", "needs \"test\" (a CSV file)");
  auto& p = s.params;
  p.property = r.text("property");
  const std::string method = r.text("method", std::string(count::to_string(p.method)));
  const std::vector<std::string> methods = {"auto", "structural", "enumerate", "exact-cnf",
                                            "approx"};
  if (std::find(methods.begin(), methods.end(), method) == methods.end())
    r.fail_value("method", "expected one of " + join(methods), r.value("method"));
  p.method = count::parse_count_method(method);
  p.time_limit = r.number("time_limit", p.time_limit, 0, 1e9);
  p.epsilon = r.number("epsilon", p.epsilon, 0, 1e9, true);
  p.delta = r.probability("delta", p.delta);
  p.ambiguity_limit = static_cast<std::uint64_t>(
      r.integer("ambiguity_limit", static_cast<std::int64_t>(p.ambiguity_limit), 0,
                std::numeric_limits<std::int64_t>::max()));
  p.fraction_bits = static_cast<int>(r.integer("fraction_bits", p.fraction_bits, 0, 60));
  p.weight_bits = static_cast<int>(r.integer("weight_bits", p.weight_bits, 2, 40));
  p.activation_bits = static_cast<int>(r.integer("activation_bits", p.activation_bits, 0, 40));
  if (r.has("samples")) {
    const Json& v = r.value("samples");
    if (!v.is_array() || v.empty()) r.fail_value("samples", "expected an array of sample sizes", v);
    for (const auto& n : v) {
      if (!n.is_number_integer() || n.get<std::int64_t>() < 1)
        r.fail_value("samples", "expected an array of sample sizes >= 1", v);
      p.samples.push_back(static_cast<std::size_t>(n.get<std::int64_t>()));
    }
  }
  p.seed = r.seed("seed", c.seed);
  p.confidence = r.probability("confidence", p.confidence);
  p.threads = c.threads;
  return s;
}

// Metric names are checked where they were written (the task may still be "auto": then any
// task's names pass here and compare_input's task decides later).
std::vector<std::string> compare_metrics(const KeyReader& r, compare::Task task) {
  std::vector<std::string> names = r.texts("metrics");
  for (std::size_t i = 0; i < names.size(); ++i) {
    try {
      compare::canonical_metric(names[i], task);
    } catch (const Error& e) {
      const std::string at =
          r.child("metrics") +
          (r.value("metrics").is_array() ? "[" + std::to_string(i) + "]" : std::string());
      throw Error(r.source().where(at), fmt::format("[{}] metrics: {}", r.path(), e.message()));
    }
  }
  return names;
}

void read_compare_models(const KeyReader& r, compare::CompareColumns& columns) {
  r.require("models");
  const KeyReader models = r.table("models");
  for (const auto& name : written_order(models)) {
    const Json& v = models.value(name);
    if (!v.is_string() && !v.is_array())
      models.fail_value(name, "expected a score column or an array of score columns", v);
    columns.models.push_back({name, models.texts(name)});
  }
  if (columns.models.size() < 2)
    r.fail_key("models", fmt::format("expected at least two models to compare, found {}",
                                     columns.models.size()));
}

CompareSection read_compare(const KeyReader& r, const ReportConfig& c) {
  CompareSection s;
  s.file = KeyReader::resolve(r.required_text("file"), c.base_dir);
  s.csv = read_csv_dialect(r);
  s.columns.label = r.required_text("label");
  s.columns.weight = r.text("weight");
  s.columns.by = r.texts("by");
  s.task = r.parsed<compare::Task>("task", s.task,
                                   [](const std::string& t) { return compare::parse_task(t, ""); });
  read_compare_models(r, s.columns);
  auto& p = s.params;
  p.metrics = compare_metrics(r, s.task);
  p.baseline = r.text("baseline");
  if (!p.baseline.empty() && std::none_of(s.columns.models.begin(), s.columns.models.end(),
                                          [&](const auto& m) { return m.first == p.baseline; }))
    r.fail_value("baseline", "expected one of the models", r.value("baseline"));
  p.all_pairs = r.parsed<bool>("pairs", false,
                               [](const std::string& t) { return compare::parse_pairs(t, ""); });
  p.pos_label = r.pos_label();
  p.threshold = r.number("threshold", p.threshold, -kInf, kInf);
  p.bootstrap.n_resamples = r.resamples("resamples", 1000);
  p.bootstrap.confidence = r.probability("confidence", p.bootstrap.confidence);
  p.bootstrap.seed = r.seed("seed", c.seed);
  p.bootstrap.threads = c.threads;
  p.test = r.parsed<compare::TestKind>(
      "test", p.test, [](const std::string& t) { return compare::parse_test(t, ""); });
  p.n_permutations = static_cast<std::size_t>(
      r.integer("permutations", static_cast<std::int64_t>(p.n_permutations), 1, 1000000));
  p.correction = r.parsed<compare::Correction>(
      "correction", p.correction,
      [](const std::string& t) { return compare::parse_correction(t, ""); });
  s.gates = r.texts("gates");
  s.gate_on = r.parsed<compare::GateOn>(
      "gate_on", s.gate_on, [](const std::string& t) { return compare::parse_gate_on(t, ""); });
  return s;
}

ReportConfig read_config(const Json& root, ConfigSource source, const std::string& base_dir) {
  ReportConfig c;
  c.source = std::move(source);
  c.base_dir = base_dir;
  c.document = root;
  check_texts(root, "", c.source);
  const KeyReader top(c.source, "", root, kKeys.at(""));
  c.title = top.text("title", c.title);
  c.out = KeyReader::resolve(top.text("out", "report.html"), base_dir);
  c.seed = top.seed("seed", c.seed);
  c.threads = static_cast<int>(top.option<std::int64_t>(
      "threads", 0, [](const std::string& t) { return checked_threads(parse_threads("", t)); }));
  c.chart_axis = top.parsed<AxisRange>("chart_axis", c.chart_axis,
                                       [](const std::string& t) { return parse_axis_range(t); });
  bool any = false;
  const auto section = [&](const char* name) -> std::optional<KeyReader> {
    if (!top.has(name)) return std::nullopt;
    any = true;
    return KeyReader(c.source, name, top.value(name), kKeys.at(name));
  };
  if (auto r = section("metrics")) c.metrics = read_metrics(*r, c);
  if (auto r = section("regression")) c.regression = read_regression(*r, c);
  if (auto r = section("soak")) c.soak = read_soak(*r, c);
  if (auto r = section("cv")) c.cv = read_cv(*r, c);
  if (auto r = section("shift")) c.shift = read_shift(*r, c);
  if (auto r = section("segment")) c.segment = read_segment(*r, c);
  if (auto r = section("count")) c.count = read_count(*r, c);
  if (auto r = section("compare")) c.compare = read_compare(*r, c);
  if (!any)
    throw Error(Location{c.source.name()},
                "no analysis to run: add at least one of [metrics], [regression], [soak], [cv], "
                "[shift], [segment], [count], [compare]");
  return c;
}

}  // namespace

Location ConfigSource::where(const std::string& path) const {
  std::string p = path;
  while (true) {
    const auto it = places_.find(p);
    if (it != places_.end()) return it->second;
    if (p.empty()) break;
    // The parent: drop "#key", then the last ".name" or "[i]".
    const auto cut = p.find_last_of(".[#");
    p = cut == std::string::npos ? "" : p.substr(0, cut);
  }
  return Location{name_};
}

ReportConfig parse_report_config(const std::string& text, const std::string& name,
                                 const std::string& base_dir) {
  ConfigSource source(name);
  const Json root = detail::parse_toml(text, name, source);
  return read_config(root, std::move(source), base_dir);
}

ReportConfig read_report_config(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    fail("{}: is a folder, expected a report config file (TOML)", path);
  const std::string text = detail::read_text_file(path);
  const std::string base = fs::path(path).parent_path().string();
  return parse_report_config(text, path, base.empty() ? "." : base);
}

ReportConfig report_config_from_json(const Json& config, const std::string& base_dir,
                                     const std::string& name) {
  return read_config(config, ConfigSource(name), base_dir);
}

const std::map<std::string, std::vector<std::string>>& report_config_keys() {
  return kKeys;
}

}  // namespace assay::report

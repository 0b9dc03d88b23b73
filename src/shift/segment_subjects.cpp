// The subject files of a segmentation experiment (match_subjects): each source (--truth, --pred,
// --uncertainty, --brain-mask) listed as a folder, a glob, an {id} pattern or a single file, its
// files keyed by subject id, and the sources matched by id; the partitions read from a CSV.
#include <glob.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/shift/segment_experiment.hpp"

namespace assay::shift {
namespace {

namespace fs = std::filesystem;

bool is_nifti_name(std::string_view name) {
  return name.ends_with(".nii") || name.ends_with(".nii.gz");
}

std::string strip_extension(const std::string& name) {
  if (name.ends_with(".nii.gz")) return name.substr(0, name.size() - 7);
  if (name.ends_with(".nii")) return name.substr(0, name.size() - 4);
  return name;
}

bool is_separator(char c) {
  return !std::isalnum(static_cast<unsigned char>(c));
}

// "2" before "10": digit runs compare by value, everything else bytewise.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      std::string_view na(a.data() + i, ei - i), nb(b.data() + j, ej - j);
      while (na.size() > 1 && na[0] == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb[0] == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  if ((a.size() - i) != (b.size() - j)) return (a.size() - i) < (b.size() - j);
  return a < b;
}

std::string id_list(const std::vector<std::string>& ids) {
  const std::size_t shown = std::min<std::size_t>(ids.size(), 5);
  std::string out = fmt::format("{}", fmt::join(ids.begin(), ids.begin() + shown, ", "));
  if (ids.size() > shown) out += fmt::format(" and {} more", ids.size() - shown);
  return out;
}

// The files of one source by subject id.
struct Source {
  std::string role;  // "--pred", "--truth", ...
  std::string spec;
  std::map<std::string, std::string> by_id;
  bool single_file = false;
  std::string rule;  // how ids were derived, for messages
};

void add_file(Source& source, const std::string& id, const std::string& path) {
  check_utf8_name(path);  // ids come from file names and end up in JSON and HTML
  if (id.empty()) fail("{} {}: {}: empty subject id", source.role, source.spec, path);
  auto [it, inserted] = source.by_id.emplace(id, path);
  if (!inserted) {
    fail("{} {}: two files for subject {}: {} and {}", source.role, source.spec, id, it->second,
         path);
  }
}

// Ids from file stems: the common prefix/suffix cut back to separators.
void add_by_common_affixes(Source& source, std::vector<std::string> paths) {
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> stems;
  for (const auto& p : paths) stems.push_back(strip_extension(fs::path(p).filename().string()));
  if (stems.size() == 1) {
    source.single_file = true;
    source.rule = "a single file: its name without extension";
    add_file(source, stems[0], paths[0]);
    return;
  }
  std::string prefix = stems[0], suffix = stems[0];
  for (const auto& s : stems) {
    std::size_t k = 0;
    while (k < prefix.size() && k < s.size() && prefix[k] == s[k]) ++k;
    prefix.resize(k);
    k = 0;
    while (k < suffix.size() && k < s.size() &&
           suffix[suffix.size() - 1 - k] == s[s.size() - 1 - k]) {
      ++k;
    }
    suffix = suffix.substr(suffix.size() - k);
  }
  // A prefix ends with a separator, a suffix starts with one.
  while (!prefix.empty() && !is_separator(prefix.back())) prefix.pop_back();
  std::size_t start = 0;
  while (start < suffix.size() && !is_separator(suffix[start])) ++start;
  suffix = suffix.substr(start);
  std::size_t shortest = stems[0].size();
  for (const auto& s : stems) shortest = std::min(shortest, s.size());
  if (prefix.size() + suffix.size() >= shortest) suffix.clear();
  if (prefix.size() >= shortest) prefix.clear();
  source.rule = fmt::format(
      "file names without .nii/.nii.gz, common prefix \"{}\" and suffix "
      "\"{}\"",
      prefix, suffix);
  for (std::size_t i = 0; i < stems.size(); ++i) {
    add_file(source,
             stems[i].substr(prefix.size(), stems[i].size() - prefix.size() - suffix.size()),
             paths[i]);
  }
}

Source list_source(const std::string& role, const std::string& spec) {
  Source source;
  source.role = role;
  source.spec = spec;
  const auto marker = spec.find("{id}");
  if (marker != std::string::npos) {
    const fs::path pattern(spec);
    const std::string name = pattern.filename().string();
    const auto at = name.find("{id}");
    if (at == std::string::npos || name.find("{id}", at + 1) != std::string::npos) {
      fail("{} {}: expected one {{id}} in the file name part of the pattern", role, spec);
    }
    const bool has_extension = is_nifti_name(name);
    const std::string prefix = name.substr(0, at);
    const std::string suffix = has_extension ? name.substr(at + 4) : name.substr(at + 4);
    const fs::path folder = pattern.has_parent_path() ? pattern.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
      fail("{} {}: no such folder {}", role, spec, folder.string());
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      const std::string file = entry.path().filename().string();
      if (!is_nifti_name(file) || !entry.is_regular_file(ec)) continue;
      const std::string matched = has_extension ? file : strip_extension(file);
      if (matched.size() > prefix.size() + suffix.size() && matched.starts_with(prefix) &&
          matched.ends_with(suffix)) {
        files.push_back(entry.path().string());
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      const std::string file = fs::path(f).filename().string();
      const std::string matched = has_extension ? file : strip_extension(file);
      add_file(source,
               matched.substr(prefix.size(), matched.size() - prefix.size() - suffix.size()), f);
    }
    source.rule = "the part of the file name that {id} stands for";
    if (source.by_id.empty()) fail("{} {}: no .nii/.nii.gz file matches the pattern", role, spec);
    return source;
  }
  std::error_code ec;
  if (spec.find_first_of("*?[") != std::string::npos) {
    glob_t matches{};
    const int status = ::glob(spec.c_str(), 0, nullptr, &matches);
    std::vector<std::string> files;
    if (status == 0) {
      for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
        const std::string path = matches.gl_pathv[i];
        if (is_nifti_name(path) && fs::is_regular_file(path, ec)) files.push_back(path);
      }
    }
    globfree(&matches);
    if (files.empty()) fail("{} {}: the glob matches no .nii/.nii.gz file", role, spec);
    add_by_common_affixes(source, files);
    return source;
  }
  if (fs::is_directory(spec, ec)) {
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(spec, ec)) {
      if (is_nifti_name(entry.path().filename().string()) && entry.is_regular_file(ec)) {
        files.push_back(entry.path().string());
      }
    }
    if (files.empty()) fail("{} {}: no .nii/.nii.gz file in this folder", role, spec);
    add_by_common_affixes(source, files);
    return source;
  }
  if (fs::is_regular_file(spec, ec)) {
    if (!is_nifti_name(spec)) fail("{} {}: expected a .nii or .nii.gz file", role, spec);
    add_by_common_affixes(source, {spec});
    return source;
  }
  fail("{} {}: no such file or folder", role, spec);
}

// The files of `source` for `subjects`, by id (or the single-file rule).
std::vector<std::string> match_source(const Source& source, const Source& truth,
                                      const std::vector<std::string>& subjects) {
  if (source.single_file && subjects.size() == 1) return {source.by_id.begin()->second};
  std::vector<std::string> missing, extra, files;
  for (const auto& id : subjects) {
    auto it = source.by_id.find(id);
    if (it == source.by_id.end()) {
      missing.push_back(id);
    } else {
      files.push_back(it->second);
    }
  }
  for (const auto& [id, path] : source.by_id) {
    if (!truth.by_id.count(id)) extra.push_back(id);
  }
  std::sort(missing.begin(), missing.end(), natural_less);
  std::sort(extra.begin(), extra.end(), natural_less);
  if (!missing.empty()) {
    fail("{} {}: no file for subject(s) {} of --truth {} (subject ids here: {})", source.role,
         source.spec, id_list(missing), truth.spec, source.rule);
  }
  if (!extra.empty()) {
    fail("{} {}: subject(s) {} ({}) have no truth volume in --truth {} (subject ids here: {})",
         source.role, source.spec, id_list(extra), source.by_id.at(extra[0]), truth.spec,
         source.rule);
  }
  return files;
}

std::map<std::string, std::string> read_partitions(const std::string& path) {
  CsvParams csv;
  csv.categorical = {"subject", "partition"};
  const Table table = read_csv(path, csv);
  const Column& subject = table.column("subject");
  const Column& partition = table.column("partition");
  std::map<std::string, std::string> out;
  for (std::size_t row = 0; row < table.n_rows(); ++row) {
    const std::string& id = subject.label(row);
    auto [it, inserted] = out.emplace(id, partition.label(row));
    if (!inserted && it->second != partition.label(row)) {
      fail_at({path, static_cast<std::int64_t>(row) + 2, 0},
              "subject {} is in partition \"{}\" and \"{}\"", id, it->second, partition.label(row));
    }
  }
  return out;
}

}  // namespace

std::vector<SubjectFiles> match_subjects(const SegmentParams& params) {
  if (params.pred.empty()) fail("expected at least one prediction source (--pred)");
  if (params.truth.empty()) fail("expected a truth source (--truth)");
  const Source truth = list_source("--truth", params.truth);
  std::vector<std::string> ids;
  for (const auto& [id, path] : truth.by_id) ids.push_back(id);
  std::sort(ids.begin(), ids.end(), natural_less);

  std::vector<SubjectFiles> subjects(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    subjects[i].id = ids[i];
    subjects[i].truth = truth.by_id.at(ids[i]);
  }
  for (const auto& spec : params.pred) {
    const auto files = match_source(list_source("--pred", spec), truth, ids);
    for (std::size_t i = 0; i < ids.size(); ++i) subjects[i].pred.push_back(files[i]);
  }
  if (!params.uncertainty.empty()) {
    const auto files = match_source(list_source("--uncertainty", params.uncertainty), truth, ids);
    for (std::size_t i = 0; i < ids.size(); ++i) subjects[i].uncertainty = files[i];
  }
  if (!params.brain_mask.empty()) {
    const auto files = match_source(list_source("--brain-mask", params.brain_mask), truth, ids);
    for (std::size_t i = 0; i < ids.size(); ++i) subjects[i].brain_mask = files[i];
  }
  if (!params.partition_csv.empty()) {
    const auto partitions = read_partitions(params.partition_csv);
    std::vector<std::string> missing;
    for (auto& s : subjects) {
      auto it = partitions.find(s.id);
      if (it == partitions.end()) {
        missing.push_back(s.id);
      } else {
        s.partition = it->second;
      }
    }
    if (!missing.empty()) {
      fail("{}: no partition for subject(s) {} (expected a row per subject in column \"subject\")",
           params.partition_csv, id_list(missing));
    }
  }
  for (const auto& s : subjects) {  // no output of the command may replace one of them
    note_input(s.truth, "a --truth volume");
    for (const auto& pred : s.pred) note_input(pred, "a --pred volume");
    note_input(s.uncertainty, "an --uncertainty volume");
    note_input(s.brain_mask, "a --brain-mask volume");
  }
  return subjects;
}

}  // namespace assay::shift

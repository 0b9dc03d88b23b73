#include "assay/shift/segment_experiment.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/nifti.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/shift/ensemble.hpp"
#include "shift/fast_log.hpp"
#include "shift/segmentation_detail.hpp"

namespace assay::shift {
namespace {

namespace fs = std::filesystem;

Grid3 grid_of(const Volume& v) {
  return Grid3{v.shape[0], v.shape[1], v.shape[2]};
}

// Reads a 0/1 mask file straight into bytes, block by block, with the input check of
// segmentation.hpp (same message, the file named in front): its doubles, 8 bytes a voxel, are
// never written out and read back, and a uint8 file's bytes are checked and copied as they are.
// Branch-free scans (vectorised); the offending voxel is looked for only on failure.
void read_mask(const std::string& path, const char* what, Volume& header,
               std::vector<std::uint8_t>& mask) {
  const auto not_binary = [&](std::size_t voxel, double value) {
    fail("{}: {}: expected 0 or 1 at voxel {}, found {}", path, what,
         voxel_name(grid_of(header), voxel), value);
  };
  const auto size_mask = [&] {  // the header's size, checked against the memory left first
    const std::size_t n = header.size();
    if (mask.size() == n) return;
    try {
      check_memory(n - std::min(n, mask.capacity()),
                   fmt::format("a {} mask (1 byte per voxel)", shape_string(header)));
    } catch (const Error& e) {
      fail("{}: {}", path, e.what());
    }
    mask.resize(n);
  };
  const auto from_doubles = [&](std::size_t first, std::span<const double> values) {
    if (first == 0) size_mask();
    if (detail::binary_to_mask(values.data(), values.size(), mask.data() + first)) return;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i] != 0 && values[i] != 1) not_binary(first + i, values[i]);
    }
  };
  const auto from_bytes = [&](std::size_t first, std::span<const std::uint8_t> bytes) {
    if (first == 0) size_mask();
    const std::size_t bad = detail::first_non_binary(bytes.data(), bytes.size());
    if (bad < bytes.size()) not_binary(first + bad, bytes[bad]);
    std::copy(bytes.begin(), bytes.end(), mask.begin() + static_cast<std::ptrdiff_t>(first));
  };
  read_nifti_voxels(path, header, from_doubles, from_bytes);
  size_mask();
}

// Reads a probability map, checking each block as it is decoded, and with a `mask` thresholds
// it there too (mask = p >= threshold), while the block is in the cache. Values within 1e-6 of
// [0, 1] are clamped: a probability map stored as scaled integers (uint8 with a float32
// scl_slope, as nibabel writes one) decodes to 1.00000006 at its top.
void read_probability(const std::string& path, Volume& v, double threshold,
                      std::vector<std::uint8_t>* mask) {
  const std::uint64_t bits = detail::threshold_bits(threshold);
  read_nifti_into(path, v, [&](std::size_t first, std::span<double> values) {
    if (mask != nullptr && first == 0) mask->resize(v.size());
    const bool in_range =
        mask != nullptr
            ? detail::probability_to_mask(values.data(), values.size(), bits, mask->data() + first)
            : detail::all_probability(values.data(), values.size());
    if (in_range) return;
    constexpr double kSlack = 1e-6;
    for (std::size_t i = 0; i < values.size(); ++i) {
      double& x = values[i];
      if (x >= 0 && x <= 1) continue;
      if (x >= -kSlack && x < 0) {
        x = 0;
      } else if (x > 1 && x <= 1 + kSlack) {
        x = 1;
      } else {
        fail("{}: probability: expected a value in [0, 1] at voxel {}, found {}", path,
             voxel_name(grid_of(v), first + i), x);
      }
    }
    if (mask != nullptr) {  // again, with the clamped values
      detail::probability_to_mask(values.data(), values.size(), bits, mask->data() + first);
    }
  });
}

void check_not_nan(const Volume& v, const char* what) {
  for (std::size_t i = 0; i < v.data.size(); ++i) {
    if (std::isnan(v.data[i])) {
      fail("{}: {}: expected a number at voxel {}, found NaN", v.path, what,
           voxel_name(grid_of(v), i));
    }
  }
}

void check_grid(const Volume& v, const Volume& truth) {
  if (v.shape != truth.shape) {
    fail("{}: shape {} differs from the truth's {} ({})", v.path, shape_string(v),
         shape_string(truth), truth.path);
  }
  if (!same_grid(v, truth)) {
    std::size_t worst = 0;
    for (std::size_t i = 0; i < 16; ++i) {
      if (!(std::abs(v.affine[i] - truth.affine[i]) <=
            std::abs(v.affine[worst] - truth.affine[worst]))) {
        worst = i;
      }
    }
    fail("{}: affine differs from the truth's ({}): entry [{}][{}] is {} vs {} (tolerance 1e-4)",
         v.path, truth.path, worst / 4, worst % 4, v.affine[worst], truth.affine[worst]);
  }
}

VoxelMeasure resolve_measure(const SegmentParams& p) {
  if (!p.uncertainty.empty()) return VoxelMeasure::file;
  const VoxelMeasure measure = parse_voxel_measure(p.voxel_measure);
  if (measure != VoxelMeasure::automatic) return measure;
  return p.pred.size() > 1 ? VoxelMeasure::reverse_mutual_information
                           : VoxelMeasure::entropy_of_expected;
}

const std::vector<double>& chosen_measure(const EnsembleUncertainty& u, VoxelMeasure measure) {
  switch (measure) {
    case VoxelMeasure::entropy_of_expected:
      return u.entropy_of_expected;
    case VoxelMeasure::expected_entropy:
      return u.expected_entropy;
    case VoxelMeasure::mutual_information:
      return u.mutual_information;
    case VoxelMeasure::epkl:
      return u.epkl;
    default:
      return u.reverse_mutual_information;
  }
}

void write_derived(const std::string& folder, const std::string& name, const Volume& grid,
                   std::vector<double>&& data, NiftiType type) {
  Volume out;
  out.shape = grid.shape;
  out.affine = grid.affine;
  out.data = std::move(data);
  write_nifti((fs::path(folder) / name).string(), out, type);
}

// One worker's buffers, reused from subject to subject (no page faults after the first).
struct Workspace {
  Volume truth, brain;  // headers only: their voxels are in the masks
  std::vector<std::uint8_t> truth_mask, brain_mask;
  Volume uncertainty_file;
  std::vector<Volume> members;
  std::vector<double> mean, uncertainty, block;
  std::vector<std::uint8_t> uncertainty_written;  // single_member_entropy's record
  std::vector<std::size_t> voxels;
  detail::ScoringScratch scoring;  // score_subject's masks, labels and keys
};

// One member's binary entropy -((1 - p) log(1 - p + eps) + p log(p + eps)) per voxel: the
// operations of ensemble_uncertainty's entropy of the expected and expected entropy for one
// member, in the same order, so the same bits, without gathering {1 - p, p} blocks. eps is
// EnsembleParams' default (>= DBL_MIN, so fast_log applies).
ASSAY_VECTOR_CLONES void single_member_entropy_block(const double* p, std::size_t n, double* out) {
  constexpr double eps = EnsembleParams{}.epsilon;
  static_assert(eps >= std::numeric_limits<double>::min());
#pragma GCC ivdep
  for (std::size_t i = 0; i < n; ++i) {
    const double q = 1 - p[i];
    double h = 0;
    h += q * -detail::fast_log(q + eps);
    h += p[i] * -detail::fast_log(p[i] + eps);
    out[i] = h;
  }
}

// out = 0 where the brain mask is 0. An integer select: a floating-point compare in the loop
// kept GCC from vectorising the entropy loop it once sat in.
ASSAY_VECTOR_CLONES void zero_outside_brain(const std::uint8_t* brain, std::size_t n, double* out) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t inside = brain[i] != 0;
    out[i] = std::bit_cast<double>(std::bit_cast<std::uint64_t>(out[i]) & (0 - inside));
  }
}

// The same over a whole volume (0 outside the brain when `brain` is given), block by block: a
// block without a brain voxel is all zeros and its logs are not taken (three quarters of an MRI
// volume lie outside the brain).
// `written` marks the blocks of `out` that may hold non-zeros (from the previous subject: the
// array is reused), so that a block outside this brain is zeroed only when it is not zero yet.
void single_member_entropy(const double* p, const std::uint8_t* brain, std::size_t n, double* out,
                           std::vector<std::uint8_t>& written) {
  if (brain == nullptr) {
    written.clear();  // no record of this one
    return single_member_entropy_block(p, n, out);
  }
  constexpr std::size_t kBlock = 32;  // a third of the bench's volumes computed (a half at 256)
  if (written.size() != (n + kBlock - 1) / kBlock) written.assign((n + kBlock - 1) / kBlock, 1);
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t len = std::min(kBlock, n - start);
    const std::uint8_t* mask = brain + start;
    std::uint8_t& dirty = written[start / kBlock];
    if (!detail::any_nonzero(mask, len)) {
      if (dirty) std::fill(out + start, out + start + len, 0.0);
      dirty = 0;
    } else {
      dirty = 1;
      single_member_entropy_block(p + start, len, out + start);
      zero_outside_brain(mask, len, out + start);
    }
  }
}

// The voxel uncertainty `measure` of the members with classes {1 - p, p} (shift/ensemble.hpp),
// block by block so that only a small M x block x 2 array is held beside the members. With a
// brain mask and no map to write, only brain voxels are computed (score_subject uses no other;
// the rest are 0).
void member_uncertainty(const std::vector<Volume>& members, VoxelMeasure measure,
                        std::span<const std::uint8_t> brain, Workspace& ws) {
  const std::size_t n = members.front().data.size(), m = members.size();
  constexpr std::size_t kBlock = std::size_t{1} << 15;
  if (m == 1 &&
      (measure == VoxelMeasure::entropy_of_expected || measure == VoxelMeasure::expected_entropy)) {
    if (ws.uncertainty.size() != n) ws.uncertainty_written.clear();  // contents unknown
    ws.uncertainty.resize(n);
    single_member_entropy(members[0].data.data(), brain.empty() ? nullptr : brain.data(), n,
                          ws.uncertainty.data(), ws.uncertainty_written);
    return;
  }
  ws.uncertainty_written.clear();  // written below without a record
  ws.uncertainty.assign(n, 0.0);
  ws.voxels.clear();
  EnsembleParams params;
  params.threads = 1;  // one subject per worker already
  std::size_t cursor = 0;
  while (cursor < n) {
    // The next block of voxels to compute: every voxel, or the brain voxels.
    ws.voxels.clear();
    while (cursor < n && ws.voxels.size() < kBlock) {
      if (brain.empty() || brain[cursor] != 0) ws.voxels.push_back(cursor);
      ++cursor;
    }
    const std::size_t b = ws.voxels.size();
    if (b == 0) continue;
    ws.block.resize(m * b * 2);
    for (std::size_t k = 0; k < m; ++k) {
      const double* p = members[k].data.data();
      double* dst = ws.block.data() + k * b * 2;
      for (std::size_t i = 0; i < b; ++i) {
        const double v = p[ws.voxels[i]];
        dst[2 * i] = 1 - v;
        dst[2 * i + 1] = v;
      }
    }
    const EnsembleUncertainty u = ensemble_uncertainty(ws.block, m, b, 2, params);
    const std::vector<double>& chosen = chosen_measure(u, measure);
    for (std::size_t i = 0; i < b; ++i) ws.uncertainty[ws.voxels[i]] = chosen[i];
  }
}

SubjectScores score_one(const SubjectFiles& files, const SegmentParams& params,
                        VoxelMeasure measure, Workspace& ws) {
  read_mask(files.truth, "truth", ws.truth, ws.truth_mask);
  const Volume& truth = ws.truth;
  const Grid3 grid = grid_of(truth);
  const std::size_t n = truth.size();

  std::span<const std::uint8_t> brain;
  if (!files.brain_mask.empty()) {
    read_mask(files.brain_mask, "brain mask", ws.brain, ws.brain_mask);
    check_grid(ws.brain, truth);
    brain = ws.brain_mask;
  }

  const std::size_t m = files.pred.size();
  ws.members.resize(m);
  for (std::size_t k = 0; k < m; ++k) {
    // One member is the probability map itself: threshold it while reading.
    read_probability(files.pred[k], ws.members[k], params.scoring.threshold,
                     m == 1 ? &ws.scoring.predicted_mask : nullptr);
    check_grid(ws.members[k], truth);
  }
  // Ensemble mean = (p_1 + ... + p_M) / M, summed in source order.
  std::span<const double> probability = ws.members[0].data;
  if (m > 1) {
    ws.mean.assign(ws.members[0].data.begin(), ws.members[0].data.end());
    for (std::size_t k = 1; k < m; ++k) {
      const double* p = ws.members[k].data.data();
      for (std::size_t i = 0; i < n; ++i) ws.mean[i] += p[i];
    }
    for (double& v : ws.mean) v /= static_cast<double>(m);
    probability = ws.mean;
  }

  std::span<const double> uncertainty;
  if (measure == VoxelMeasure::file) {
    read_nifti_into(files.uncertainty, ws.uncertainty_file);
    check_grid(ws.uncertainty_file, truth);
    check_not_nan(ws.uncertainty_file, "uncertainty");
    uncertainty = ws.uncertainty_file.data;
  } else if (measure != VoxelMeasure::none) {
    member_uncertainty(ws.members, measure,
                       params.write_uncertainty.empty() ? brain : std::span<const std::uint8_t>(),
                       ws);
    uncertainty = ws.uncertainty;
  }

  SubjectScores scores;
  try {
    const detail::LendScoringScratch lend(ws.scoring);
    // The reader checked the masks and probabilities; an uncertainty map read from a file was
    // checked for NaN, and one computed from checked probabilities (logs of p + eps, eps > 0)
    // is finite.
    scores = detail::score_checked_subject(probability, ws.truth_mask, uncertainty, brain, grid,
                                           params.scoring, m == 1);
  } catch (const Error& e) {
    fail("subject {} ({}): {}", files.id, files.truth, e.what());
  }

  if (!params.write_masks.empty()) {
    const std::vector<std::uint8_t> mask = postprocess(probability, grid, params.scoring);
    write_derived(params.write_masks, files.id + "_mask.nii.gz", truth,
                  std::vector<double>(mask.begin(), mask.end()), NiftiType::uint8);
  }
  if (!params.write_uncertainty.empty() && !uncertainty.empty()) {
    write_derived(params.write_uncertainty, files.id + "_uncertainty.nii.gz", truth,
                  std::vector<double>(uncertainty.begin(), uncertainty.end()), NiftiType::float32);
  }
  return scores;
}

MeanSd percent_mean_sd(const std::vector<double>& values) {
  MeanSd out;
  if (values.empty()) return out;
  double sum = 0;
  for (double v : values) sum += v;
  const double mean = sum / static_cast<double>(values.size());
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  out.mean = 100 * mean;
  out.sd = 100 * std::sqrt(squares / static_cast<double>(values.size()));
  return out;
}

SegmentSetSummary summarize(const std::string& name, const std::vector<const SubjectResult*>& rows,
                            bool has_uncertainty) {
  SegmentSetSummary s;
  s.set = name;
  s.n_subjects = rows.size();
  std::vector<double> dsc, ndsc, f1, rauc, errors, uncertainty;
  for (const auto* r : rows) {
    dsc.push_back(r->scores.dsc);
    ndsc.push_back(r->scores.ndsc);
    f1.push_back(r->scores.lesion_f1);
    if (has_uncertainty) {
      rauc.push_back(r->scores.ndsc_retention_auc);
      // A subject without a defined mean uncertainty (empty brain mask) cannot be ranked.
      if (!std::isnan(r->scores.mean_uncertainty)) {
        errors.push_back(1 - r->scores.ndsc);
        uncertainty.push_back(r->scores.mean_uncertainty);
      }
    }
    s.lesion_tp += r->scores.lesion_tp;
    s.lesion_fp += r->scores.lesion_fp;
    s.lesion_fn += r->scores.lesion_fn;
  }
  s.dsc = percent_mean_sd(dsc);
  s.ndsc = percent_mean_sd(ndsc);
  s.lesion_f1 = percent_mean_sd(f1);
  if (has_uncertainty && !rows.empty()) {
    s.ndsc_retention_auc = percent_mean_sd(rauc);
  }
  if (has_uncertainty && errors.size() >= 2) {  // one subject: no ranking, PRR undefined
    const PrrResult p = prr(errors, uncertainty);
    s.patient_r_auc = 100 * p.r_auc;
    s.patient_prr = p.prr;
  }
  return s;
}

/// A path for a message, in full (quote_found cuts text at 40 characters); control characters
/// still go through quote_found so that the message stays one line.
std::string quote_path(const std::string& path) {
  const bool plain = std::none_of(path.begin(), path.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\';
  });
  return plain ? "\"" + path + "\"" : quote_found(path);
}

/// Refuses an output folder that holds input files: the written <id>_mask.nii.gz could replace
/// an input of that name (a prediction source named like the masks), and a folder mixing inputs
/// and outputs is read wrongly on the next run. Checked before any volume is read.
void check_outputs_apart(const SegmentParams& params, const std::vector<SubjectFiles>& subjects) {
  const std::pair<const char*, const std::string*> outputs[] = {
      {"--write-masks", &params.write_masks}, {"--write-uncertainty", &params.write_uncertainty}};
  for (const auto& output : outputs) {
    const char* option = output.first;
    const std::string* folder = output.second;  // not a structured binding: clang 14's lambdas
    std::error_code ec;                         // cannot capture those
    if (folder->empty() || !fs::is_directory(*folder, ec)) continue;  // new: holds no input
    auto holds = [&](const std::string& input) {
      return !input.empty() && fs::equivalent(fs::absolute(input).parent_path(), *folder, ec);
    };
    for (const auto& s : subjects) {
      std::vector<std::string> inputs = s.pred;
      inputs.insert(inputs.end(), {s.truth, s.uncertainty, s.brain_mask});
      for (const auto& input : inputs) {
        if (holds(input)) {
          fail(
              "{} {}: the folder holds input files (e.g. {}); write the outputs to a folder of "
              "their own",
              option, quote_path(*folder), quote_path(input));
        }
      }
    }
  }
}

}  // namespace

SegmentEvaluation evaluate_segmentation_files(const SegmentParams& params) {
  SegmentEvaluation ev;
  ev.params = params;
  const VoxelMeasure measure = resolve_measure(params);
  ev.voxel_uncertainty = to_string(measure);
  check_params(params.scoring);
  const auto subjects = match_subjects(params);
  check_outputs_apart(params, subjects);
  for (const auto* folder : {&params.write_masks, &params.write_uncertainty}) {
    if (folder->empty()) continue;
    std::error_code ec;
    fs::create_directories(*folder, ec);
    if (!fs::is_directory(*folder)) fail("{}: cannot create the folder: {}", *folder, ec.message());
  }

  ev.subjects.resize(subjects.size());
  Progress progress("segment", subjects.size());
  // One workspace per worker; workers take the next subject (results go to the subject's slot,
  // so they do not depend on the thread count).
  const int workers = resolve_threads(params.threads, subjects.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};  // the first error stops every worker, not just its own
  parallel_for(
      static_cast<std::size_t>(workers),
      [&](std::size_t) {
        const KeepInflateBuffer keep_inflated;  // reused from file to file, freed at the end
        Workspace ws;
        for (std::size_t i = next++; i < subjects.size() && !failed; i = next++) {
          ev.subjects[i].files = subjects[i];
          try {
            ev.subjects[i].scores = score_one(subjects[i], params, measure, ws);
          } catch (...) {
            failed = true;
            throw;
          }
          progress.advance();
        }
      },
      workers);
  progress.finish();

  const bool has_uncertainty = measure != VoxelMeasure::none;
  std::vector<const SubjectResult*> all;
  std::map<std::string, std::vector<const SubjectResult*>> by_partition;
  for (const auto& r : ev.subjects) {
    all.push_back(&r);
    if (!params.partition_csv.empty()) by_partition[r.files.partition].push_back(&r);
  }
  ev.sets.push_back(summarize("all", all, has_uncertainty));
  for (const auto& [name, rows] : by_partition) {
    ev.sets.push_back(summarize(name, rows, has_uncertainty));
  }
  if (has_uncertainty) {
    std::vector<double> errors, uncertainty;
    std::vector<std::string> unranked;
    for (const auto& r : ev.subjects) {
      if (std::isnan(r.scores.mean_uncertainty)) {
        unranked.push_back(r.files.id);
        continue;
      }
      errors.push_back(1 - r.scores.ndsc);
      uncertainty.push_back(r.scores.mean_uncertainty);
    }
    if (!unranked.empty()) {
      ev.notes.push_back(fmt::format(
          "{} subject(s) with an empty brain mask have no mean uncertainty and are left out of "
          "the patient-level retention: {}",
          unranked.size(), fmt::join(unranked, ", ")));
    }
    if (!errors.empty()) {
      ev.patient_curves = retention_curves(errors, uncertainty, RetentionParams{}, nullptr);
    }
  } else {
    ev.notes.push_back(
        "no voxel uncertainty: nDSC R-AUC and the patient-level retention curve "
        "are not computed");
  }
  return ev;
}

Table subject_table(const SegmentEvaluation& ev) {
  std::vector<std::string> ids, partitions;
  std::vector<double> cols[16];
  for (const auto& r : ev.subjects) {
    ids.push_back(r.files.id);
    partitions.push_back(r.files.partition);
    const auto& s = r.scores;
    const double values[16] = {static_cast<double>(s.n_voxels),
                               static_cast<double>(s.brain_voxels),
                               static_cast<double>(s.voxel_tp),
                               static_cast<double>(s.voxel_fp),
                               static_cast<double>(s.voxel_fn),
                               s.dsc,
                               s.ndsc,
                               static_cast<double>(s.true_lesions),
                               static_cast<double>(s.predicted_lesions),
                               static_cast<double>(s.lesion_tp),
                               static_cast<double>(s.lesion_fp),
                               static_cast<double>(s.lesion_fn),
                               s.lesion_f1,
                               static_cast<double>(s.removed_lesions),
                               s.ndsc_retention_auc,
                               s.mean_uncertainty};
    for (int c = 0; c < 16; ++c) cols[c].push_back(values[c]);
  }
  static const char* names[16] = {"n_voxels",
                                  "brain_voxels",
                                  "voxel_tp",
                                  "voxel_fp",
                                  "voxel_fn",
                                  "dsc",
                                  "ndsc",
                                  "true_lesions",
                                  "predicted_lesions",
                                  "lesion_tp",
                                  "lesion_fp",
                                  "lesion_fn",
                                  "lesion_f1",
                                  "removed_lesions",
                                  "ndsc_retention_auc",
                                  "mean_uncertainty"};
  Table table;
  table.add_column(Column::categorical("subject", ids));
  if (!ev.params.partition_csv.empty()) {
    table.add_column(Column::categorical("partition", partitions));
  }
  for (int c = 0; c < 16; ++c) table.add_column(Column::numeric(names[c], std::move(cols[c])));
  return table;
}

namespace {
constexpr std::pair<std::string_view, VoxelMeasure> kVoxelMeasures[] = {
    {"auto", VoxelMeasure::automatic},
    {"file", VoxelMeasure::file},
    {"none", VoxelMeasure::none},
    {"entropy_of_expected", VoxelMeasure::entropy_of_expected},
    {"expected_entropy", VoxelMeasure::expected_entropy},
    {"mutual_information", VoxelMeasure::mutual_information},
    {"epkl", VoxelMeasure::epkl},
    {"reverse_mutual_information", VoxelMeasure::reverse_mutual_information}};
}  // namespace

VoxelMeasure parse_voxel_measure(std::string_view name) {
  for (const auto& [spelling, measure] : kVoxelMeasures) {
    if (name == spelling && measure != VoxelMeasure::file) return measure;
  }
  fail(
      "voxel uncertainty measure: expected auto, none, entropy_of_expected, expected_entropy, "
      "mutual_information, epkl or reverse_mutual_information, found {}",
      quote_found(name));
}

std::string_view to_string(VoxelMeasure measure) {
  for (const auto& [spelling, m] : kVoxelMeasures) {
    if (m == measure) return spelling;
  }
  return "";
}

}  // namespace assay::shift

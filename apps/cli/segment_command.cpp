// `assay segment --pred DIR_OR_GLOB [--pred ...] --truth DIR_OR_GLOB [--uncertainty SRC]
//  [--brain-mask SRC] [--partition CSV] [--threshold 0.35] [--connectivity 6] [--iou 0.25]
//  [--min-size 10] [--r 0.001] [--voxel-measure auto] [--write-masks DIR]
//  [--write-uncertainty DIR] [--threads N] [--csv-out F] [--json|--json-out F] [--html OUT]
//  [--chart-axis fit|full]`
#include "assay/core/csv.hpp"
#include "assay/report/segmentation.hpp"
#include "assay/shift/segment_experiment.hpp"
#include "commands.hpp"
#include "options.hpp"

namespace assay::cli {
namespace {

struct SegmentOptions {
  shift::SegmentParams params;
  ReportOutputs out;
  report::AxisRange chart_axis = report::AxisRange::fit;
};

}  // namespace

Action add_segment_command(CLI::App& app, const GlobalOptions& /*global*/) {
  auto options = std::make_shared<SegmentOptions>();
  auto& p = options->params;
  auto* cmd = app.add_subcommand(
      "segment",
      "Segmentation evaluation on 3-D NIfTI volumes (Shifts 2.0, MS lesions): DSC, nDSC, lesion\n"
      "F1, nDSC retention per subject; mean ± SD (x100) overall and per partition; patient-level\n"
      "retention. A source is a folder, a glob, a {id} pattern or one file (docs/segment.md).");
  cmd->add_option("--pred", p.pred,
                  "prediction source (probability maps or 0/1 masks); repeat for ensemble "
                  "members (averaged)")
      ->required();
  cmd->add_option("--truth", p.truth, "ground-truth mask source (0/1); defines the subjects")
      ->required();
  cmd->add_option("--uncertainty", p.uncertainty,
                  "voxel uncertainty map source (default: computed from the members, see "
                  "--voxel-measure)");
  cmd->add_option("--brain-mask", p.brain_mask, "brain mask source (0/1; default: all voxels)");
  cmd->add_option("--partition", p.partition_csv,
                  "CSV with columns subject,partition (e.g. in-domain / shifted)");
  cmd->add_option("--threshold", p.scoring.threshold, "predicted mask: probability >= T")
      ->capture_default_str();
  cmd->add_option("--connectivity", p.scoring.connectivity, "lesion connectivity: 6, 18 or 26")
      ->capture_default_str();
  cmd->add_option("--iou", p.scoring.iou_threshold, "lesion TP: best IoU >= this")
      ->capture_default_str();
  cmd->add_option("--min-size", p.scoring.min_lesion_size,
                  "remove predicted components with fewer voxels (0 or 1 keeps all)")
      ->check(non_negative_integer())
      ->capture_default_str();
  cmd->add_option("--r", p.scoring.ndsc_r, "nDSC reference lesion load r")->capture_default_str();
  cmd->add_option("--voxel-measure", p.voxel_measure,
                  "voxel uncertainty from the members without --uncertainty: auto (RMI for an "
                  "ensemble, entropy for one model), none, entropy_of_expected, "
                  "expected_entropy, mutual_information, epkl, reverse_mutual_information")
      ->capture_default_str();
  cmd->add_option("--write-masks", p.write_masks,
                  "folder for the post-processed masks (<id>_mask.nii.gz)");
  cmd->add_option("--write-uncertainty", p.write_uncertainty,
                  "folder for the voxel uncertainty maps (<id>_uncertainty.nii.gz)");
  add_threads_option(cmd, p.threads, "worker threads, one subject each (0 = all cores)");
  cmd->add_option("--csv-out", options->out.extra, "write the per-subject table as CSV")
      ->check(output_file_name());
  options->out.extra_name = "--csv-out";
  options->out.add_options(cmd);
  add_chart_axis_option(cmd, options->chart_axis);

  return [cmd, options] {
    if (!cmd->parsed()) return;
    shift::match_subjects(options->params);  // notes the volumes: no output may replace one
    options->out.check();
    const auto evaluation = shift::evaluate_segmentation_files(options->params);
    options->out.write(
        report::segment_json(evaluation), [&] { return report::segment_text(evaluation); },
        [&] {
          return report::segment_html(evaluation, "assay segment: " + options->params.truth,
                                      options->chart_axis);
        },
        options->out.extra.empty() ? "" : format_csv(shift::subject_table(evaluation)));
  };
}

}  // namespace assay::cli

// Placeholder until segmentation lands.
#include "assay/shift/segmentation.hpp"

#include "assay/core/error.hpp"

namespace assay::shift {

Components label_components(std::span<const std::uint8_t>, Grid3, int) {
  fail("segmentation is not built yet");
}

SubjectScores score_subject(std::span<const double>, std::span<const double>,
                            std::span<const double>, std::span<const double>, Grid3,
                            const SegmentationParams&) {
  fail("segmentation is not built yet");
}

}  // namespace assay::shift

// Placeholder until the shift layer lands; replaced by its sources.
namespace assay::shift {}

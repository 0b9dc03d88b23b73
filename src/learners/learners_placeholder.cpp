// Placeholder until the learners layer lands.
namespace assay::learners {}

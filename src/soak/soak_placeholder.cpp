// Placeholder until the soak layer lands.
namespace assay::soak {}

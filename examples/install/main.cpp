// A C++ program using an installed assay (README "Installing"): ROC AUC of four scores.
#include <assay/metrics/ranking.hpp>
#include <cstdio>

int main() {
  const std::vector<std::uint8_t> y{0, 0, 1, 1};
  const std::vector<double> score{0.1, 0.4, 0.35, 0.8};
  std::printf("ROC AUC %.2f\n", assay::metrics::roc_auc(y, score));  // 0.75, as scikit-learn
}

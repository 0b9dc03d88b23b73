#include <cmath>

#include "assay/learners/learner.hpp"
#include "learners/model_state.hpp"

namespace assay::learners {
namespace {

// Predicts the same values for every row: the train rows' weighted class frequencies
// (classification) or weighted mean (regression).
class ConstantModel : public Model {
 public:
  ConstantModel(std::vector<double> values, const Dataset& data) : values_(std::move(values)) {
    if (data.task == TaskKind::classification) {
      std::size_t best = 0;
      for (std::size_t k = 1; k < values_.size(); ++k) {
        if (values_[k] > values_[best]) best = k;
      }
      description_ = Json{{"predicted_class", data.classes[best]}};
    } else {
      description_ = Json{{"predicted_value", values_[0]}};
    }
  }
  ConstantModel(std::vector<double> values, Json description)
      : values_(std::move(values)), description_(std::move(description)) {}

  std::size_t n_outputs() const override { return values_.size(); }

  void predict(const Dataset&, std::span<const std::uint32_t> rows,
               std::span<double> out) const override {
    ASSAY_ASSERT(out.size() == rows.size() * values_.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
      std::copy(values_.begin(), values_.end(), out.begin() + r * values_.size());
    }
  }

  Json description() const override { return description_; }

  Json save() const override {
    return Json{{"learner", "featureless"},
                {"values", state::pack(values_)},
                {"description", description_}};
  }

 private:
  std::vector<double> values_;
  Json description_;
};

class Featureless : public Learner {
 public:
  std::string name() const override { return "featureless"; }
  bool supports(TaskKind) const override { return true; }

  std::unique_ptr<Model> fit(const Dataset& data, std::span<const std::uint32_t> train_rows,
                             const FitContext&) const override {
    ASSAY_ASSERT(!train_rows.empty());
    const bool weighted = !data.weights.empty();
    double total = 0;
    std::vector<double> values;
    if (data.task == TaskKind::classification) {
      const std::size_t k = data.n_classes();
      values.assign(k, 0.0);
      if (weighted) {
        for (std::uint32_t i : train_rows) {
          const double w = data.weights[i];
          values[static_cast<std::size_t>(data.y_class[i])] += w;
          total += w;
        }
      } else {
        // Integer counts in four interleaved tables: no floating-point dependency chain, and
        // runs of one class do not serialise on one counter (this loop is the whole fit).
        std::vector<std::uint64_t> counts(4 * k, 0);
        const std::size_t n = train_rows.size();
        std::size_t r = 0;
        for (; r + 4 <= n; r += 4) {
          for (std::size_t lane = 0; lane < 4; ++lane) {
            ++counts[lane * k + static_cast<std::size_t>(data.y_class[train_rows[r + lane]])];
          }
        }
        for (; r < n; ++r) ++counts[static_cast<std::size_t>(data.y_class[train_rows[r]])];
        for (std::size_t c = 0; c < k; ++c) {
          values[c] = static_cast<double>(counts[c] + counts[k + c] + counts[2 * k + c] +
                                          counts[3 * k + c]);
        }
        total = static_cast<double>(n);
      }
    } else {
      values.assign(1, 0.0);
      for (std::uint32_t i : train_rows) {
        const double w = weighted ? data.weights[i] : 1.0;
        values[0] += w * data.y_value[i];
        total += w;
      }
    }
    if (!(total > 0)) {
      throw LearnerFailure(fmt::format("the {} train rows have total weight 0", train_rows.size()));
    }
    for (double& v : values) v /= total;
    return std::make_unique<ConstantModel>(std::move(values), data);
  }
};

}  // namespace

std::unique_ptr<Model> state::load_featureless(const Reader& read) {
  std::vector<double> values = read.array<double>("values");
  if (values.empty()) read.invalid("no predicted values");
  return std::make_unique<ConstantModel>(std::move(values), read.field("description"));
}

std::unique_ptr<Learner> make_featureless(const Json& params) {
  ParamReader("featureless", params).finish();
  return std::make_unique<Featureless>();
}

}  // namespace assay::learners

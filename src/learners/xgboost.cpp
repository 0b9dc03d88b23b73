#include "assay/learners/xgboost.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/thread_pool.hpp"
#include "learners/model_state.hpp"
#include "learners/xgboost_capi.hpp"

namespace assay::learners {
namespace {

constexpr int kMaxRounds = 100000;

// The rows' features as row-major float32 (xgboost's storage type).
std::vector<float> gather_features(const Dataset& data, std::span<const std::uint32_t> rows) {
  const std::size_t p = data.n_features;
  std::vector<float> out(rows.size() * p);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double* src = data.row(rows[r]);
    float* dst = out.data() + r * p;
    for (std::size_t j = 0; j < p; ++j) {
      // xgboost stores float32: a larger value would become inf, which it rejects as missing.
      if (std::abs(src[j]) > std::numeric_limits<float>::max()) {
        throw LearnerFailure(fmt::format(
            "feature {} of {} is {}, beyond float32's range (xgboost stores float32)",
            quote_found(data.feature_names.empty() ? std::to_string(j) : data.feature_names[j]),
            data.row_name(rows[r]), src[j]));
      }
      dst[j] = static_cast<float>(src[j]);
    }
  }
  return out;
}

// What a booster is trained on: the classes present in its train rows, and their objective.
struct Target {
  TaskKind task = TaskKind::classification;
  /// Class codes present in the train rows, ascending; xgboost label k means present[k].
  std::vector<std::int32_t> present;

  bool binary() const { return present.size() == 2; }
  /// Values per row that xgboost predicts: 1 (binary, regression) or K' (softprob).
  std::size_t xgb_outputs() const {
    return task == TaskKind::regression || binary() ? 1 : present.size();
  }
};

Target target_of(const Dataset& data, std::span<const std::uint32_t> rows) {
  Target t;
  t.task = data.task;
  if (data.task == TaskKind::classification) {
    std::vector<char> seen(data.n_classes(), 0);
    for (std::uint32_t i : rows) seen[static_cast<std::size_t>(data.y_class[i])] = 1;
    for (std::size_t k = 0; k < seen.size(); ++k) {
      if (seen[k]) t.present.push_back(static_cast<std::int32_t>(k));
    }
  }
  return t;
}

// A DMatrix of `rows` with labels (in the target's coding) and weights.
xgb::Matrix train_matrix(const Dataset& data, std::span<const std::uint32_t> rows,
                         const Target& target, int threads) {
  const std::vector<float> x = gather_features(data, rows);
  xgb::Matrix m(x, rows.size(), data.n_features, threads);
  std::vector<float> labels(rows.size());
  if (data.task == TaskKind::classification) {
    std::vector<int> code_to_label(data.n_classes(), -1);
    for (std::size_t k = 0; k < target.present.size(); ++k) {
      code_to_label[static_cast<std::size_t>(target.present[k])] = static_cast<int>(k);
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
      labels[r] =
          static_cast<float>(code_to_label[static_cast<std::size_t>(data.y_class[rows[r]])]);
    }
  } else {
    for (std::size_t r = 0; r < rows.size(); ++r) {
      labels[r] = static_cast<float>(data.y_value[rows[r]]);
    }
  }
  m.set_info("label", labels);
  if (!data.weights.empty()) {
    std::vector<float> w(rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) w[r] = static_cast<float>(data.weights[rows[r]]);
    m.set_info("weight", w);
  }
  return m;
}

void configure(xgb::Booster& booster, const Target& target, const XgboostParams& params, double eta,
               int threads, std::uint64_t seed) {
  if (target.task == TaskKind::regression) {
    booster.set_param("objective", "reg:squarederror");
  } else if (target.binary()) {
    booster.set_param("objective", "binary:logistic");
  } else {
    booster.set_param("objective", "multi:softprob");
    booster.set_param("num_class", fmt::format("{}", target.present.size()));
  }
  // fmt's "{}" is the shortest round-trip decimal, as Python's str(float): the same string, so
  // the same float32 eta inside xgboost.
  booster.set_param("eta", fmt::format("{}", eta));
  booster.set_param("max_depth", fmt::format("{}", params.max_depth));
  booster.set_param("tree_method", params.tree_method);
  booster.set_param("nthread", fmt::format("{}", threads));
  booster.set_param("seed", fmt::format("{}", seed % (std::uint64_t{1} << 31)));
  booster.set_param("validate_parameters", "1");
}

// Class-code scores of one predicted row -> the predicted class code (ties -> lowest code).
std::int32_t predicted_class(const float* p, const Target& target) {
  if (target.binary()) return p[0] > 0.5f ? target.present[1] : target.present[0];
  std::size_t best = 0;
  for (std::size_t k = 1; k < target.present.size(); ++k) {
    if (p[k] > p[best]) best = k;
  }
  return target.present[best];
}

// The loss of one held-out row: 0/1 misclassification or squared error.
double row_loss(const Dataset& data, std::uint32_t row, const float* prediction,
                const Target& target) {
  if (data.task == TaskKind::regression) {
    const double d = static_cast<double>(prediction[0]) - data.y_value[row];
    return d * d;
  }
  return predicted_class(prediction, target) == data.y_class[row] ? 0.0 : 1.0;
}

class XgboostModel : public Model {
 public:
  XgboostModel(std::unique_ptr<xgb::Booster> booster, Target target, std::size_t n_outputs,
               int threads, Json description)
      : booster_(std::move(booster)),
        target_(std::move(target)),
        n_outputs_(n_outputs),
        threads_(threads),
        description_(std::move(description)) {}

  std::size_t n_outputs() const override { return n_outputs_; }

  void predict(const Dataset& data, std::span<const std::uint32_t> rows,
               std::span<double> out) const override {
    ASSAY_ASSERT(out.size() == rows.size() * n_outputs_);
    if (rows.empty()) return;
    const std::vector<float> x = gather_features(data, rows);
    const xgb::Matrix m(x, rows.size(), data.n_features, threads_);
    std::vector<float> p;
    {
      // XGBoosterPredictFromDMatrix is not safe to call concurrently on one booster.
      const std::lock_guard lock(mutex_);
      p = booster_->predict(m, 0);
    }
    const std::size_t q = target_.xgb_outputs();
    ASSAY_ASSERT(p.size() == rows.size() * q);
    if (target_.task == TaskKind::regression) {
      for (std::size_t r = 0; r < rows.size(); ++r) out[r] = p[r];
      return;
    }
    std::fill(out.begin(), out.end(), 0.0);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      double* o = out.data() + r * n_outputs_;
      if (target_.binary()) {
        const double p1 = p[r];
        o[target_.present[0]] = 1.0 - p1;
        o[target_.present[1]] = p1;
      } else {
        for (std::size_t k = 0; k < q; ++k) o[target_.present[k]] = p[r * q + k];
      }
    }
  }

  Json description() const override { return description_; }

  Json save() const override {
    std::vector<std::uint8_t> booster;
    {
      const std::lock_guard lock(mutex_);
      booster = booster_->save();
    }
    return Json{{"learner", "xgboost"},
                {"booster", Json::binary(std::move(booster))},
                {"regression", target_.task == TaskKind::regression},
                {"present", state::pack(target_.present)},
                {"n_outputs", n_outputs_},
                {"threads", threads_},
                {"description", description_}};
  }

 private:
  std::unique_ptr<xgb::Booster> booster_;
  Target target_;
  std::size_t n_outputs_;
  int threads_;
  Json description_;
  mutable std::mutex mutex_;
};

class Xgboost : public Learner {
 public:
  explicit Xgboost(XgboostParams params) : params_(std::move(params)) {}

  std::string name() const override { return "xgboost"; }
  bool supports(TaskKind) const override { return true; }

  std::unique_ptr<Model> fit(const Dataset& data, std::span<const std::uint32_t> train_rows,
                             const FitContext& context) const override {
    ASSAY_ASSERT(!train_rows.empty());
    const int threads = std::max(1, context.threads);
    const Target target = target_of(data, train_rows);
    if (data.task == TaskKind::classification && target.present.size() < 2) {
      throw LearnerFailure(
          fmt::format("xgboost needs at least two classes in the train rows, found only class {}",
                      quote_found(data.classes[static_cast<std::size_t>(target.present.at(0))])));
    }
    if (!data.weights.empty()) {
      double total = 0;
      for (std::uint32_t i : train_rows) total += data.weights[i];
      if (!(total > 0)) {
        throw LearnerFailure(
            fmt::format("the {} train rows have total weight 0", train_rows.size()));
      }
    }

    double eta = params_.etas.front();
    int rounds = params_.rounds.front();
    Json cv_error = nullptr;
    if (params_.etas.size() * params_.rounds.size() > 1) {
      const auto scores = cv_scores(data, train_rows, context.seed, threads);
      const std::size_t n_rounds = params_.rounds.size();
      // Candidates ordered by cost: fewer rounds first, then smaller eta; the first best wins.
      std::vector<std::size_t> round_order(n_rounds), eta_order(params_.etas.size());
      for (std::size_t i = 0; i < n_rounds; ++i) round_order[i] = i;
      for (std::size_t i = 0; i < eta_order.size(); ++i) eta_order[i] = i;
      std::stable_sort(round_order.begin(), round_order.end(), [&](std::size_t a, std::size_t b) {
        return params_.rounds[a] < params_.rounds[b];
      });
      std::stable_sort(eta_order.begin(), eta_order.end(), [&](std::size_t a, std::size_t b) {
        return params_.etas[a] < params_.etas[b];
      });
      double best = std::numeric_limits<double>::infinity();
      for (std::size_t r : round_order) {
        for (std::size_t e : eta_order) {
          const double s = scores[e * n_rounds + r];
          if (s < best) {
            best = s;
            eta = params_.etas[e];
            rounds = params_.rounds[r];
          }
        }
      }
      cv_error = best;
    }

    const xgb::Matrix train = train_matrix(data, train_rows, target, threads);
    auto booster = std::make_unique<xgb::Booster>(train);
    configure(*booster, target, params_, eta, threads, context.seed);
    for (int it = 0; it < rounds; ++it) booster->update(it, train);

    Json description{{"eta", eta}, {"nrounds", rounds}, {"cv_error", cv_error}};
    if (data.task == TaskKind::classification && target.present.size() < data.n_classes()) {
      Json absent = Json::array();
      for (std::size_t k = 0, j = 0; k < data.n_classes(); ++k) {
        if (j < target.present.size() && target.present[j] == static_cast<std::int32_t>(k)) {
          ++j;
        } else {
          absent.push_back(data.classes[k]);
        }
      }
      description["absent_classes"] = absent;
    }
    const std::size_t n_outputs =
        data.task == TaskKind::classification ? data.n_classes() : std::size_t{1};
    return std::make_unique<XgboostModel>(std::move(booster), target, n_outputs, threads,
                                          std::move(description));
  }

 private:
  // Mean over the internal folds of each fold's loss, for every (eta e, rounds r) at index
  // e * rounds.size() + r.
  std::vector<double> cv_scores(const Dataset& data, std::span<const std::uint32_t> train_rows,
                                std::uint64_t seed, int threads) const {
    const int k_folds = params_.internal_folds;
    const std::vector<int> fold = internal_fold_ids(train_rows.size(), k_folds, seed);
    const std::size_t n_etas = params_.etas.size(), n_rounds = params_.rounds.size();
    const int max_rounds = *std::max_element(params_.rounds.begin(), params_.rounds.end());
    const int fold_threads = std::max(1, threads / k_folds);
    std::vector<std::vector<double>> fold_scores(static_cast<std::size_t>(k_folds));

    parallel_for(
        static_cast<std::size_t>(k_folds),
        [&](std::size_t f) {
          std::vector<std::uint32_t> inner, held_out;
          for (std::size_t i = 0; i < train_rows.size(); ++i) {
            (static_cast<std::size_t>(fold[i]) == f ? held_out : inner).push_back(train_rows[i]);
          }
          double held_weight = 0;
          for (std::uint32_t i : held_out)
            held_weight += data.weights.empty() ? 1 : data.weights[i];
          auto& scores = fold_scores[f];
          scores.assign(n_etas * n_rounds, 0.0);
          if (!(held_weight > 0)) return;  // scores 0, as documented

          const Target target = target_of(data, inner);
          auto add_losses = [&](std::size_t slot, const float* predictions, std::size_t stride) {
            double loss = 0;
            for (std::size_t r = 0; r < held_out.size(); ++r) {
              const double w = data.weights.empty() ? 1.0 : data.weights[held_out[r]];
              loss += w * row_loss(data, held_out[r], predictions + r * stride, target);
            }
            scores[slot] = loss / held_weight;
          };
          if (data.task == TaskKind::classification && target.present.size() < 2) {
            // One class to learn from: every held-out row is predicted as that class.
            double loss = 0;
            for (std::uint32_t i : held_out) {
              const double w = data.weights.empty() ? 1.0 : data.weights[i];
              loss += w * (data.y_class[i] == target.present[0] ? 0.0 : 1.0);
            }
            std::fill(scores.begin(), scores.end(), loss / held_weight);
            return;
          }
          const xgb::Matrix train = train_matrix(data, inner, target, fold_threads);
          const std::vector<float> x_test = gather_features(data, held_out);
          const xgb::Matrix test(x_test, held_out.size(), data.n_features, fold_threads);
          const std::size_t q = target.xgb_outputs();
          for (std::size_t e = 0; e < n_etas; ++e) {
            xgb::Booster booster(train);
            configure(booster, target, params_, params_.etas[e], fold_threads, seed);
            for (int it = 0; it < max_rounds; ++it) booster.update(it, train);
            for (std::size_t r = 0; r < n_rounds; ++r) {
              const std::vector<float> p = booster.predict(test, params_.rounds[r]);
              ASSAY_ASSERT(p.size() == held_out.size() * q);
              add_losses(e * n_rounds + r, p.data(), q);
            }
          }
        },
        std::min(threads, k_folds));

    std::vector<double> mean(n_etas * n_rounds, 0.0);
    for (const auto& scores : fold_scores) {
      for (std::size_t c = 0; c < mean.size(); ++c) mean[c] += scores[c];
    }
    for (double& m : mean) m /= k_folds;
    return mean;
  }

  XgboostParams params_;
};

}  // namespace

std::unique_ptr<Model> state::load_xgboost(const Reader& read) {
  constexpr std::size_t kMost = std::numeric_limits<std::int32_t>::max();
  Target target;
  target.task = read.flag("regression") ? TaskKind::regression : TaskKind::classification;
  target.present = read.array<std::int32_t>("present");
  const std::size_t n_outputs = read.count("n_outputs", kMost);
  const auto threads = static_cast<int>(read.count("threads", 1 << 20));
  const bool classification = target.task == TaskKind::classification;
  if (classification ? target.present.size() < 2 : n_outputs != 1) {
    read.invalid("its classes do not match its task");
  }
  for (std::int32_t c : target.present) {
    if (c < 0 || static_cast<std::size_t>(c) >= n_outputs) read.invalid("class code out of range");
  }
  const Json& booster = read.field("booster");
  if (!booster.is_binary()) read.invalid("field \"booster\": expected xgboost's model bytes");
  return std::make_unique<XgboostModel>(std::make_unique<xgb::Booster>(booster.get_binary()),
                                        std::move(target), n_outputs, threads,
                                        read.field("description"));
}

XgboostParams xgboost_params_from_json(const Json& params) {
  XgboostParams p;
  ParamReader read("xgboost", params);
  auto given = [&](const char* key) {
    return params.is_object() && params.contains(key) && !params[key].is_null();
  };
  const bool has_eta = given("eta"), has_nrounds = given("nrounds");
  const double eta = read.number("eta", 0.0, 0.0, 1e3);
  p.etas = read.numbers("etas", p.etas, 0.0, 1e3);
  const auto nrounds = read.integer("nrounds", 1, 1, kMaxRounds);
  const std::vector<double> rounds =
      read.numbers("rounds", std::vector<double>(p.rounds.begin(), p.rounds.end()), 1, kMaxRounds);
  for (double r : rounds) {
    if (r != std::floor(r)) {
      fail("learner \"xgboost\" parameter \"rounds\": expected integers, found {}", r);
    }
  }
  p.rounds.assign(rounds.begin(), rounds.end());
  p.internal_folds = static_cast<int>(read.integer("internal_folds", p.internal_folds, 2, 1000));
  p.max_depth = static_cast<int>(read.integer("max_depth", p.max_depth, 1, 64));
  p.tree_method = read.choice("tree_method", p.tree_method, {"hist", "exact", "approx"});
  read.finish();
  if (has_eta && given("etas")) {
    fail("learner \"xgboost\": give \"eta\" (one value) or \"etas\" (candidates), not both");
  }
  if (has_nrounds && given("rounds")) {
    fail("learner \"xgboost\": give \"nrounds\" (one value) or \"rounds\" (candidates), not both");
  }
  if (has_eta) p.etas = {eta};
  if (has_nrounds) p.rounds = {static_cast<int>(nrounds)};
  return p;
}

std::unique_ptr<Learner> make_xgboost(const XgboostParams& params) {
  ASSAY_ASSERT(!params.etas.empty() && !params.rounds.empty() && params.internal_folds >= 2);
  for (int r : params.rounds) ASSAY_ASSERT(r >= 1);
  return std::make_unique<Xgboost>(params);
}

std::unique_ptr<Learner> make_xgboost(const Json& params) {
  return make_xgboost(xgboost_params_from_json(params));
}

}  // namespace assay::learners

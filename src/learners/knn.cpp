#include "assay/learners/knn.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "learners/knn_search.hpp"
#include "learners/model_state.hpp"

namespace assay::learners {
namespace {

using detail::Standardizer;

// The train rows a knn model searches, standardised, with what their votes need.
struct Reference {
  Standardizer scaler;
  std::size_t n_rows = 0;
  /// n_rows x n_features, standardised with `scaler`.
  std::vector<double> x;
  /// Class codes (classification) or targets (regression), one per reference row.
  std::vector<std::int32_t> y_class;
  std::vector<double> y_value;
  /// Row weights (empty = all 1).
  std::vector<double> weights;
};

// Rows `rows` of `data` as a reference set: the scaler fitted on them, their standardised
// features and their targets.
Reference make_reference(const Dataset& data, std::span<const std::uint32_t> rows) {
  Reference ref;
  ref.n_rows = rows.size();
  if (!data.weights.empty()) {
    for (std::uint32_t i : rows) ref.weights.push_back(data.weights[i]);
  }
  ref.scaler = detail::fit_standardizer(data, rows, ref.weights);
  ref.x.resize(rows.size() * data.n_features);
  detail::standardize(data, rows, ref.scaler, ref.x);
  for (std::uint32_t i : rows) {
    if (data.task == TaskKind::classification) {
      ref.y_class.push_back(data.y_class[i]);
    } else {
      ref.y_value.push_back(data.y_value[i]);
    }
  }
  return ref;
}

// The `k` nearest reference rows of each of data's rows `rows` (rows.size() x k, nearest first).
std::vector<std::uint32_t> search(const Reference& ref, const Dataset& data,
                                  std::span<const std::uint32_t> rows, std::size_t k, int threads) {
  std::vector<double> queries(rows.size() * data.n_features);
  detail::standardize(data, rows, ref.scaler, queries);
  std::vector<std::uint32_t> neighbours(rows.size() * k);
  detail::nearest_neighbours(ref.x, ref.n_rows, queries, rows.size(), data.n_features, k, threads,
                             neighbours);
  return neighbours;
}

// The mean target of the first k neighbours as scikit-learn's KNeighborsRegressor rounds it
// (NumPy's pairwise sum over the neighbours, nearest first, divided by k); weighted: Σwy / Σw.
double neighbour_mean(const Reference& ref, const std::uint32_t* neighbours, std::size_t k,
                      std::vector<double>& scratch) {
  if (ref.weights.empty()) {
    scratch.resize(k);
    for (std::size_t i = 0; i < k; ++i) scratch[i] = ref.y_value[neighbours[i]];
    return detail::numpy_sum(scratch) / static_cast<double>(k);
  }
  double sum = 0, total = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const double w = ref.weights[neighbours[i]];
    sum += w * ref.y_value[neighbours[i]];
    total += w;
  }
  return sum / total;
}

class KnnModel : public Model {
 public:
  KnnModel(Reference ref, std::size_t k, std::size_t n_outputs, int threads, Json description)
      : ref_(std::move(ref)),
        k_(k),
        n_outputs_(n_outputs),
        threads_(threads),
        description_(std::move(description)) {}

  std::size_t n_outputs() const override { return n_outputs_; }

  void predict(const Dataset& data, std::span<const std::uint32_t> rows,
               std::span<double> out) const override {
    ASSAY_ASSERT(out.size() == rows.size() * n_outputs_);
    const auto neighbours = search(ref_, data, rows, k_, threads_);
    const bool weighted = !ref_.weights.empty();
    std::vector<double> scratch;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const std::uint32_t* nb = neighbours.data() + r * k_;
      if (n_outputs_ == 1 && ref_.y_class.empty()) {
        out[r] = neighbour_mean(ref_, nb, k_, scratch);
        continue;
      }
      double* proba = out.data() + r * n_outputs_;
      std::fill(proba, proba + n_outputs_, 0.0);
      double total = 0;
      for (std::size_t i = 0; i < k_; ++i) {
        const double w = weighted ? ref_.weights[nb[i]] : 1.0;
        proba[static_cast<std::size_t>(ref_.y_class[nb[i]])] += w;
        total += w;
      }
      // Unweighted: count / k exactly as scikit-learn divides.
      for (std::size_t c = 0; c < n_outputs_; ++c) proba[c] /= total;
    }
  }

  Json description() const override { return description_; }

  Json save() const override {
    return Json{{"learner", "knn"},
                {"k", k_},
                {"n_outputs", n_outputs_},
                {"threads", threads_},
                {"n_rows", ref_.n_rows},
                {"mean", state::pack(ref_.scaler.mean)},
                {"scale", state::pack(ref_.scaler.scale)},
                {"x", state::pack(ref_.x)},
                {"y_class", state::pack(ref_.y_class)},
                {"y_value", state::pack(ref_.y_value)},
                {"weights", state::pack(ref_.weights)},
                {"description", description_}};
  }

 private:
  Reference ref_;
  std::size_t k_;
  std::size_t n_outputs_;
  int threads_;
  Json description_;
};

class Knn : public Learner {
 public:
  explicit Knn(KnnParams params) : params_(params) {}

  std::string name() const override { return "knn"; }
  bool supports(TaskKind) const override { return true; }

  std::unique_ptr<Model> fit(const Dataset& data, std::span<const std::uint32_t> train_rows,
                             const FitContext& context) const override {
    ASSAY_ASSERT(!train_rows.empty());
    const std::vector<std::uint32_t> used = positive_weight(data, train_rows);
    if (used.empty()) {
      throw LearnerFailure(fmt::format("the {} train rows have total weight 0", train_rows.size()));
    }
    std::size_t k = static_cast<std::size_t>(params_.k_min);
    Json cv_error = nullptr;
    if (params_.k_min < params_.k_max) {
      const auto [best, error] = tune(data, train_rows, context);
      k = best;
      cv_error = error;
    } else if (k > used.size()) {
      throw LearnerFailure(fmt::format("knn with k = {} needs at least {} train rows{}, found {}",
                                       k, k, data.weights.empty() ? "" : " of positive weight",
                                       used.size()));
    }
    Reference ref = make_reference(data, used);
    const std::size_t n_outputs =
        data.task == TaskKind::classification ? data.n_classes() : std::size_t{1};
    return std::make_unique<KnnModel>(std::move(ref), k, n_outputs, context.threads,
                                      Json{{"k", k}, {"cv_error", cv_error}});
  }

 private:
  // The rows of `rows` with positive weight (all of them without weights), in order.
  static std::vector<std::uint32_t> positive_weight(const Dataset& data,
                                                    std::span<const std::uint32_t> rows) {
    if (data.weights.empty()) return {rows.begin(), rows.end()};
    std::vector<std::uint32_t> out;
    for (std::uint32_t i : rows) {
      if (data.weights[i] > 0) out.push_back(i);
    }
    return out;
  }

  // Internal CV over k: (chosen k, its mean CV error). One neighbour search per fold finds the
  // largest candidate's neighbours; every smaller k reads a prefix of them.
  std::pair<std::size_t, double> tune(const Dataset& data, std::span<const std::uint32_t> rows,
                                      const FitContext& context) const {
    const int n_folds = params_.internal_folds;
    const std::vector<int> fold = internal_fold_ids(rows.size(), n_folds, context.seed);
    const bool weighted = !data.weights.empty();
    const bool classification = data.task == TaskKind::classification;
    auto weight_of = [&](std::uint32_t i) { return weighted ? data.weights[i] : 1.0; };

    std::vector<std::vector<std::uint32_t>> inner(n_folds), held(n_folds);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (!(weight_of(rows[r]) > 0)) continue;
      for (int f = 0; f < n_folds; ++f) (f == fold[r] ? held : inner)[f].push_back(rows[r]);
    }
    std::size_t smallest_inner = rows.size();
    for (const auto& in : inner) smallest_inner = std::min(smallest_inner, in.size());
    const auto k_min = static_cast<std::size_t>(params_.k_min);
    const std::size_t k_hi = std::min(static_cast<std::size_t>(params_.k_max), smallest_inner);
    if (k_hi < k_min) {
      throw LearnerFailure(fmt::format(
          "knn: no candidate k in {}..{} fits the smallest inner-train fold of internal {}-fold "
          "cross-validation ({} rows{})",
          params_.k_min, params_.k_max, n_folds, smallest_inner,
          weighted ? " of positive weight" : ""));
    }
    const std::size_t n_k = k_hi - k_min + 1;

    // Per fold and candidate: accuracy (classification) or mean squared error (regression).
    std::vector<std::vector<double>> score(n_k);
    std::vector<double> scratch;
    for (int f = 0; f < n_folds; ++f) {
      const auto& queries = held[f];
      double held_weight = 0;
      for (std::uint32_t i : queries) held_weight += weight_of(i);
      if (!(held_weight > 0)) continue;  // no weighted rows to score in this fold
      const Reference ref = make_reference(data, inner[f]);
      const auto neighbours = search(ref, data, queries, k_hi, context.threads);
      if (classification) {
        std::vector<double> correct(n_k, 0.0), votes(data.n_classes());
        for (std::size_t q = 0; q < queries.size(); ++q) {
          std::fill(votes.begin(), votes.end(), 0.0);
          std::size_t best = 0;
          const auto truth = static_cast<std::size_t>(data.y_class[queries[q]]);
          for (std::size_t i = 0; i < k_hi; ++i) {
            const std::uint32_t nb = neighbours[q * k_hi + i];
            const auto c = static_cast<std::size_t>(ref.y_class[nb]);
            votes[c] += weighted ? ref.weights[nb] : 1.0;
            // The most votes, ties → the lowest class code (only class c changed).
            if (votes[c] > votes[best] || (votes[c] == votes[best] && c < best)) best = c;
            if (i + 1 >= k_min && best == truth) correct[i + 1 - k_min] += weight_of(queries[q]);
          }
        }
        for (std::size_t j = 0; j < n_k; ++j) score[j].push_back(correct[j] / held_weight);
      } else {
        std::vector<double> loss(queries.size());
        for (std::size_t j = 0; j < n_k; ++j) {
          const std::size_t k = k_min + j;
          for (std::size_t q = 0; q < queries.size(); ++q) {
            const double e =
                data.y_value[queries[q]] - neighbour_mean(ref, &neighbours[q * k_hi], k, scratch);
            loss[q] = weight_of(queries[q]) * (e * e);
          }
          score[j].push_back((weighted ? sum_of(loss) : detail::numpy_sum(loss)) / held_weight);
        }
      }
    }
    // GridSearchCV: the mean of the per-fold scores (NumPy's sum / folds), first best wins.
    std::size_t best = 0;
    double best_mean = 0;
    for (std::size_t j = 0; j < n_k; ++j) {
      const double mean = detail::numpy_sum(score[j]) / static_cast<double>(score[j].size());
      const bool better = classification ? mean > best_mean : mean < best_mean;
      if (j == 0 || better) {
        best = j;
        best_mean = mean;
      }
    }
    return {k_min + best, classification ? 1.0 - best_mean : best_mean};
  }

  static double sum_of(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s;
  }

  KnnParams params_;
};

}  // namespace

std::unique_ptr<Model> state::load_knn(const Reader& read) {
  constexpr std::size_t kMost = std::numeric_limits<std::uint32_t>::max();
  Reference ref;
  ref.n_rows = read.count("n_rows", kMost);
  ref.scaler.mean = read.array<double>("mean");
  const std::size_t p = ref.scaler.mean.size();
  ref.scaler.scale = read.array<double>("scale", p);
  ref.x = read.array<double>("x", ref.n_rows * p);
  ref.y_class = read.array<std::int32_t>("y_class");
  ref.y_value = read.array<double>("y_value");
  ref.weights = read.array<double>("weights");
  const std::size_t k = read.count("k", ref.n_rows);
  const std::size_t n_outputs = read.count("n_outputs", kMost);
  const auto threads = static_cast<int>(read.count("threads", 1 << 20));
  const bool classification = !ref.y_class.empty();
  if (k == 0 || n_outputs == 0) read.invalid("k and n_outputs must be positive");
  if ((classification ? ref.y_class.size() : ref.y_value.size()) != ref.n_rows ||
      (!ref.weights.empty() && ref.weights.size() != ref.n_rows)) {
    read.invalid("targets or weights do not match the reference rows");
  }
  for (std::int32_t c : ref.y_class) {
    if (c < 0 || static_cast<std::size_t>(c) >= n_outputs) read.invalid("class code out of range");
  }
  return std::make_unique<KnnModel>(std::move(ref), k, n_outputs, threads,
                                    read.field("description"));
}

KnnParams knn_params_from_json(const Json& params) {
  ParamReader read("knn", params);
  constexpr std::int64_t kMost = 1'000'000;
  KnnParams p;
  const std::int64_t k = read.integer("k", 0, 1, kMost);
  const std::int64_t k_min = read.integer("k_min", 0, 1, kMost);
  const std::int64_t k_max = read.integer("k_max", 0, 1, kMost);
  p.internal_folds = static_cast<int>(read.integer("internal_folds", p.internal_folds, 2, 1000));
  read.finish();
  if (k > 0 && (k_min > 0 || k_max > 0)) {
    fail("learner \"knn\": give either \"k\" or \"k_min\"/\"k_max\", found both");
  }
  if (k > 0) {
    p.k_min = p.k_max = static_cast<int>(k);
  } else {
    if (k_min > 0) p.k_min = static_cast<int>(k_min);
    if (k_max > 0) p.k_max = static_cast<int>(k_max);
  }
  if (p.k_min > p.k_max) {
    fail("learner \"knn\": expected k_min <= k_max, found k_min = {} and k_max = {}", p.k_min,
         p.k_max);
  }
  return p;
}

std::unique_ptr<Learner> make_knn(const KnnParams& params) {
  if (params.k_min < 1 || params.k_min > params.k_max) {
    fail("knn: expected 1 <= k_min <= k_max, found k_min = {} and k_max = {}", params.k_min,
         params.k_max);
  }
  if (params.internal_folds < 2) {
    fail("knn: expected at least 2 internal folds, found {}", params.internal_folds);
  }
  return std::make_unique<Knn>(params);
}

std::unique_ptr<Learner> make_knn(const Json& params) {
  return make_knn(knn_params_from_json(params));
}

}  // namespace assay::learners

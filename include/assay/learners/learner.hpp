// Learners: fit on some rows of a Dataset, predict on other rows.
//
// Example:
//   auto learner = make_learner("featureless");
//   FitContext ctx{.seed = 7, .threads = 1};
//   auto model = learner->fit(data, train_rows, ctx);      // throws LearnerFailure if it cannot
//   std::vector<double> out(test_rows.size() * model->n_outputs());
//   model->predict(data, test_rows, out);
//
// Requires (fit): train_rows non-empty, every index < data.n_rows, no duplicates needed.
// Ensures (fit): the model depends only on (data rows in train_rows, their order, ctx.seed), so
//   a split gives the same model at any thread count.
// Requires (predict): out.size() == rows.size() * n_outputs().
// Ensures (predict): classification: row r of `out` holds the probabilities of the n_classes
//   classes (summing to 1); regression: out[r] is the predicted value.
//
// Save and load: save_model(model) turns a fitted model into bytes and load_model(bytes) turns
// them back into a model whose predictions are bit-identical (Python's pickling of the
// assay.learners estimators rests on this).
//
// Example:
//   std::vector<std::uint8_t> bytes = save_model(*model);
//   std::unique_ptr<Model> again = load_model(bytes);   // again->predict == model->predict
//
// A learner that cannot fit one split (for example a train set with one class, where it needs
// two) throws LearnerFailure; experiment runners record NA with that reason and go on. Any other
// assay::Error is the caller's mistake and stops the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/json.hpp"
#include "assay/learners/dataset.hpp"

namespace assay::learners {

/// A learner could not fit this train set; the reason is the message.
class LearnerFailure : public Error {
 public:
  using Error::Error;
};

struct FitContext {
  /// Seed for every random choice of the learner (internal CV folds, subsampling).
  std::uint64_t seed = 0;
  /// Threads the learner may use inside fit/predict (1 when splits already run in parallel).
  int threads = 1;
};

class Model {
 public:
  virtual ~Model() = default;
  /// Values per predicted row: n_classes for classification, 1 for regression.
  virtual std::size_t n_outputs() const = 0;
  virtual void predict(const Dataset& data, std::span<const std::uint32_t> rows,
                       std::span<double> out) const = 0;
  /// Chosen hyper-parameters and fitted sizes, recorded in the results (may be empty).
  virtual Json description() const { return Json::object(); }
  /// Everything predict needs, as {"learner": NAME, ...}; numbers exact (see save_model).
  virtual Json save() const = 0;
};

/// Version of the format save_model writes; load_model reads this version only.
inline constexpr int kModelFormatVersion = 1;

/// A fitted model as bytes: CBOR of {"format": "assay-learner-model", "version":
/// kModelFormatVersion, "assay": assay::version(), "model": model.save()}.
std::vector<std::uint8_t> save_model(const Model& model);

/// The model save_model wrote. Throws assay::Error for bytes that are not a saved model, and one
/// that names both versions (and the assay that wrote them) for another format version.
std::unique_ptr<Model> load_model(std::span<const std::uint8_t> bytes);

class Learner {
 public:
  virtual ~Learner() = default;
  /// The name used on the command line and in results ("featureless").
  virtual std::string name() const = 0;
  /// Whether the learner handles this kind of task.
  virtual bool supports(TaskKind task) const = 0;
  virtual std::unique_ptr<Model> fit(const Dataset& data, std::span<const std::uint32_t> train_rows,
                                     const FitContext& context) const = 0;
};

/// The learner called `name` with its parameters given as a JSON object ({"alpha": 0.5}; empty =
/// every default). Throws assay::Error listing the known names for an unknown learner, and naming
/// the learner and key for an unknown parameter or a bad value. New learners register in
/// src/learners/learner.cpp (one line each, naming how to make the learner and how to reload its
/// saved model).
std::unique_ptr<Learner> make_learner(std::string_view name, const Json& params = Json::object());

/// Reads one learner's parameters from a JSON object and rejects what it does not know:
///
///   ParamReader read("glmnet", params);
///   p.alpha = read.number("alpha", p.alpha, 0.0, 1.0);
///   read.finish();   // throws for a key nobody read ("glmnet has no parameter \"alpah\"; ...")
///
/// Every error names the learner and the key.
class ParamReader {
 public:
  ParamReader(std::string learner, const Json& params);
  /// A finite number in [lo, hi].
  double number(const std::string& key, double fallback, double lo = -1e308, double hi = 1e308);
  /// An integer in [lo, hi].
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t lo,
                       std::int64_t hi);
  bool boolean(const std::string& key, bool fallback);
  /// One of `allowed`.
  std::string choice(const std::string& key, std::string fallback,
                     const std::vector<std::string>& allowed);
  /// A non-empty array of finite numbers in [lo, hi].
  std::vector<double> numbers(const std::string& key, std::vector<double> fallback,
                              double lo = -1e308, double hi = 1e308);
  /// Throws for any key that no call above read, listing the keys this learner knows.
  void finish() const;

 private:
  const Json* find(const std::string& key);
  std::string learner_;
  Json params_;
  std::vector<std::string> known_;
};

/// Names accepted by make_learner, in the order they are documented.
std::vector<std::string> learner_names();

/// Internal cross-validation folds for tuning (glmnet's λ, knn's k, xgboost's eta/nrounds):
/// fold ids 0..folds-1 for `n` train rows, a seeded random permutation of 0,1,..,folds-1,0,1,..
/// (cv.glmnet's `sample(rep(seq(nfolds), length = N))`), so fold sizes differ by at most one.
/// Requires folds >= 2; throws LearnerFailure when n < folds (a fold would be empty).
std::vector<int> internal_fold_ids(std::size_t n, int folds, std::uint64_t seed);

/// Featureless baseline. Classification: predicts the (weighted) class frequencies of the train
/// rows, so its label is the majority class (ties: the smallest class code, deterministic where
/// mlr3's featureless breaks ties at random). Regression: the (weighted) mean. Description:
/// {"predicted_class": name} or {"predicted_value": mean}. Train rows of total weight 0 are a
/// LearnerFailure.
std::unique_ptr<Learner> make_featureless(const Json& params = Json::object());

}  // namespace assay::learners

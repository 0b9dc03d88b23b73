// The glmnet learner: fits cv.glmnet (glmnet_cv) and keeps the coefficients at the chosen λ; its
// fitted model, saved state and parameters. The algorithm is described in glmnet_detail.hpp.
#include "assay/learners/glmnet.hpp"

#include <limits>

#include "learners/glmnet_detail.hpp"
#include "learners/model_state.hpp"

namespace assay::learners {
namespace {

using namespace glmnet_detail;

class GlmnetModel : public Model {
 public:
  GlmnetModel(std::size_t n_classes, std::vector<int> classes, std::size_t k,
              std::vector<double> intercepts, std::vector<double> coefficients, Json description)
      : n_classes_(n_classes),
        classes_(std::move(classes)),
        k_(k),
        intercepts_(std::move(intercepts)),
        coefficients_(std::move(coefficients)),
        description_(std::move(description)) {}

  std::size_t n_outputs() const override { return n_classes_; }

  void predict(const Dataset& data, std::span<const std::uint32_t> rows,
               std::span<double> out) const override {
    ASSAY_ASSERT(out.size() == rows.size() * n_classes_);
    const std::size_t p = data.n_features;
    ASSAY_ASSERT(coefficients_.size() == k_ * p);
    std::vector<double> eta(k_);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const double* x = data.row(rows[r]);
      for (std::size_t c = 0; c < k_; ++c)
        eta[c] = intercepts_[c] + dot(coefficients_.data() + c * p, x, p);
      double* prob = out.data() + r * n_classes_;
      std::fill(prob, prob + n_classes_, 0.0);
      probabilities(classes_, k_, eta.data(), prob);
    }
  }

  Json description() const override { return description_; }

  Json save() const override {
    return Json{{"learner", "glmnet"},
                {"n_classes", n_classes_},
                {"classes", state::pack(classes_)},
                {"k", k_},
                {"intercepts", state::pack(intercepts_)},
                {"coefficients", state::pack(coefficients_)},
                {"description", description_}};
  }

 private:
  std::size_t n_classes_;
  std::vector<int> classes_;
  std::size_t k_;
  std::vector<double> intercepts_;
  std::vector<double> coefficients_;  // k x p
  Json description_;
};

class Glmnet : public Learner {
 public:
  explicit Glmnet(GlmnetParams params) : params_(std::move(params)) {}
  std::string name() const override { return "glmnet"; }
  bool supports(TaskKind task) const override { return task == TaskKind::classification; }

  std::unique_ptr<Model> fit(const Dataset& data, std::span<const std::uint32_t> train_rows,
                             const FitContext& context) const override {
    ASSAY_ASSERT(data.task == TaskKind::classification);
    GlmnetCv cv = glmnet_cv(data, train_rows, params_, context.seed, context.threads);
    const std::size_t l = params_.rule == "lambda.min" ? cv.index_min : cv.index_1se;
    const GlmnetPath& path = cv.path;
    const std::size_t k = path.n_outputs, p = path.n_features;
    std::vector<double> intercepts(
        path.intercepts.begin() + static_cast<std::ptrdiff_t>(l * k),
        path.intercepts.begin() + static_cast<std::ptrdiff_t>(l * k + k));
    std::vector<double> coefficients(
        path.coefficients.begin() + static_cast<std::ptrdiff_t>(l * k * p),
        path.coefficients.begin() + static_cast<std::ptrdiff_t>((l + 1) * k * p));
    Json description{{"lambda", path.lambdas[l]},
                     {"rule", params_.rule},
                     {"lambda_index", l + 1},
                     {"nonzero", path.nonzero[l]},
                     {"alpha", params_.alpha},
                     {"n_lambda", path.lambdas.size()},
                     {"lambda_min", path.lambdas[cv.index_min]},
                     {"lambda_1se", path.lambdas[cv.index_1se]}};
    if (path.classes.size() < data.n_classes()) {
      std::vector<std::string> fitted;
      for (int c : path.classes) fitted.push_back(data.classes[static_cast<std::size_t>(c)]);
      description["classes_fitted"] = fitted;
    }
    return std::make_unique<GlmnetModel>(data.n_classes(), path.classes, k, std::move(intercepts),
                                         std::move(coefficients), std::move(description));
  }

 private:
  GlmnetParams params_;
};

}  // namespace

std::unique_ptr<Model> state::load_glmnet(const Reader& read) {
  constexpr std::size_t kMost = std::numeric_limits<std::int32_t>::max();
  const std::size_t n_classes = read.count("n_classes", kMost);
  const std::size_t k = read.count("k", n_classes);
  std::vector<int> classes = read.array<int>("classes");
  for (int c : classes) {
    if (c < 0 || static_cast<std::size_t>(c) >= n_classes) read.invalid("class code out of range");
  }
  std::vector<double> intercepts = read.array<double>("intercepts", k);
  std::vector<double> coefficients = read.array<double>("coefficients");
  if (k == 0 || coefficients.size() % k != 0) read.invalid("coefficients are not k x p");
  // probabilities(): k == 1 is the binomial model over two present classes, else one per class.
  if (classes.size() != (k == 1 ? 2 : k)) read.invalid("classes do not match k");
  return std::make_unique<GlmnetModel>(n_classes, std::move(classes), k, std::move(intercepts),
                                       std::move(coefficients), read.field("description"));
}

GlmnetParams glmnet_params_from_json(const Json& params) {
  ParamReader read("glmnet", params);
  GlmnetParams p;
  p.alpha = read.number("alpha", p.alpha, 0.0, 1.0);
  p.n_lambda = static_cast<std::size_t>(
      read.integer("n_lambda", static_cast<std::int64_t>(p.n_lambda), 2, 100000));
  p.lambda_min_ratio = read.number("lambda_min_ratio", p.lambda_min_ratio, 0.0, 0.999999);
  p.internal_folds = static_cast<int>(read.integer("internal_folds", p.internal_folds, 2, 1000000));
  p.rule = read.choice("rule", p.rule, {"lambda.1se", "lambda.min"});
  p.tolerance = read.number("tolerance", p.tolerance, 1e-300, 1.0);
  p.max_passes = static_cast<std::size_t>(
      read.integer("max_passes", static_cast<std::int64_t>(p.max_passes), 1, 1000000000000));
  read.finish();
  return p;
}

std::unique_ptr<Learner> make_glmnet(const GlmnetParams& params) {
  return std::make_unique<Glmnet>(params);
}

std::unique_ptr<Learner> make_glmnet(const Json& params) {
  return make_glmnet(glmnet_params_from_json(params));
}

}  // namespace assay::learners

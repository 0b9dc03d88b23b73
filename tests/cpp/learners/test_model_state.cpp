// learners/model_state: save_model / load_model — every learner's fitted model comes back
// predicting bit-identically; bytes of another format version, or no saved model at all, are clear
// errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "assay/core/rng.hpp"
#include "assay/core/version.hpp"
#include "assay/learners/dataset.hpp"
#include "assay/learners/learner.hpp"
#include "test_util.hpp"

namespace assay::learners {
namespace {

// 120 rows, 3 features, three classes (or a regression target), a few repeated values so trees
// and neighbours meet ties; optional weights with some zeros.
Dataset make_data(TaskKind task, bool weighted) {
  Dataset d;
  d.name = "toy";
  d.task = task;
  d.n_rows = 120;
  d.n_features = 3;
  d.feature_names = {"a", "b", "c"};
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  for (std::size_t i = 0; i < d.n_rows; ++i) {
    const double a = next(), b = std::round(next() * 4) / 4, c = next() - 0.5;
    d.x.insert(d.x.end(), {a, b, c});
    const double signal = a + b + 0.3 * c + 0.2 * next();
    if (task == TaskKind::classification) {
      d.y_class.push_back(signal < 0.8 ? 0 : signal < 1.4 ? 1 : 2);
    } else {
      d.y_value.push_back(signal);
    }
    if (weighted) d.weights.push_back(i % 7 == 0 ? 0.0 : 0.5 + next());
  }
  if (task == TaskKind::classification) d.classes = {"low", "mid", "high"};
  return d;
}

std::vector<double> predict_all(const Model& model, const Dataset& data) {
  std::vector<std::uint32_t> rows(data.n_rows);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::uint32_t>(i);
  std::vector<double> out(rows.size() * model.n_outputs());
  model.predict(data, rows, out);
  return out;
}

// Bit-identical: compares the bytes, so -0.0 vs 0.0 or a different NaN would show.
void expect_same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0);
}

struct Case {
  const char* learner;
  const char* params;
  TaskKind task;
  bool weighted;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.learner << " " << c.params;
}

class SaveLoad : public ::testing::TestWithParam<Case> {};

TEST_P(SaveLoad, PredictsBitIdenticallyAfterTheRoundTrip) {
  const Case c = GetParam();
  const Dataset data = make_data(c.task, c.weighted);
  std::vector<std::uint32_t> train;
  for (std::uint32_t i = 0; i < 90; ++i) train.push_back(i);
  const auto model =
      make_learner(c.learner, Json::parse(c.params))->fit(data, train, {.seed = 3, .threads = 1});
  const std::vector<std::uint8_t> bytes = save_model(*model);
  const auto again = load_model(bytes);
  EXPECT_EQ(again->n_outputs(), model->n_outputs());
  EXPECT_EQ(again->description(), model->description());
  expect_same_bits(predict_all(*again, data), predict_all(*model, data));
  EXPECT_EQ(save_model(*again), bytes);  // saving is deterministic and lossless
}

INSTANTIATE_TEST_SUITE_P(
    Learners, SaveLoad,
    ::testing::Values(
        Case{"featureless", "{}", TaskKind::classification, false},
        Case{"featureless", "{}", TaskKind::regression, true},
        Case{"glmnet", R"({"n_lambda": 20, "internal_folds": 3})", TaskKind::classification, false},
        Case{"glmnet", R"({"n_lambda": 20, "internal_folds": 3})", TaskKind::classification, true},
        Case{"cart", "{}", TaskKind::classification, false},
        Case{"cart", R"({"min_split": 5})", TaskKind::classification, true},
        Case{"knn", R"({"k_max": 7, "internal_folds": 3})", TaskKind::classification, true},
        Case{"knn", R"({"k_max": 7, "internal_folds": 3})", TaskKind::regression, false},
        Case{"xgboost", R"({"etas": [0.3], "rounds": [5, 10], "internal_folds": 3})",
             TaskKind::classification, true},
        Case{"xgboost", R"({"eta": 0.3, "nrounds": 8})", TaskKind::regression, false}),
    [](const ::testing::TestParamInfo<Case>& info) {
      return std::string(info.param.learner) +
             (info.param.task == TaskKind::regression ? "_regression" : "_classification") +
             (info.param.weighted ? "_weighted" : "");
    });

TEST(SaveLoad, GlmnetBinaryWithAnAbsentClass) {
  // Three classes in the data, two in the train rows: glmnet's binomial model over them.
  Dataset data = make_data(TaskKind::classification, false);
  std::vector<std::uint32_t> train;
  for (std::uint32_t i = 0; i < data.n_rows; ++i)
    if (data.y_class[i] != 2) train.push_back(i);
  const auto model =
      make_learner("glmnet", Json{{"internal_folds", 3}})->fit(data, train, {.seed = 1});
  const auto again = load_model(save_model(*model));
  expect_same_bits(predict_all(*again, data), predict_all(*model, data));
}

std::vector<std::uint8_t> saved_featureless() {
  const Dataset data = make_data(TaskKind::classification, false);
  return save_model(
      *make_learner("featureless")->fit(data, std::vector<std::uint32_t>{0, 1, 2}, {}));
}

TEST(SaveLoad, AnotherFormatVersionNamesBothVersions) {
  Json saved = Json::from_cbor(saved_featureless());
  saved["version"] = kModelFormatVersion + 1;
  saved["assay"] = "9.9.9";
  const std::string expected = fmt::format(
      "this model was saved in assay learner-model format version {} (by assay 9.9.9); this "
      "assay {} reads format version {} only: refit the model with this assay, or load it with "
      "assay 9.9.9",
      kModelFormatVersion + 1, assay::version(), kModelFormatVersion);
  EXPECT_THROW_MSG(load_model(Json::to_cbor(saved)), Error, expected);
}

TEST(SaveLoad, BytesThatAreNotASavedModel) {
  const std::vector<std::uint8_t> garbage{0xff, 0x00, 0x13};
  try {
    load_model(garbage);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected a saved assay learner model (3 bytes of CBOR)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW_MSG(load_model(Json::to_cbor(Json{{"format", "other"}})), Error,
                   "expected a saved assay learner model (format \"assay-learner-model\"), found "
                   "\"other\"");
  Json saved = Json::from_cbor(saved_featureless());
  saved["model"]["learner"] = "forest";
  EXPECT_THROW_MSG(load_model(Json::to_cbor(saved)), Error,
                   "saved assay learner model: unknown learner \"forest\"; known learners: "
                   "featureless, glmnet, cart, knn, xgboost");
}

TEST(SaveLoad, DamagedStateIsAnErrorNamingTheField) {
  Json saved = Json::from_cbor(saved_featureless());
  saved["model"].erase("values");
  EXPECT_THROW_MSG(load_model(Json::to_cbor(saved)), Error,
                   "saved featureless model: field \"values\" is missing (the saved state was "
                   "not written by assay, or is damaged)");
  const Dataset data = make_data(TaskKind::classification, false);
  std::vector<std::uint32_t> train(60);
  for (std::uint32_t i = 0; i < 60; ++i) train[i] = i;
  Json tree = Json::from_cbor(save_model(*make_learner("cart")->fit(data, train, {})));
  tree["model"]["threshold"] = Json::binary({1, 2, 3});
  EXPECT_THROW_MSG(load_model(Json::to_cbor(tree)), Error,
                   fmt::format("saved cart model: field \"threshold\": expected {} values of 8 "
                               "bytes, found 3 bytes (the saved state was not written by assay, "
                               "or is damaged)",
                               tree["model"]["var"].get_binary().size() / 4));
}

}  // namespace
}  // namespace assay::learners

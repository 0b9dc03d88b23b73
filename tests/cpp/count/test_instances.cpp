// count/instances: the VNN-COMP instances CSV (every bad row refused at its line and column),
// result file names and texts, and a small benchmark run with a sat, an unsat, a timeout and an
// unknown instance whose result files are read back.
#include "assay/count/instances.hpp"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/count/model.hpp"

namespace assay::count {
namespace {

namespace fs = std::filesystem;

TEST(Instances, ParsesRowsCrlfSpacesAndBlankLines) {
  const InstanceList list = parse_instances(
      "\xEF\xBB\xBFnet.onnx, sub/prop_1.vnnlib ,120\r\n\r\n  \n/abs/n2.onnx,p2.vnnlib,7.5 ",
      "b/i.csv");
  ASSERT_EQ(list.rows.size(), 2u);
  EXPECT_EQ(list.rows[0].line, 1u);
  EXPECT_EQ(list.rows[0].network, "net.onnx");
  EXPECT_EQ(list.rows[0].property, "sub/prop_1.vnnlib");
  EXPECT_EQ(list.rows[0].network_path, "b/net.onnx");
  EXPECT_EQ(list.rows[0].property_path, "b/sub/prop_1.vnnlib");
  EXPECT_EQ(list.rows[0].timeout, 120.0);
  EXPECT_EQ(list.rows[1].line, 4u);
  EXPECT_EQ(list.rows[1].network_path, "/abs/n2.onnx");
  EXPECT_EQ(list.rows[1].timeout, 7.5);
  // A CSV in the working folder: paths as written.
  EXPECT_EQ(parse_instances("./n.onnx,p.vnnlib,1\n", "i.csv").rows[0].network_path, "n.onnx");
}

TEST(Instances, BadRowsAreLocated) {
  EXPECT_THROW_MSG(parse_instances("n.onnx,p.vnnlib,0\n", "i.csv"), Error,
                   "i.csv:1:17: expected a time limit in seconds > 0, found \"0\"");
  EXPECT_THROW_MSG(parse_instances("n.onnx,p.vnnlib,1\nn.onnx,p.vnnlib,-3\n", "i.csv"), Error,
                   "i.csv:2:17: expected a time limit in seconds > 0, found \"-3\"");
  EXPECT_THROW_MSG(parse_instances("n.onnx,p.vnnlib, abc\n", "i.csv"), Error,
                   "i.csv:1:18: expected a time limit in seconds > 0, found \"abc\"");
  EXPECT_THROW_MSG(parse_instances("n.onnx,p.vnnlib,nan\n", "i.csv"), Error,
                   "i.csv:1:17: expected a time limit in seconds > 0, found \"nan\"");
  EXPECT_THROW_MSG(parse_instances("n.onnx,p.vnnlib,1e10\n", "i.csv"), Error,
                   "i.csv:1:17: expected a time limit in seconds > 0 and at most 1e9, found "
                   "\"1e10\"");
  EXPECT_THROW_MSG(parse_instances("n.onnx,p.vnnlib,\n", "i.csv"), Error,
                   "i.csv:1:17: expected a time limit in seconds > 0, found \"\"");
  EXPECT_THROW_MSG(parse_instances("n.onnx,p.vnnlib,60,extra\n", "i.csv"), Error,
                   "i.csv:1:20: expected 3 columns (network, property, time limit in seconds), "
                   "found 4: \"n.onnx,p.vnnlib,60,extra\"");
  EXPECT_THROW_MSG(parse_instances("n.onnx,p.vnnlib\n", "i.csv"), Error,
                   "i.csv:1:16: expected 3 columns (network, property, time limit in seconds), "
                   "found 2: \"n.onnx,p.vnnlib\"");
  EXPECT_THROW_MSG(parse_instances(" ,p.vnnlib,5\n", "i.csv"), Error,
                   "i.csv:1:2: expected a network file, found \"\"");
  EXPECT_THROW_MSG(parse_instances("n.onnx,,5\n", "i.csv"), Error,
                   "i.csv:1:8: expected a property file, found \"\"");
  EXPECT_THROW_MSG(parse_instances("\r\n\n", "i.csv"), Error,
                   "i.csv: expected rows \"network,property,time limit\", found none");
  EXPECT_THROW_MSG(load_instances("/nonexistent/i.csv"), Error,
                   "cannot open instances file \"/nonexistent/i.csv\"");
}

TEST(Instances, ResultFileNamesAreUnique) {
  const InstanceList list = parse_instances(
      "nets/a.onnx,p 1.vnnlib,1\nnets/a.onnx,q.vnnlib,1\nother/a.onnx,q.vnnlib,1\n", "i.csv");
  const auto names = result_file_names(list);
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0], "a_p_1.txt");
  EXPECT_EQ(names[1], "a_q_line2.txt");
  EXPECT_EQ(names[2], "a_q_line3.txt");
}

TEST(Instances, ResultFileText) {
  EXPECT_EQ(vnncomp_result_text("unsat"), "unsat\n");
  EXPECT_EQ(vnncomp_result_text("timeout"), "timeout\n");
  EXPECT_EQ(vnncomp_result_text("sat", {0.5, -0.25}, {1.75, 1e-5}),
            "sat\n((X_0 0.5)\n (X_1 -0.25)\n (Y_0 1.75)\n (Y_1 0.00001))\n");
  // Full precision: every number reads back as the same double, without an exponent.
  for (const double v : {0.1, 1.0 / 3.0, -2.5e-12, 123456789.125, 1e300, 5e-324}) {
    const std::string s = exact_decimal(v);
    EXPECT_EQ(s.find('e'), std::string::npos) << s;
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), v) << s;
  }
  EXPECT_EQ(exact_decimal(0.1), "0.1");
  EXPECT_EQ(exact_decimal(-3), "-3");
}

// A network of one identity layer: y = W x + b.
Model affine(std::vector<double> w, std::vector<double> b, std::size_t n_in) {
  Model m;
  m.kind = ModelKind::network;
  m.n_features = n_in;
  m.n_outputs = b.size();
  Layer layer;
  layer.n_in = n_in;
  layer.n_out = b.size();
  layer.weights = std::move(w);
  layer.bias = std::move(b);
  layer.activation = Activation::identity;
  m.layers.push_back(std::move(layer));
  for (std::size_t k = 0; k < m.n_outputs; ++k) m.classes.push_back(std::to_string(k));
  return m;
}

struct Bench {
  fs::path dir;
  Bench() {
    dir = fs::temp_directory_path() / ("assay_instances_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "props");
    // y0 = x0, y1 = x1 + 0.1234567 (two inputs), and y0 = x0, y1 = 0.5 (one input).
    save_model(affine({1, 0, 0, 1}, {0, 0.1234567}, 2), (dir / "two.json").string());
    save_model(affine({1, 0}, {0, 0.5}, 1), (dir / "one.json").string());
    write("props/sat.vnnlib", box1(0, 1) + "(assert (>= Y_0 Y_1))\n");
    write("props/unsat.vnnlib", box1(0, 0.25) + "(assert (>= Y_0 Y_1))\n");
    // Unsafe on a line only: never proven safe, never hit by a dyadic point.
    write("props/line.vnnlib",
          "(declare-const X_0 Real) (declare-const X_1 Real)\n"
          "(declare-const Y_0 Real) (declare-const Y_1 Real)\n"
          "(assert (>= X_0 0)) (assert (<= X_0 1)) (assert (>= X_1 0)) (assert (<= X_1 1))\n"
          "(assert (= Y_0 Y_1))\n");
  }
  ~Bench() { fs::remove_all(dir); }
  static std::string box1(double lo, double hi) {
    return "(declare-const X_0 Real) (declare-const Y_0 Real) (declare-const Y_1 Real)\n" +
           fmt::format("(assert (>= X_0 {})) (assert (<= X_0 {}))\n", lo, hi);
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
  }
};

TEST(Instances, RunWritesResultFiles) {
  const Bench b;
  b.write("i.csv",
          "one.json,props/sat.vnnlib,30\r\none.json,props/unsat.vnnlib,30\r\n"
          "two.json,props/line.vnnlib,0.3\r\n");
  InstancesParams p;
  p.results = (b.dir / "out").string();
  p.split.samples = 100;
  p.split.threads = 1;
  const InstancesResult r = run_instances(load_instances((b.dir / "i.csv").string()), p);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].result, "sat");
  EXPECT_EQ(r.rows[1].result, "unsat");
  EXPECT_EQ(r.rows[2].result, "timeout");
  EXPECT_EQ(r.rows[2].time_limit, 0.3);
  EXPECT_FALSE(r.interrupted);
  // sat: x0 >= 0.5 with the outputs of the forward pass.
  const std::string sat = read_file(b.dir / "out" / "one_sat.txt");
  ASSERT_EQ(r.rows[0].counterexample.size(), 1u);
  const double x = r.rows[0].counterexample[0];
  EXPECT_GE(x, 0.5);
  EXPECT_LE(x, 1.0);
  EXPECT_EQ(sat, fmt::format("sat\n((X_0 {0})\n (Y_0 {0})\n (Y_1 0.5))\n", exact_decimal(x)));
  EXPECT_EQ(read_file(b.dir / "out" / "one_unsat.txt"), "unsat\n");
  EXPECT_EQ(read_file(b.dir / "out" / "two_line.txt"), "timeout\n");
  EXPECT_EQ(r.rows[1].unsafe_lower, 0.0);
  EXPECT_EQ(r.rows[1].unsafe_upper, 0.0);

  // A cap on the time limits, and a box budget: "unknown" with the reason.
  p.time_limit = 5;
  p.split.max_boxes = 20;
  const InstancesResult capped = run_instances(load_instances((b.dir / "i.csv").string()), p);
  EXPECT_EQ(capped.rows[0].time_limit, 5);
  EXPECT_EQ(capped.rows[2].time_limit, 0.3);
  EXPECT_EQ(capped.rows[2].result, "unknown");
  EXPECT_EQ(capped.rows[2].stopped_by, "max boxes");
  EXPECT_NE(capped.rows[2].message.find("stopped after 20 boxes"), std::string::npos)
      << capped.rows[2].message;
  EXPECT_EQ(read_file(b.dir / "out" / "two_line.txt"), "unknown\n");
}

TEST(Instances, FilesAndCountsAreCheckedBeforeAnyRun) {
  const Bench b;
  const auto run = [&](const std::string& csv) {
    b.write("i.csv", csv);
    InstancesParams p;
    p.results = (b.dir / "out").string();
    return run_instances(load_instances((b.dir / "i.csv").string()), p);
  };
  const std::string csv = (b.dir / "i.csv").string();
  const std::string d = b.dir.string();
  EXPECT_THROW_MSG(run("one.json,props/unsat.vnnlib,30\nnone.json,props/unsat.vnnlib,30\n"), Error,
                   fmt::format("{}:2: cannot open model file \"{}/none.json\"", csv, d));
  try {
    run("one.json,props/none.vnnlib,30\n");
    ADD_FAILURE() << "a missing property was not refused";
  } catch (const Error& e) {  // the path is cut at 40 characters in the message
    EXPECT_EQ(std::string(e.what()).rfind(csv + ":1: cannot open VNN-LIB file \"", 0), 0u)
        << e.what();
  }
  EXPECT_THROW_MSG(
      run("one.json,props/unsat.vnnlib,30\ntwo.json,props/unsat.vnnlib,30\n"), Error,
      fmt::format("{}:2: the network {}/two.json has 2 inputs but {}/props/unsat.vnnlib "
                  "declares 1 (X_0..X_0)",
                  csv, d, d));
  EXPECT_FALSE(fs::exists(b.dir / "out"));  // nothing ran, nothing was written
}

TEST(Instances, ResultFilesNeverReplaceInputs) {
  const Bench b;
  // The result file of this row would be <dir>/one_unsat.txt: make that an input.
  b.write("one_unsat.txt", "keep me\n");
  b.write("i.csv", "one.json,props/unsat.vnnlib,30\n");
  const InputFilesScope scope;
  note_input((b.dir / "one_unsat.txt").string(), "a file");
  InstancesParams p;
  p.results = b.dir.string();
  EXPECT_THROW(run_instances(load_instances((b.dir / "i.csv").string()), p), Error);
  EXPECT_EQ(read_file(b.dir / "one_unsat.txt"), "keep me\n");
}

TEST(Instances, ErrorsOfOneInstanceDoNotStopTheRun) {
  const Bench b;
  // A tree where count_unsafe needs a network: refused for this row; the next row still runs.
  b.write("tree.json", R"({"format": "assay-model", "version": 1, "kind": "tree",
    "task": "classification", "n_features": 1, "n_outputs": 2, "classes": [0, 1],
    "split_rule": "<=", "input_float32": true, "trees": [{"feature": [0, -2, -2], "threshold": [0.5, -2, -2],
    "left": [1, -1, -1], "right": [2, -1, -1], "value": [[2, 2], [2, 0], [0, 2]]}]})");
  b.write("i.csv", "tree.json,props/unsat.vnnlib,30\none.json,props/unsat.vnnlib,30\n");
  InstancesParams p;
  p.results = (b.dir / "out").string();
  const InstancesResult r = run_instances(load_instances((b.dir / "i.csv").string()), p);
  EXPECT_EQ(r.rows[0].result, "error");
  EXPECT_NE(r.rows[0].message.find("needs a network"), std::string::npos) << r.rows[0].message;
  EXPECT_EQ(read_file(b.dir / "out" / "tree_unsat.txt"), "unknown\n");
  EXPECT_EQ(r.rows[1].result, "unsat");
}

}  // namespace
}  // namespace assay::count

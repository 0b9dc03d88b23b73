// report/count_instances: the summary of a VNN-COMP benchmark run as JSON, text and CSV.
#include "assay/report/count_instances.hpp"

#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "assay/count/count_result.hpp"

namespace assay::report {
namespace {

count::InstancesResult two_rows() {
  count::InstancesResult r;
  r.file = "b/i.csv";
  r.results = "out";
  r.time_limit = 10;
  r.seconds = 3.5;
  count::InstanceOutcome sat;
  sat.row = {1, "net.onnx", "p1.vnnlib", "b/net.onnx", "b/p1.vnnlib", 120};
  sat.result = "sat";
  sat.time_limit = 10;
  sat.seconds = 0.25;
  sat.unsafe_lower = 0.5;
  sat.unsafe_upper = 0.75;
  sat.counterexample = {0.5};
  sat.counterexample_outputs = {1, 2};
  sat.result_file = "out/net_p1.txt";
  sat.sample = count::proportion(250, 1000, 0.999);
  sat.route = "relu branch and bound";
  count::InstanceOutcome unknown = sat;
  unknown.sample = count::Proportion{};
  unknown.row.line = 2;
  unknown.row.property = "p2.vnnlib";
  unknown.result = "unknown";
  unknown.message = "stopped after 20 boxes";
  unknown.counterexample.clear();
  r.rows = {sat, unknown};
  return r;
}

TEST(CountInstances, Json) {
  const Json j = instances_json(two_rows());
  EXPECT_EQ(j["method"], "instances");
  EXPECT_EQ(j["counts"]["sat"], 1);
  EXPECT_EQ(j["counts"]["unknown"], 1);
  EXPECT_EQ(j["counts"]["decided"], 1);
  EXPECT_EQ(j["rows"][0]["counterexample"]["y"][1], 2.0);
  EXPECT_TRUE(j["rows"][1]["counterexample"].is_null());
  EXPECT_EQ(j["rows"][1]["unsafe"]["upper"], 0.75);
  EXPECT_EQ(j["rows"][0]["result_file"], "out/net_p1.txt");
  EXPECT_EQ(j["rows"][0]["route"], "relu branch and bound");
  EXPECT_EQ(j["rows"][0]["sample"]["k"], 250);
  EXPECT_EQ(j["rows"][0]["sample"]["n"], 1000);
  EXPECT_EQ(j["rows"][0]["sample"]["confidence"], 0.999);
  EXPECT_TRUE(j["rows"][1]["sample"].is_null());
}

TEST(CountInstances, Text) {
  const std::string t = instances_text(two_rows());
  EXPECT_NE(t.find("[50.0000%, 75.0000%]"), std::string::npos) << t;
  EXPECT_NE(t.find("sampled (statistical)"), std::string::npos) << t;
  const auto cp = count::proportion(250, 1000, 0.999);
  EXPECT_NE(
      t.find(fmt::format("25.00% [{:.2f}%, {:.2f}%]", 100 * cp.exact_low, 100 * cp.exact_high)),
      std::string::npos)
      << t;
  EXPECT_NE(t.find("2 instances of b/i.csv: 1 decided (1 sat, 0 unsat), 0 timeout, 1 unknown, 0 "
                   "error; 3.50 s (time limits capped at 10 s)\nresult files in out\n"
                   "b/i.csv:2: unknown: stopped after 20 boxes\n"),
            std::string::npos)
      << t;
}

TEST(CountInstances, Csv) {
  const std::string c = instances_csv(two_rows());
  EXPECT_EQ(c.substr(0, c.find('\n')),
            "line,network,property,result,seconds,time_limit,unsafe_lower,unsafe_upper,"
            "sampled_unsafe,sampled_low,sampled_high,boxes,stopped_by,result_file,message");
  EXPECT_NE(c.find("\n1,net.onnx,p1.vnnlib,sat,0.25,10,0.5,0.75,0.25,"), std::string::npos) << c;
  EXPECT_NE(c.find(",0,\"\",out/net_p1.txt,\"\"\n"), std::string::npos) << c;
}

}  // namespace
}  // namespace assay::report

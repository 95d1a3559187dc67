// The metrics report with the server's figures (issue 18, item 3; include/seam/metrics.h):
// the client's four timers stay in the report; with ReportOptions::server the figures of the
// `seam serve` behind SEAM_CLIENT=remote follow, and in process one line says there is none.
// Runs in process and through tests/remote/run_remote.sh (remote/server_report_test).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "seam/metrics.h"
#include "seam/tensor.h"

namespace seam {
namespace {

bool Remote() {
  const char* which = std::getenv("SEAM_CLIENT");
  return which != nullptr && std::string(which) == "remote";
}

// A step that crosses the seam in all four ways: upload, compile, run, read back.
float RunOneStep() {
  Tensor a = Tensor::from_vector(std::vector<float>{1, 2, 3}, {3});
  return (a * a).sum().item<float>();
}

TEST(ServerReportTest, TheServersFiguresComeOnlyWhenAsked) {
  EXPECT_EQ(RunOneStep(), 14.0f);
  const std::string plain = metrics::CreateMetricReport();
  EXPECT_EQ(plain.find("Server:"), std::string::npos) << plain;
  const std::string full = metrics::CreateMetricReport({.server = true});
  // The client's own timers, whichever client runs.
  for (const char* timer : {"Metric: CompileTime\n", "Metric: ExecuteTime\n",
                            "Metric: TransferToDeviceTime\n", "Metric: TransferFromDeviceTime\n"}) {
    EXPECT_NE(full.find(timer), std::string::npos) << timer << " missing from\n" << full;
  }
  const size_t server = full.find("Server: ");
  ASSERT_NE(server, std::string::npos) << full;
  const std::string tail = full.substr(server);
  if (!Remote()) {
    EXPECT_EQ(tail, "Server: none (SEAM_CLIENT is not remote: the devices are this process's)\n");
    return;
  }
  const char* address = std::getenv("SEAM_REMOTE_ADDRESS");
  ASSERT_NE(address, nullptr);
  EXPECT_EQ(tail.rfind(std::string("Server: ") + address + "\n", 0), 0u) << tail;
  // run_remote.sh starts a server for this process alone: one session, and its buffers.
  EXPECT_NE(tail.find("\n  Sessions: 1\n"), std::string::npos) << tail;
  EXPECT_NE(tail.find("\n  Buffers: "), std::string::npos) << tail;
  EXPECT_NE(tail.find("\n  Computations: "), std::string::npos) << tail;
  // The server's own report, indented: its client timed the run where it ran.
  EXPECT_NE(tail.find("\n  Metric: ExecuteTime\n"), std::string::npos) << tail;
  EXPECT_NE(tail.find("\n  Metric: TransferToDeviceTime\n"), std::string::npos) << tail;
}

}  // namespace
}  // namespace seam

// The `seam` command line.
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "src/runtime/distributed/grpc_logging.h"
#include "tools/info_command.h"
#include "tools/launch_command.h"
#include "tools/plugin_command.h"
#include "tools/run_command.h"
#include "tools/serve_command.h"

namespace {

int Main(int argc, char** argv) {
  // gRPC's own log lines would precede seam's messages (`seam serve` on a taken port).
  seam::runtime::QuietGrpcLogging();
  CLI::App app{"seam: a lazy-tensor runtime over a PJRT-style plugin ABI"};
  app.require_subcommand(1);

  CLI::App* info = app.add_subcommand(
      "info",
      "Show which client PJRT_DEVICE selects: the branch taken, every environment variable "
      "read, the plugin and its version, the platform and the devices");
  bool info_memory = false;
  info->add_flag("--devices", info_memory,
                 "Also print each device's memory figures: bytes in use, peak, limit and the "
                 "plugin's pool cache (what seam::memory_stats returns)");

  bool info_variables = false;
  info->add_flag("--variables", info_variables,
                 "Print the table of every environment variable seam reads (Markdown, as "
                 "docs/architecture.md shows it) and exit");

  CLI::App* plugin = app.add_subcommand("plugin", "Work with plugin shared libraries");
  plugin->require_subcommand(1);

  std::string inspect_path;
  CLI::App* inspect = plugin->add_subcommand(
      "inspect",
      "Load a plugin and print its version, the handshake verdict under the current "
      "ENABLE_PJRT_COMPATIBILITY, its attributes, platform and devices");
  inspect->add_option("path", inspect_path, "Path of the plugin (.so)")->required();

  std::string check_path;
  bool check_ops = false;
  CLI::App* check = plugin->add_subcommand(
      "check",
      "Run the conformance suite against a plugin: contract checks (every plugin must pass "
      "them) and capability checks (a capability whose function answers UNIMPLEMENTED is "
      "listed as not implemented; a wrong answer fails). Exit status 0 when no check fails");
  check->add_option("path", check_path, "Path of the plugin (.so)")->required();
  check->add_flag("--ops", check_ops,
                  "Also run the op-by-dtype numeric checks against the reference evaluator "
                  "(slow; SEAM_CONFORMANCE_SEED picks other random cases)");
  std::string check_format = "seam";
  check
      ->add_option("--format", check_format,
                   "The program format of the --ops checks: seam (seam's IR, for a plugin that "
                   "announces seam_ir_version; the default), stablehlo (each case lowered to "
                   "StableHLO, PJRT format \"mlir\", for any plugin) or both")
      ->check(CLI::IsMember({"seam", "stablehlo", "both"}));

  seam::tools::RunOptions run_options;
  CLI::App* run = app.add_subcommand(
      "run",
      "Compile a program (IR text, or StableHLO text in a .mlir file) with the in-process CPU "
      "plugin, run it on seeded random "
      "inputs and print each output's summary, the compile time and the execute times");
  run->add_option("program", run_options.path,
                  "Path of the program's IR text (a .mlir file: StableHLO text)")
      ->required();
  run->add_option("--devices", run_options.devices,
                  "Devices, one replica each (default: the program's replica count)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  run->add_option("--repeat", run_options.repeat, "Executions (default 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  run->add_option("--seed", run_options.seed, "Seed of the random inputs (default 0)");

  seam::tools::LaunchOptions launch_options;
  CLI::App* launch = seam::tools::AddLaunchCommand(app, launch_options);

  seam::tools::ServeOptions serve_options;
  CLI::App* serve = seam::tools::AddServeCommand(app, serve_options);

  CLI11_PARSE(app, argc, argv);
  if (serve->parsed()) return seam::tools::Serve(serve_options, std::cout, std::cerr);
  if (launch->parsed()) return seam::tools::Launch(launch_options, std::cerr);
  if (run->parsed()) return seam::tools::RunProgram(run_options, std::cout, std::cerr);
  if (info->parsed() && info_variables) return seam::tools::PrintVariables(std::cout);
  if (info->parsed()) return seam::tools::PrintInfo(std::cout, std::cerr, info_memory);
  if (inspect->parsed()) return seam::tools::InspectPlugin(inspect_path, std::cout, std::cerr);
  if (check->parsed()) {
    return seam::tools::CheckPlugin(check_path, check_ops, check_format, std::cout, std::cerr);
  }
  return 2;
}

}  // namespace

// No exception leaves the tool: one that escapes a command (allocation failure, a bug) is
// reported as such, with exit status 1.
int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "seam: unexpected error: " << error.what() << "\n";
  } catch (...) {
    std::cerr << "seam: unexpected error (not a std::exception)\n";
  }
  return 1;
}

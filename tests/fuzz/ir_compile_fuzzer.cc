// libFuzzer target: any bytes as IR text through the CPU plugin's public compile entry
// point (PJRT_Client_Compile), and a run of every program it accepts (on zero-filled
// arguments, when the program is small enough to run in a fuzzing loop). Built with
// clang's -fsanitize=fuzzer,address,undefined (SEAM_FUZZ=ON); `make test` replays the
// committed corpus (tests/fuzz/corpus) and a fixed-seed, fixed-count run; `make fuzz`
// runs open-ended. Nothing may crash, leak or trip a sanitizer; an error is a fine answer.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "seam/c/pjrt_c_api.h"
#include "src/conformance/plugin_runner.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/api/cpu_plugin.h"

namespace {

// Programs that would take too long or too much memory for a fuzzing loop are compiled
// but not run: at most this many bytes over every instruction's result.
constexpr int64_t kMaxRunBytes = int64_t{16} << 20;

const PJRT_Api* Api() { return seam::cpu::GetCpuPjrtApi(); }

PJRT_Client* Client() {
  static PJRT_Client* client = [] {
    PJRT_Client_Create_Args args{};
    args.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
    if (PJRT_Error* error = Api()->PJRT_Client_Create(&args)) {
      __builtin_trap();  // the harness itself is broken: nothing to fuzz
      (void)error;
    }
    return args.client;
  }();
  return client;
}

void DestroyError(PJRT_Error* error) {
  if (error == nullptr) return;
  PJRT_Error_Destroy_Args args{};
  args.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE;
  args.error = error;
  Api()->PJRT_Error_Destroy(&args);
}

// Compiles `text`; true when the plugin accepted it (the executable is destroyed again).
bool Compiles(std::string_view text) {
  static constexpr char kFormat[] = "seam-ir";
  PJRT_Program program{};
  program.struct_size = PJRT_Program_STRUCT_SIZE;
  program.code = const_cast<char*>(text.data());  // the ABI field is char*; never written
  program.code_size = text.size();
  program.format = kFormat;
  program.format_size = sizeof(kFormat) - 1;
  PJRT_Client_Compile_Args args{};
  args.struct_size = PJRT_Client_Compile_Args_STRUCT_SIZE;
  args.client = Client();
  args.program = &program;
  if (PJRT_Error* error = Api()->PJRT_Client_Compile(&args)) {
    DestroyError(error);
    return false;
  }
  PJRT_LoadedExecutable_Destroy_Args destroy{};
  destroy.struct_size = PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE;
  destroy.executable = args.executable;
  DestroyError(Api()->PJRT_LoadedExecutable_Destroy(&destroy));
  return true;
}

bool SmallEnoughToRun(const seam::ir::Program& program) {
  if (program.replica_count != 1) return false;  // the runner has one device
  int64_t bytes = 0;
  for (const seam::ir::Instruction& inst : program.instructions) {
    bytes += static_cast<int64_t>(inst.shape.byte_size());
    if (bytes > kMaxRunBytes) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (!Compiles(text)) return 0;
  // Accepted by the plugin, so the framework's parser reads it too; run it.
  absl::StatusOr<seam::ir::Program> program = seam::ir::ParseProgram(text);
  if (!program.ok()) __builtin_trap();  // the plugin accepted what the IR refuses
  if (!SmallEnoughToRun(*program)) return 0;
  std::vector<seam::ir::Literal> arguments;
  for (const seam::ir::Instruction& inst : program->instructions) {
    if (inst.op != seam::ir::Op::kParameter) continue;
    seam::ir::Literal zeros;
    zeros.shape = inst.shape;
    zeros.bytes.assign(static_cast<size_t>(inst.shape.byte_size()), 0);
    if (static_cast<size_t>(inst.parameter_index) >= arguments.size()) {
      arguments.resize(static_cast<size_t>(inst.parameter_index) + 1);
    }
    arguments[static_cast<size_t>(inst.parameter_index)] = std::move(zeros);
  }
  static seam::conformance::PluginRunner runner(Api());
  if (runner.status().ok()) runner.Run(*program, arguments).IgnoreError();
  return 0;
}

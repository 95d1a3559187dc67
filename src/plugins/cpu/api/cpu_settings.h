// The CPU plugin's settings, fixed when a client is created (docs/cpu-plugin.md, "Settings"):
// each from its create option, else its environment variable, else its default. A client
// keeps one CpuSettings; each executable it compiles holds it, and the compile and each run
// install it on their thread (ScopedCpuSettings), so that the passes and kernels deep down
// read their client's settings rather than the process's environment.
#ifndef SEAM_PLUGINS_CPU_CPU_SETTINGS_H_
#define SEAM_PLUGINS_CPU_CPU_SETTINGS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "src/plugins/common/options.h"
#include "src/plugins/cpu/kernels/gemm_library.h"

namespace seam::cpu {

// The create options that carry a setting: the variable's name in lower case, without
// `SEAM_CPU_` (or `SEAM_`). Each has its variable's type: an int64 for a number or a flag,
// a string otherwise.
inline constexpr char kThreadsOption[] = "threads";                          // int64
inline constexpr char kGemmOption[] = "gemm";                                // string
inline constexpr char kConvOption[] = "conv";                                // string
inline constexpr char kEpiloguesOption[] = "epilogues";                      // string
inline constexpr char kLayoutsOption[] = "layouts";                          // string
inline constexpr char kDumpToOption[] = "dump_to";                           // string
inline constexpr char kInlineMaxCostOption[] = "inline_max_cost";            // int64
inline constexpr char kInlineCrossProcessOption[] = "inline_cross_process";  // int64
inline constexpr char kMasterAddrOption[] = "master_addr";                   // string
inline constexpr char kAttentionOption[] = "attention";                      // string
inline constexpr char kJitOption[] = "jit";                                  // string
inline constexpr char kCollectiveSpinOption[] = "collective_spin_us";        // int64
inline constexpr char kKernelSpinOption[] = "kernel_spin_us";                // int64
inline constexpr char kStreamMinBytesOption[] = "stream_min_bytes";          // int64
inline constexpr int kMaxKernelThreads = 256;
// The default of inline_max_cost: programs of at most this many element operations
// (Executable::cost) run on the caller's thread when their device is idle. 16 Mi is about
// 0.3 ms of one AVX-512 core (the CNN's first convolution, batch 64, costs 16.1 M): a
// queued run pays two thread wake-ups, 0.1-0.2 ms on a busy VM, and the asynchrony a
// queue buys is at most the run's own length. Caller-side spinning before the wait was
// measured instead and lost badly on a loaded machine (BENCHMARKS.md, "Convolutions").
inline constexpr int64_t kDefaultInlineMaxCost = int64_t{16} * 1024 * 1024;

// The poll before an overlapped all_reduce's wait when neither the option nor
// SEAM_CPU_COLLECTIVE_SPIN_US gives one: kDefaultCollectiveSpinUs while the processes on
// this host times their kernel threads fit its CPUs, else 0 (polling would take CPU time
// from the other processes' kernels; measured in BENCHMARKS.md, "Data parallel across
// processes").
inline constexpr int64_t kDefaultCollectiveSpinUs = 20000;
inline constexpr int64_t kMaxCollectiveSpinUs = 1000000;

// How long a kernel thread polls for the next parallel loop before it sleeps (and a loop's
// caller for the part a kernel thread still runs) when neither the option nor
// SEAM_CPU_KERNEL_SPIN_US gives one: kDefaultKernelSpinUs while the processes on this host
// times their kernel threads fit its CPUs, else 0. A sleeping thread woken for each of a
// step's parallel loops costs tens of microseconds per loop on a 2-vCPU VM; the medium MLP
// step at 2 threads ran 8-12% faster with the poll (BENCHMARKS.md, "Threads, steps in
// flight, honest timers").
inline constexpr int64_t kDefaultKernelSpinUs = 200;
inline constexpr int64_t kMaxKernelSpinUs = 1000000;

// The smallest fused-loop output written with non-temporal stores when neither the option
// nor SEAM_CPU_STREAM_MIN_BYTES gives one: a quarter of the L3 cache `l3_bytes` (what the
// CPU reports; 0 when unknown), at least kStreamFloorBytes. An output that fits in the L3
// beside the rest of the step is read back from it by the next kernel, and a streamed one
// from memory (docs/cpu-plugin.md, "The CPU plugin's loop kernels", item "Streaming stores").
inline constexpr int64_t kStreamFloorBytes = int64_t{8} << 20;
int64_t DefaultStreamMinBytes(int64_t l3_bytes);

// Which convolution paths a plan may take (SEAM_CPU_CONV).
enum class ConvPaths { kAuto, kGemm, kDirect };

struct CpuSettings {
  int kernel_threads = 0;  // 1..256; 0: the hardware's threads
  GemmLibrary gemm = GemmLibrary::kAuto;
  bool gemm_given = false;  // by the option (how messages name it)
  ConvPaths conv = ConvPaths::kAuto;
  bool epilogues = true;
  bool dense_layouts = false;
  std::string dump_to;       // empty: no dump
  std::string dump_to_name;  // how a failed dump's warning names the setting
  // Whether an option gave conv, epilogues, layouts, dump_to: those it did not are read
  // from their variables again at each compile (CompileSettings), as they always were.
  bool conv_given = false, epilogues_given = false, layouts_given = false, dump_to_given = false;
  bool causal_attention =
      true;  // SEAM_CPU_ATTENTION on or blocks: causal products skip masked blocks
  bool sliced_attention = true;  // SEAM_CPU_ATTENTION on: their softmax in batch slices
  bool attention_given = false;
  bool chain_code = true;  // SEAM_CPU_JIT: fused loops' chains as generated machine code
  bool jit_given = false;
  // SEAM_CPU_STREAM_MIN_BYTES (unset: DefaultStreamMinBytes of this CPU's L3).
  std::optional<int64_t> stream_min_bytes;
  bool stream_given = false;
  int64_t inline_max_cost = 0;
  bool inline_cross_process = true;
  // How long the device's thread polls for an overlapped all_reduce before it sleeps
  // (microseconds, 0 to kMaxCollectiveSpinUs; docs/cpu-plugin.md, "Overlapped all_reduce").
  // Unset: CollectiveSpin's rule.
  std::optional<int64_t> collective_spin_us;
  // How long kernel threads poll between parallel loops (microseconds, 0 to
  // kMaxKernelSpinUs; thread_pool.h). Unset: KernelSpin's rule, which client creation
  // applies, so a client's settings always hold a value.
  std::optional<int64_t> kernel_spin_us;
  // Read only by a client of several processes, when it makes its collectives (as before):
  // the option when given; unset, the variable (api_client.cc).
  std::optional<std::string> master_addr;
};

// The poll of a client whose host runs `local_processes` of the job's processes on `cpus`
// usable CPUs: the setting when given, else the rule above (kernel_threads 0 counts as
// the hardware's threads).
int64_t CollectiveSpin(const CpuSettings& settings, int64_t local_processes, int64_t cpus);
// The same for the kernel threads' poll (kDefaultKernelSpinUs's rule).
int64_t KernelSpin(const CpuSettings& settings, int64_t local_processes, int64_t cpus);

// The settings of a client: the create options `options` (already type-checked by
// Options::Parse against CpuSettingOptions's names), else the environment, else the
// defaults. A bad value is INVALID_ARGUMENT naming the option or the variable and the value,
// in the words the variables' checks have always used, e.g.
//   PJRT_Client_Create: option 'conv' must be auto, gemm or direct, got 'mkl'
//   PJRT_Client_Create: environment variable SEAM_CPU_CONV must be auto, gemm or direct, got 'mkl'
absl::StatusOr<CpuSettings> ResolveCpuSettings(const plugin::Options& options);

// The environment's settings with no option given (the variables' checks at client
// creation; the tests of each variable call it).
absl::StatusOr<CpuSettings> CpuSettingsFromEnvironment();

// The settings one compile of a client with `client` uses (and its executable keeps): those,
// with each of conv, epilogues, layouts, dump_to, attention, jit and stream_min_bytes that no
// option gave read from its variable now, as the plugin has always read them at each compile
// (a value the client's creation would have refused reads as the default, as before).
std::shared_ptr<const CpuSettings> CompileSettings(const CpuSettings& client);

// The settings installed on this thread by the innermost live ScopedCpuSettings, or null
// (code run outside a client's compile or run: the kernels' and passes' own tests, which
// then read the variables as before).
const CpuSettings* ActiveCpuSettings();

class ScopedCpuSettings {
 public:
  explicit ScopedCpuSettings(const CpuSettings* settings);  // null: installs nothing
  ~ScopedCpuSettings();
  ScopedCpuSettings(const ScopedCpuSettings&) = delete;
  ScopedCpuSettings& operator=(const ScopedCpuSettings&) = delete;

 private:
  const CpuSettings* previous_;
};

// Each setting as the code that uses it asks: the active settings' value, else the
// variable's, read now, a value the client would refuse giving the default (so a pass or
// kernel run without a client behaves as the plugin always did).
ConvPaths ActiveConvPaths();
bool ActiveEpilogues();
bool ActiveDenseLayouts();
bool ActiveCausalAttention();
bool ActiveSlicedAttention();
bool ActiveChainCode();
int64_t ActiveStreamMinBytes();

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_CPU_SETTINGS_H_

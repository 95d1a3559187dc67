#include "src/plugins/cpu/api/cpu_settings.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <initializer_list>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "src/base/settings.h"
#include "src/base/status_macros.h"

namespace seam::cpu {
namespace {

thread_local const CpuSettings* active = nullptr;

// One setting's text as given: by its create option, or by its variable (unset: nullopt).
struct Given {
  std::optional<std::string> text;
  std::optional<int64_t> number;  // an int64 option
  bool from_option = false;
  std::string option;
  std::string variable;
  // How messages name it: "option 'conv'" or "environment variable SEAM_CPU_CONV".
  std::string Where() const {
    return from_option ? absl::StrCat("option '", option, "'")
                       : absl::StrCat("environment variable ", variable);
  }
};

Given StringSetting(const plugin::Options* options, const char* option, base::Setting setting) {
  Given given;
  given.option = option;
  given.variable = base::SettingName(setting);
  if (options != nullptr) {
    given.text = options->String(option);
    given.from_option = given.text.has_value();
  }
  if (!given.from_option) given.text = base::ReadSetting(setting);
  return given;
}

Given IntegerSetting(const plugin::Options* options, const char* option, base::Setting setting) {
  Given given;
  given.option = option;
  given.variable = base::SettingName(setting);
  if (options != nullptr) {
    given.number = options->Int64(option);
    given.from_option = given.number.has_value();
  }
  if (!given.from_option) given.text = base::ReadSetting(setting);
  return given;
}

absl::Status Refused(const Given& given, absl::string_view rule, absl::string_view value) {
  return absl::InvalidArgumentError(absl::StrCat("PJRT_Client_Create: ", given.Where(), " must be ",
                                                 rule, ", got '", value, "'"));
}

// The index of the given text among `choices` (unset or empty: `fallback`).
absl::StatusOr<int> Choice(const Given& given, std::initializer_list<absl::string_view> choices,
                           int fallback) {
  if (!given.text.has_value() || given.text->empty()) return fallback;
  int i = 0;
  for (absl::string_view choice : choices) {
    if (*given.text == choice) return i;
    ++i;
  }
  std::string rule;
  i = 0;
  for (absl::string_view choice : choices) {
    const bool last = i + 1 == static_cast<int>(choices.size());
    absl::StrAppend(&rule, i == 0 ? "" : (last ? " or " : ", "), choice);
    ++i;
  }
  return Refused(given, rule, *given.text);
}

// An integer of at least `minimum` (unset or an empty variable: `fallback`).
absl::StatusOr<int64_t> Integer(const Given& given, int64_t minimum, int64_t fallback,
                                absl::string_view what) {
  if (given.from_option) {
    if (*given.number < minimum) {
      return Refused(given, absl::StrCat("a ", what), absl::StrCat(*given.number));
    }
    return *given.number;
  }
  if (!given.text.has_value() || given.text->empty()) return fallback;
  const char* text = given.text->c_str();
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || value < minimum) {
    return Refused(given, absl::StrCat("a ", what), *given.text);
  }
  return static_cast<int64_t>(value);
}

// The variables read leniently, as the passes always read them at each compile.
ConvPaths EnvConvPaths() {
  const std::string value = base::ReadSetting(base::Setting::kSeamCpuConv).value_or("auto");
  if (value == "direct") return ConvPaths::kDirect;
  if (value == "gemm") return ConvPaths::kGemm;
  return ConvPaths::kAuto;
}

bool EnvEpilogues() {
  return base::ReadSetting(base::Setting::kSeamCpuEpilogues).value_or("") != "off";
}

bool EnvCausalAttention() {
  return base::ReadSetting(base::Setting::kSeamCpuAttention).value_or("on") != "off";
}

bool EnvSlicedAttention() {
  return base::ReadSetting(base::Setting::kSeamCpuAttention).value_or("on") == "on";
}

bool EnvChainCode() {
  return base::ReadSetting(base::Setting::kSeamCpuJit).value_or("on") != "off";
}

// SEAM_CPU_STREAM_MIN_BYTES as a positive integer; unset, empty or anything else: unset.
std::optional<int64_t> EnvStreamMinBytes() {
  const Given given =
      IntegerSetting(nullptr, kStreamMinBytesOption, base::Setting::kSeamCpuStreamMinBytes);
  const absl::StatusOr<int64_t> value = Integer(given, 1, -1, "positive integer");
  if (!value.ok() || *value < 1) return std::nullopt;
  return *value;
}

// The default threshold on this machine: DefaultStreamMinBytes of the L3 size the C
// library reports (from CPUID on x86), read once.
int64_t MachineStreamMinBytes() {
  static const int64_t bytes = [] {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);  // 0 or -1 when unknown
    return DefaultStreamMinBytes(l3 > 0 ? static_cast<int64_t>(l3) : 0);
  }();
  return bytes;
}

bool EnvDenseLayouts() {
  return base::ReadSetting(base::Setting::kSeamCpuLayouts).value_or("auto") == "dense";
}

// The run-placement settings: the inline bound and the cross-process flag.
absl::Status ResolveInline(const plugin::Options* options, CpuSettings& out) {
  SEAM_ASSIGN_OR_RETURN(
      out.inline_max_cost,
      Integer(IntegerSetting(options, kInlineMaxCostOption, base::Setting::kSeamCpuInlineMaxCost),
              0, kDefaultInlineMaxCost, "non-negative integer"));
  const Given cross =
      IntegerSetting(options, kInlineCrossProcessOption, base::Setting::kSeamCpuInlineCrossProcess);
  SEAM_ASSIGN_OR_RETURN(int64_t cross_value, Integer(cross, 0, 1, "flag (0 or 1)"));
  if (cross_value > 1) return Refused(cross, "a flag (0 or 1)", absl::StrCat(cross_value));
  out.inline_cross_process = cross_value == 1;
  const Given spin =
      IntegerSetting(options, kCollectiveSpinOption, base::Setting::kSeamCpuCollectiveSpinUs);
  const char* const spin_rule = "number of microseconds from 0 to 1000000";
  SEAM_ASSIGN_OR_RETURN(int64_t spin_us, Integer(spin, 0, -1, spin_rule));
  if (spin_us > kMaxCollectiveSpinUs) {
    return Refused(spin, absl::StrCat("a ", spin_rule), absl::StrCat(spin_us));
  }
  if (spin_us >= 0) out.collective_spin_us = spin_us;
  const Given kernel_spin =
      IntegerSetting(options, kKernelSpinOption, base::Setting::kSeamCpuKernelSpinUs);
  SEAM_ASSIGN_OR_RETURN(int64_t kernel_spin_us, Integer(kernel_spin, 0, -1, spin_rule));
  if (kernel_spin_us > kMaxKernelSpinUs) {
    return Refused(kernel_spin, absl::StrCat("a ", spin_rule), absl::StrCat(kernel_spin_us));
  }
  if (kernel_spin_us >= 0) out.kernel_spin_us = kernel_spin_us;
  return absl::OkStatus();
}

// The settings the compiler's passes read: convolution paths, epilogues, layouts.
absl::Status ResolvePasses(const plugin::Options* options, CpuSettings& out) {
  const Given conv = StringSetting(options, kConvOption, base::Setting::kSeamCpuConv);
  SEAM_ASSIGN_OR_RETURN(int paths, Choice(conv, {"auto", "gemm", "direct"}, 0));
  out.conv = static_cast<ConvPaths>(paths);
  out.conv_given = conv.from_option;
  const Given epilogues =
      StringSetting(options, kEpiloguesOption, base::Setting::kSeamCpuEpilogues);
  SEAM_ASSIGN_OR_RETURN(int off, Choice(epilogues, {"on", "off"}, 0));
  out.epilogues = off == 0;
  out.epilogues_given = epilogues.from_option;
  const Given layouts = StringSetting(options, kLayoutsOption, base::Setting::kSeamCpuLayouts);
  SEAM_ASSIGN_OR_RETURN(int dense, Choice(layouts, {"auto", "dense"}, 0));
  out.dense_layouts = dense == 1;
  out.layouts_given = layouts.from_option;
  return absl::OkStatus();
}

// In the order PJRT_Client_Create has always checked the variables.
absl::StatusOr<CpuSettings> Resolve(const plugin::Options* options) {
  CpuSettings out;
  SEAM_RETURN_IF_ERROR(ResolveInline(options, out));
  SEAM_ASSIGN_OR_RETURN(int64_t threads, Integer(IntegerSetting(options, kThreadsOption,
                                                                base::Setting::kSeamCpuThreads),
                                                 1, 0, "positive integer"));
  out.kernel_threads = static_cast<int>(std::min<int64_t>(threads, kMaxKernelThreads));
  SEAM_RETURN_IF_ERROR(ResolvePasses(options, out));
  const Given gemm = StringSetting(options, kGemmOption, base::Setting::kSeamCpuGemm);
  SEAM_ASSIGN_OR_RETURN(int library, Choice(gemm, {"auto", "openblas", "onednn"}, 0));
  out.gemm = static_cast<GemmLibrary>(library);
  out.gemm_given = gemm.from_option;
  const Given dump = StringSetting(options, kDumpToOption, base::Setting::kSeamDumpTo);
  out.dump_to = dump.text.value_or("");
  out.dump_to_name = dump.from_option ? dump.option : dump.variable;
  out.dump_to_given = dump.from_option;
  if (options != nullptr) out.master_addr = options->String(kMasterAddrOption);
  const Given attention =
      StringSetting(options, kAttentionOption, base::Setting::kSeamCpuAttention);
  SEAM_ASSIGN_OR_RETURN(int attention_mode, Choice(attention, {"on", "blocks", "off"}, 0));
  out.causal_attention = attention_mode != 2;
  out.sliced_attention = attention_mode == 0;
  out.attention_given = attention.from_option;
  const Given jit = StringSetting(options, kJitOption, base::Setting::kSeamCpuJit);
  SEAM_ASSIGN_OR_RETURN(int jit_off, Choice(jit, {"on", "off"}, 0));
  out.chain_code = jit_off == 0;
  out.jit_given = jit.from_option;
  const Given stream =
      IntegerSetting(options, kStreamMinBytesOption, base::Setting::kSeamCpuStreamMinBytes);
  SEAM_ASSIGN_OR_RETURN(int64_t stream_bytes, Integer(stream, 1, -1, "positive integer"));
  if (stream_bytes >= 1) out.stream_min_bytes = stream_bytes;
  out.stream_given = stream.from_option;
  return out;
}

}  // namespace

absl::StatusOr<CpuSettings> ResolveCpuSettings(const plugin::Options& options) {
  return Resolve(&options);
}

absl::StatusOr<CpuSettings> CpuSettingsFromEnvironment() { return Resolve(nullptr); }

const CpuSettings* ActiveCpuSettings() { return active; }

ScopedCpuSettings::ScopedCpuSettings(const CpuSettings* settings) : previous_(active) {
  if (settings != nullptr) active = settings;
}

ScopedCpuSettings::~ScopedCpuSettings() { active = previous_; }

ConvPaths ActiveConvPaths() { return active != nullptr ? active->conv : EnvConvPaths(); }

bool ActiveEpilogues() { return active != nullptr ? active->epilogues : EnvEpilogues(); }

bool ActiveDenseLayouts() { return active != nullptr ? active->dense_layouts : EnvDenseLayouts(); }

bool ActiveCausalAttention() {
  return active != nullptr ? active->causal_attention : EnvCausalAttention();
}

bool ActiveSlicedAttention() {
  return active != nullptr ? active->sliced_attention : EnvSlicedAttention();
}

bool ActiveChainCode() { return active != nullptr ? active->chain_code : EnvChainCode(); }

int64_t ActiveStreamMinBytes() {
  const std::optional<int64_t> given =
      active != nullptr ? active->stream_min_bytes : EnvStreamMinBytes();
  return given.value_or(MachineStreamMinBytes());
}

int64_t DefaultStreamMinBytes(int64_t l3_bytes) {
  return std::max(kStreamFloorBytes, l3_bytes / 4);
}

std::shared_ptr<const CpuSettings> CompileSettings(const CpuSettings& client) {
  auto settings = std::make_shared<CpuSettings>(client);
  if (!client.conv_given) settings->conv = EnvConvPaths();
  if (!client.epilogues_given) settings->epilogues = EnvEpilogues();
  if (!client.layouts_given) settings->dense_layouts = EnvDenseLayouts();
  if (!client.attention_given) {
    settings->causal_attention = EnvCausalAttention();
    settings->sliced_attention = EnvSlicedAttention();
  }
  if (!client.jit_given) settings->chain_code = EnvChainCode();
  if (!client.stream_given) settings->stream_min_bytes = EnvStreamMinBytes();
  if (!client.dump_to_given) {
    settings->dump_to = base::ReadSetting(base::Setting::kSeamDumpTo).value_or("");
  }
  return settings;
}

namespace {

// Whether the host's processes times their kernel threads fit its CPUs.
bool ThreadsFit(const CpuSettings& settings, int64_t local_processes, int64_t cpus) {
  const int64_t threads = settings.kernel_threads > 0
                              ? settings.kernel_threads
                              : std::max<int64_t>(1, std::thread::hardware_concurrency());
  return local_processes * threads <= cpus;
}

}  // namespace

int64_t CollectiveSpin(const CpuSettings& settings, int64_t local_processes, int64_t cpus) {
  if (settings.collective_spin_us.has_value()) return *settings.collective_spin_us;
  return ThreadsFit(settings, local_processes, cpus) ? kDefaultCollectiveSpinUs : 0;
}

int64_t KernelSpin(const CpuSettings& settings, int64_t local_processes, int64_t cpus) {
  if (settings.kernel_spin_us.has_value()) return *settings.kernel_spin_us;
  return ThreadsFit(settings, local_processes, cpus) ? kDefaultKernelSpinUs : 0;
}

}  // namespace seam::cpu

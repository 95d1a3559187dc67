#include "tools/run_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <new>
#include <random>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "src/ir/bf16.h"
#include "src/ir/text.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_computation_client.h"
#include "src/stablehlo/read.h"

namespace seam::tools {
namespace {

using runtime::ComputationClient;

// Uniform in [-1, 1) for floats, [-5, 5] for integers, fair coin for pred.
ir::Literal RandomLiteral(const ir::Shape& shape, std::mt19937_64& rng) {
  ir::Literal lit;
  lit.shape = shape;
  lit.bytes.resize(shape.byte_size());
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> integer(-5, 5);
  const int64_t n = shape.num_elements();
  uint8_t* p = lit.bytes.data();
  for (int64_t i = 0; i < n; ++i) {
    switch (shape.dtype) {
      case ir::DType::kF32: {
        auto v = static_cast<float>(real(rng));
        std::memcpy(p + i * 4, &v, 4);
        break;
      }
      case ir::DType::kF64: {
        double v = real(rng);
        std::memcpy(p + i * 8, &v, 8);
        break;
      }
      case ir::DType::kBF16: {
        uint16_t v = ir::FloatToBF16(static_cast<float>(real(rng)));
        std::memcpy(p + i * 2, &v, 2);
        break;
      }
      case ir::DType::kS32: {
        auto v = static_cast<int32_t>(integer(rng));
        std::memcpy(p + i * 4, &v, 4);
        break;
      }
      case ir::DType::kS64: {
        int64_t v = integer(rng);
        std::memcpy(p + i * 8, &v, 8);
        break;
      }
      case ir::DType::kPred:
        p[i] = static_cast<uint8_t>(rng() & 1);
        break;
    }
  }
  return lit;
}

double ElementAsDouble(const ir::Literal& lit, int64_t i) {
  const uint8_t* p = lit.bytes.data();
  switch (lit.shape.dtype) {
    case ir::DType::kF32: {
      float v;
      std::memcpy(&v, p + i * 4, 4);
      return v;
    }
    case ir::DType::kF64: {
      double v;
      std::memcpy(&v, p + i * 8, 8);
      return v;
    }
    case ir::DType::kBF16: {
      uint16_t v;
      std::memcpy(&v, p + i * 2, 2);
      return ir::BF16ToFloat(v);
    }
    case ir::DType::kS32: {
      int32_t v;
      std::memcpy(&v, p + i * 4, 4);
      return v;
    }
    case ir::DType::kS64: {
      int64_t v;
      std::memcpy(&v, p + i * 8, 8);
      return static_cast<double>(v);
    }
    case ir::DType::kPred:
      return p[i];
  }
  return 0;
}

void Summarize(const std::string& label, const ir::Literal& lit, std::ostream& out) {
  const int64_t n = lit.shape.num_elements();
  out << label << "  " << lit.shape.ToString();
  if (n == 0) {
    out << "  (empty)\n";
    return;
  }
  double lo = ElementAsDouble(lit, 0), hi = lo, sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = ElementAsDouble(lit, i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  out << absl::StrFormat("  min %.6g  max %.6g  mean %.6g  first", lo, hi,
                         sum / static_cast<double>(n));
  for (int64_t i = 0; i < std::min<int64_t>(n, 5); ++i) {
    out << absl::StrFormat(" %.6g", ElementAsDouble(lit, i));
  }
  out << (n > 5 ? " ...\n" : "\n");
}

std::string Ms(double ns) { return absl::StrFormat("%.3f ms", ns / 1e6); }

int Fail(std::ostream& err, const std::string& message) {
  err << "seam run: " << message << "\n";
  return 1;
}

// A program's text is read up to this size; beyond it the file is refused (`seam run
// /dev/zero` read without limit).
constexpr size_t kMaxProgramBytes = size_t{64} << 20;

absl::StatusOr<std::string> ReadProgramText(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("'%s' is a directory, not a program's text", path));
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(absl::StrFormat("cannot read '%s': %s", path, std::strerror(errno)));
  }
  std::string text;
  std::vector<char> chunk(size_t{1} << 16);
  while (file.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || file.gcount() > 0) {
    text.append(chunk.data(), static_cast<size_t>(file.gcount()));
    if (text.size() > kMaxProgramBytes) {
      return absl::InvalidArgumentError(
          absl::StrFormat("'%s' holds more than %d bytes, the most a program's text may have", path,
                          kMaxProgramBytes));
    }
  }
  return text;
}

// Seeded random inputs for every device, refused up front when they cannot fit in this
// machine's memory (a parameter of f32[274877906944] is 1 TiB).
absl::StatusOr<std::vector<std::vector<ir::Literal>>> MakeHostArguments(
    const std::vector<ir::Shape>& params, int64_t devices, std::mt19937_64& rng) {
  const auto memory =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  uint64_t total = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const uint64_t bytes = params[i].byte_size();
    if (bytes <= memory) total += bytes * static_cast<uint64_t>(devices);
    if (bytes > memory || total > memory) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "parameter %d (%s) needs %d bytes of host memory per device; with %d device(s) the "
          "inputs need more than this machine's %d bytes",
          i, params[i].ToString(), bytes, devices, memory));
    }
  }
  std::vector<std::vector<ir::Literal>> host_args(devices);
  try {
    for (int64_t d = 0; d < devices; ++d) {
      for (const ir::Shape& shape : params) host_args[d].push_back(RandomLiteral(shape, rng));
    }
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("cannot allocate the %d bytes of host memory the inputs need", total));
  }
  return host_args;
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int RunProgram(const RunOptions& options, std::ostream& out, std::ostream& err) {
  absl::StatusOr<std::string> text = ReadProgramText(options.path);
  if (!text.ok()) return Fail(err, std::string(text.status().message()));
  // A .mlir file is StableHLO text (docs/stablehlo.md), read into seam's IR.
  const bool mlir =
      options.path.size() >= 5 && options.path.compare(options.path.size() - 5, 5, ".mlir") == 0;
  absl::StatusOr<ir::Program> program =
      mlir ? stablehlo::ReadStableHlo(*text) : ir::ParseProgram(*text);
  if (!program.ok()) {
    return Fail(err,
                absl::StrFormat("%s: %s", options.path, std::string(program.status().message())));
  }
  if (options.repeat < 1) {
    return Fail(err, absl::StrFormat("--repeat is %d, must be >= 1", options.repeat));
  }
  const int64_t devices = options.devices == 0 ? program->replica_count : options.devices;
  if (devices != program->replica_count) {
    return Fail(err, absl::StrFormat("--devices is %d, the program has replicas=%d (they must "
                                     "be equal)",
                                     devices, program->replica_count));
  }
  auto client = runtime::PjrtComputationClient::Create(runtime::GetInProcessCpuPjrtApi(),
                                                       {{"cpu_device_count", devices}});
  if (!client.ok()) return Fail(err, std::string(client.status().message()));
  std::vector<std::string> names = (*client)->GetLocalDevices();

  int64_t start = NowNs();
  auto compiled = (*client)->Compile({{*program, names[0]}});
  if (!compiled.ok()) return Fail(err, std::string(compiled.status().message()));
  const double compile_ns = static_cast<double>(NowNs() - start);

  std::mt19937_64 rng(options.seed);
  std::vector<std::vector<ComputationClient::DataPtr>> arguments(devices);
  bool donates = !program->aliases.empty();
  auto host_args = MakeHostArguments(program->ParameterShapes(), devices, rng);
  if (!host_args.ok()) return Fail(err, std::string(host_args.status().message()));
  std::vector<double> times;
  std::vector<std::vector<ComputationClient::DataPtr>> outputs;
  for (int64_t k = 0; k < options.repeat; ++k) {
    // Donated arguments are consumed by a run, so every repeat uploads its own.
    if (k == 0 || donates) {
      for (int64_t d = 0; d < devices; ++d) {
        std::vector<ComputationClient::TensorSource> sources;
        for (const ir::Literal& lit : (*host_args)[d]) {
          sources.push_back({lit.shape, lit.bytes.data(), names[d]});
        }
        auto data = (*client)->TransferToDevice(sources);
        if (!data.ok()) return Fail(err, std::string(data.status().message()));
        arguments[d] = *data;
      }
    }
    start = NowNs();
    auto result = (*client)->ExecuteReplicated(
        *compiled->front(), arguments,
        std::vector<std::string>(names.begin(), names.begin() + devices));
    if (!result.ok()) return Fail(err, std::string(result.status().message()));
    // The outputs' ready state ends the timing; errors show in the transfer below.
    for (const auto& replica : *result) {
      for (const auto& data : replica) {
        while (!data->IsReady()) std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
    }
    times.push_back(static_cast<double>(NowNs() - start));
    outputs = *std::move(result);
  }

  out << "program  @" << program->name << "  replicas=" << program->replica_count << "  devices "
      << devices << "  seed " << options.seed << "\n";
  for (int64_t d = 0; d < devices; ++d) {
    auto host = (*client)->TransferFromDevice(outputs[d]);
    if (!host.ok()) return Fail(err, std::string(host.status().message()));
    for (size_t i = 0; i < host->size(); ++i) {
      std::string label = devices > 1 ? absl::StrFormat("replica %d output %d", d, i)
                                      : absl::StrFormat("output %d", i);
      Summarize(label, (*host)[i], out);
    }
  }
  std::sort(times.begin(), times.end());
  out << "compile  " << Ms(compile_ns) << "\n";
  out << "execute  " << times.size() << " run(s)  min " << Ms(times.front()) << "  median "
      << Ms(times[times.size() / 2]) << "\n";
  return 0;
}

}  // namespace seam::tools

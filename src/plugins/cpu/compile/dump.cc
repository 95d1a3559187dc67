#include "src/plugins/cpu/compile/dump.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/ir/hash.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/kernels/attention_causal.h"
#include "src/plugins/cpu/runtime/device_layout.h"

namespace seam::cpu {
namespace {

absl::Status WriteFile(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (out) out.close();
  if (!out) {
    return absl::UnavailableError(
        absl::StrCat("cannot write '", path.string(), "': ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

// " (epilogue in %c's oneDNN call: ...)" for a step computed inside a convolution.
std::string DescribeEpilogue(const ConvEpilogue& e) {
  std::string text;
  absl::StrAppend(&text, " (epilogue in %", e.conv,
                  "'s oneDNN call:", e.bias >= 0 ? absl::StrCat(" bias %", e.bias) : "");
  if (!e.channel.empty()) {
    absl::StrAppend(&text, " weights and bias folded from");
    const char* separator = " ";
    for (const ChannelOp& op : e.channel) {
      const std::string v = absl::StrCat("%", op.value);
      absl::StrAppend(&text, separator,
                      op.swapped                   ? absl::StrCat(v, " - y")
                      : op.op == ir::Op::kAdd      ? absl::StrCat("y + ", v)
                      : op.op == ir::Op::kSubtract ? absl::StrCat("y - ", v)
                      : op.op == ir::Op::kMultiply ? absl::StrCat("y * ", v)
                                                   : absl::StrCat("y / ", v));
      separator = ", ";
    }
    absl::StrAppend(&text, ";");
  }
  absl::StrAppend(&text, e.residual >= 0 ? absl::StrCat(" + %", e.residual) : "",
                  e.relu ? " relu" : "", ")");
  return text;
}

}  // namespace

namespace {

std::string ValueList(const std::vector<int>& values) {
  std::string text;
  for (int v : values) absl::StrAppend(&text, text.empty() ? "%" : " %", v);
  return text;
}

std::string DescribeHome(const ValueHome& home, const BufferPlan& buffers) {
  switch (home.kind) {
    case ValueHome::kNone:
      return "no memory (fused, or not needed)";
    case ValueHome::kParameter:
      return absl::StrCat("parameter ", home.index);
    case ValueHome::kLiteral:
      return "constant (the program's bytes)";
    case ValueHome::kArena:
      return absl::StrCat("arena slot ", home.index, " (offset ", home.offset, ", ",
                          buffers.slot_bytes[home.index], " bytes)");
    case ValueHome::kResult:
      return absl::StrCat("result ", home.index, " (own block)");
    case ValueHome::kDonated:
      return absl::StrCat("donated block of parameter ", home.index, " (in place)");
  }
  return "";
}

// A sliced region's first step: what runs slice by slice (sliced_region.h).
std::string DescribeRegion(const SlicedRegion& region) {
  std::string text =
      absl::StrCat(" [sliced region: this and the next ", region.end - region.first - 1,
                   " step(s), ", region.slice_batches, " of ", region.batches,
                   " batches at a time, ", region.parts, " part(s)");
  if (!region.local.empty())
    absl::StrAppend(&text, "; one slice in memory: ", ValueList(region.local));
  return text + "]";
}

// The "# steps:" line: the order the run takes, what each step is.
std::string DescribeSteps(const Executable& executable) {
  const ir::Program& program = executable.program();
  const FusionPlan& fusion = executable.fusion();
  std::string steps;
  for (size_t s = 0; s < fusion.steps.size(); ++s) {
    const Step& step = fusion.steps[s];
    absl::StrAppend(&steps, steps.empty() ? "" : ", ");
    if (step.group >= 0) {
      absl::StrAppend(&steps, "fusion.", step.group);
      if (step.epilogue) {
        absl::StrAppend(&steps, DescribeEpilogue(fusion.epilogues[step.group]));
      }
      if (step.interleaved) {
        absl::StrAppend(&steps, " (interleaved with %", fusion.steps[s - 1].instruction,
                        "'s rows: each thread's rows, then their tiles)");
      }
      for (int r : fusion.groups[step.group].reduces) {
        absl::StrAppend(&steps, " + %", r, " (",
                        std::string(ir::OpName(program.instructions[r].op)), ")");
      }
    } else if (fusion.update_of[step.instruction] >= 0) {
      const DotUpdate& update = fusion.updates[fusion.update_of[step.instruction]];
      absl::StrAppend(&steps, "%", step.instruction,
                      " (dot update: ", update.broadcast >= 0 ? "broadcast " : "", "%", update.base,
                      update.negate ? " - " : " + ");
      if (update.scale >= 0) absl::StrAppend(&steps, "%", update.scale, " * ");
      absl::StrAppend(&steps, "dot %", update.dot, ", one gemm)");
    } else {
      // Which path a bf16 product takes (docs/cpu-plugin.md "Matrix products"), and a
      // convolution in the weight-gradient form ("Convolutions").
      const StepPlan& plan = executable.step_plans()[s];
      const bool bf16_matmul = plan.dot.bf16_matmul != nullptr;
      const bool weight_gradient = plan.conv != nullptr && plan.conv->uses_weight_gradient();
      const int product = fusion.transposed_product[step.instruction];
      absl::StrAppend(
          &steps, "%", step.instruction, " (",
          std::string(ir::OpName(program.instructions[step.instruction].op)),
          product >= 0 ? absl::StrCat(" of dot_general %", product, ", written by its gemm") : "",
          bf16_matmul ? ", oneDNN bf16 matmul" : "",
          weight_gradient ? ", oneDNN backward weights" : "",
          plan.conv != nullptr && !plan.conv->onednn_implementation().empty()
              ? absl::StrCat(", oneDNN kernel ", std::string(plan.conv->onednn_implementation()))
              : "",
          plan.dot.causal != nullptr ? ", causal blocks: " : "",
          plan.dot.causal != nullptr ? CausalKindName(plan.dot.causal->kind) : "", ")");
    }
    if (step.region >= 0) absl::StrAppend(&steps, DescribeRegion(fusion.regions[step.region]));
    if (step.sliced) absl::StrAppend(&steps, " (sliced)");
  }
  return steps;
}

// Where each value lives during the run and how each output leaves it.
void AppendBuffers(const Executable& executable, std::string& out) {
  const ir::Program& program = executable.program();
  const BufferPlan& buffers = executable.buffers();
  absl::StrAppend(&out, "# buffers: arena of ", buffers.arena_bytes, " bytes in ",
                  buffers.slot_bytes.size(), " slot(s), from the block pool each run\n");
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    absl::StrAppend(&out, "#   %", i, ": ", DescribeHome(buffers.homes[i], buffers), "\n");
  }
  for (size_t k = 0; k < buffers.outputs.size(); ++k) {
    const OutputPlan& output = buffers.outputs[k];
    absl::StrAppend(&out, "# output ", k, " (%", output.value, "): ");
    if (output.how == OutputPlan::kInPlace) {
      absl::StrAppend(&out, "computed in place in the donated memory of parameter ",
                      buffers.homes[output.value].index, "\n");
    } else if (output.how == OutputPlan::kCopy) {
      absl::StrAppend(&out, "copied into a new block at the end of the run\n");
    } else {
      absl::StrAppend(&out, "computed into its own block\n");
    }
    if (output.copy_into_parameter >= 0) {
      absl::StrAppend(&out, "#   then copied into the donated memory of parameter ",
                      output.copy_into_parameter, " at the end of the run\n");
    }
  }
  // On-device layouts (docs/cpu-plugin.md "On-device layouts"): only those not dense.
  const LayoutPlan& layouts = executable.layouts();
  for (size_t p = 0; p < layouts.parameters.size(); ++p) {
    if (layouts.parameters[p] == nullptr) continue;
    absl::StrAppend(&out, "# parameter ", p, " read in oneDNN's layout ",
                    DescribeLayout(layouts.parameters[p].get()),
                    " (a block in another layout is converted once and the copy kept)\n");
  }
  for (size_t k = 0; k < layouts.results.size(); ++k) {
    if (layouts.results[k] == nullptr) continue;
    absl::StrAppend(&out, "# output ", k, " left in oneDNN's layout ",
                    DescribeLayout(layouts.results[k].get()), "\n");
  }
}

}  // namespace

std::string OptimizedDumpText(const Executable& executable) {
  const ir::Program& program = executable.program();
  const FusionPlan& fusion = executable.fusion();
  std::string out = absl::StrFormat(
      "# seam cpu plugin: the program as it runs (hash %016x).\n"
      "# Passes: simplify (common subexpressions, constant folding, algebraic identities,\n"
      "# dead code), loop fusion, buffer assignment. The program below is the simplified one,\n"
      "# in canonical text; the plan is in these comments (docs/ir.md, \"The optimized dump\").\n",
      ir::HashProgram(program));
  for (size_t g = 0; g < fusion.groups.size(); ++g) {
    const FusionGroup& group = fusion.groups[g];
    const LoopKernel& kernel = executable.kernels()[g];
    absl::StrAppend(&out, "# fusion.", g, " = { ", ValueList(group.members),
                    " } kind=loop elements=", group.count, " inputs={", ValueList(group.inputs),
                    "} outputs={", ValueList(group.outputs), "} scratch=", kernel.scratch_slots);
    if (!group.reduces.empty()) {
      absl::StrAppend(&out, " reduces={", ValueList(group.reduces), "} (chunk by chunk)");
    }
    if (const ReduceChunks& chunks = executable.chunks()[g]; chunks.tiles > 0) {
      std::vector<int> local;
      for (size_t k = 0; k < kernel.outputs.size(); ++k) {
        if (chunks.local[k]) local.push_back(kernel.outputs[k]);
      }
      absl::StrAppend(&out, " chunk_local={", ValueList(local), "} (", chunks.tiles,
                      " tiles per chunk)");
    }
    absl::StrAppend(&out, "\n");
    std::string ops = DescribeLoop(program, kernel);
    for (size_t begin = 0; begin < ops.size();) {
      size_t end = ops.find('\n', begin);
      absl::StrAppend(&out, "#   ", ops.substr(begin, end - begin), "\n");
      begin = end + 1;
    }
  }
  const std::string steps = DescribeSteps(executable);
  absl::StrAppend(&out, "# steps: ", steps.empty() ? "none" : steps, "\n");
  AppendBuffers(executable, out);
  return out + ir::PrintProgram(program);
}

absl::Status DumpCompile(const std::string& dir, std::string_view received,
                         const Executable& executable) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("cannot create directory '", dir, "': ", error.message()));
  }
  // Named by the received program's hash (as the compile cache knows it), not the
  // simplified one's. The text parsed at compile time, so it parses here too.
  absl::StatusOr<ir::Program> parsed = ir::ParseProgram(received);
  std::string hash =
      absl::StrFormat("%016x", ir::HashProgram(parsed.ok() ? *parsed : executable.program()));
  std::filesystem::path base(dir);
  absl::Status received_status = WriteFile(base / (hash + ".received.txt"), received);
  if (!received_status.ok()) return received_status;
  return WriteFile(base / (hash + ".optimized.txt"), OptimizedDumpText(executable));
}

void MaybeDumpCompile(std::string_view received, const Executable& executable,
                      const CpuSettings& settings) {
  if (settings.dump_to.empty()) return;
  absl::Status status = DumpCompile(settings.dump_to, received, executable);
  if (!status.ok()) {
    std::fprintf(stderr, "seam cpu plugin: warning: %s=%s: the compile dump failed: %s\n",
                 settings.dump_to_name.c_str(), settings.dump_to.c_str(),
                 std::string(status.message()).c_str());
  }
}

}  // namespace seam::cpu

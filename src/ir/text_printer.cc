#include <charconv>
#include <cmath>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "src/ir/bf16.h"
#include "src/ir/text.h"

namespace seam::ir {
namespace {

bool IsPlainNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

// Names outside [A-Za-z0-9_.-]+ are quoted so that any name survives a round trip.
std::string ProgramName(const std::string& name) {
  bool plain = !name.empty();
  for (char c : name) plain &= IsPlainNameChar(c);
  if (plain) return "@" + name;
  std::string out = "@\"";
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7f) {
      out += absl::StrFormat("\\x%02x", u);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Shortest text that reads back as the same value; NaN and infinities by name.
template <typename T>
std::string FormatFloat(T v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return ec == std::errc() ? std::string(buf, end) : "nan";
}

template <typename T>
T Load(const Literal& lit, size_t i) {
  T v;
  std::memcpy(&v, lit.bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

std::string FormatElement(const Literal& lit, size_t i) {
  switch (lit.shape.dtype) {
    case DType::kF32:
      return FormatFloat(Load<float>(lit, i));
    case DType::kF64:
      return FormatFloat(Load<double>(lit, i));
    case DType::kBF16:
      // Every bf16 value is an f32 value, so the f32 form reads back exactly.
      return FormatFloat(BF16ToFloat(Load<uint16_t>(lit, i)));
    case DType::kS32:
      return std::to_string(Load<int32_t>(lit, i));
    case DType::kS64:
      return std::to_string(Load<int64_t>(lit, i));
    case DType::kPred:
      return Load<uint8_t>(lit, i) != 0 ? "true" : "false";
  }
  return "?";
}

std::string FormatConstant(const Literal& lit) {
  size_t size = DTypeSize(lit.shape.dtype);
  size_t count = size == 0 ? 0 : lit.bytes.size() / size;
  if (lit.shape.dims.empty() && count == 1) return FormatElement(lit, 0);
  std::string out = "{";
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) out += ", ";
    out += FormatElement(lit, i);
  }
  return out + "}";
}

}  // namespace

std::string PrintProgram(const Program& program) {
  std::string out = absl::StrCat("program ", ProgramName(program.name),
                                 " replicas=", program.replica_count, " {\n");
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const Instruction& inst = program.instructions[i];
    absl::StrAppend(&out, "  %", i, " = ", std::string(OpName(inst.op)), "(");
    if (inst.op == Op::kParameter) {
      absl::StrAppend(&out, inst.parameter_index);
    } else if (inst.op == Op::kConstant) {
      out += FormatConstant(inst.literal);
    } else {
      for (size_t j = 0; j < inst.operands.size(); ++j) {
        absl::StrAppend(&out, j > 0 ? ", %" : "%", inst.operands[j]);
      }
    }
    out += ")";
    for (const auto& [name, values] : inst.attrs) {
      absl::StrAppend(&out, ", ", name, "={", absl::StrJoin(values, ","), "}");
    }
    absl::StrAppend(&out, " : ", inst.shape.ToString(), "\n");
  }
  for (const Alias& alias : program.aliases) {
    absl::StrAppend(&out, "  alias output ", alias.output_index, " = parameter ",
                    alias.parameter_index, "\n");
  }
  out += "  return (";
  for (size_t i = 0; i < program.results.size(); ++i) {
    absl::StrAppend(&out, i > 0 ? ", %" : "%", program.results[i]);
  }
  out += ")\n}\n";
  return out;
}

}  // namespace seam::ir

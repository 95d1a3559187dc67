// The pieces of StableHLO text: types, attribute values, constants (floats as hex bit
// patterns) and the Writer of generic-form ops (docs/stablehlo.md).
#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "src/ir/bf16.h"
#include "src/stablehlo/emit_internal.h"

namespace seam::stablehlo::internal {
namespace {

template <typename T>
T Load(const uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

std::string Hex(uint64_t bits, int digits) {
  char buffer[24];
  std::snprintf(buffer, sizeof(buffer), "0x%0*" PRIX64, digits, bits);
  return buffer;
}

// Element `index` of a literal, as StableHLO text: the bit pattern of a float (NaN
// payloads, -0, infinities and denormals kept), an integer in decimal, true or false.
void AppendElement(std::string* out, const ir::Literal& literal, int64_t index) {
  const uint8_t* at = literal.bytes.data() + index * ir::DTypeSize(literal.shape.dtype);
  switch (literal.shape.dtype) {
    case ir::DType::kF32:
      out->append(Hex(Load<uint32_t>(at), 8));
      return;
    case ir::DType::kF64:
      out->append(Hex(Load<uint64_t>(at), 16));
      return;
    case ir::DType::kBF16:
      out->append(Hex(Load<uint16_t>(at), 4));
      return;
    case ir::DType::kS32:
      absl::StrAppend(out, Load<int32_t>(at));
      return;
    case ir::DType::kS64:
      absl::StrAppend(out, Load<int64_t>(at));
      return;
    case ir::DType::kPred:
      out->append(*at != 0 ? "true" : "false");
      return;
  }
}

// Whether every element has the same text (pred: the same truth value).
bool IsSplat(const ir::Literal& literal, int64_t count) {
  const size_t size = ir::DTypeSize(literal.shape.dtype);
  const uint8_t* first = literal.bytes.data();
  for (int64_t i = 1; i < count; ++i) {
    const uint8_t* at = first + i * size;
    const bool same = literal.shape.dtype == ir::DType::kPred ? ((*at != 0) == (*first != 0))
                                                              : std::memcmp(at, first, size) == 0;
    if (!same) return false;
  }
  return true;
}

}  // namespace

const char* ElementType(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kF32:
      return "f32";
    case ir::DType::kF64:
      return "f64";
    case ir::DType::kBF16:
      return "bf16";
    case ir::DType::kS32:
      return "i32";
    case ir::DType::kS64:
      return "i64";
    case ir::DType::kPred:
      return "i1";
  }
  return "invalid";
}

std::string TensorType(const ir::Shape& shape) {
  // Formatted in place: every value's type is made once, so this runs once per op.
  char buffer[32];
  std::string text = "tensor<";
  for (int64_t d : shape.dims) {
    char* end = std::to_chars(buffer, buffer + sizeof(buffer) - 1, d).ptr;
    *end++ = 'x';
    text.append(buffer, end);
  }
  text.append(ElementType(shape.dtype));
  text.push_back('>');
  return text;
}

std::string I64Array(const std::vector<int64_t>& values) {
  std::string text = "array<i64";
  for (size_t i = 0; i < values.size(); ++i)
    absl::StrAppend(&text, i == 0 ? ": " : ", ", values[i]);
  return text + ">";
}

std::string Bracketed(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) absl::StrAppend(&text, i == 0 ? "" : ", ", values[i]);
  return text + "]";
}

std::string PaddingAttr(const std::vector<int64_t>& low, const std::vector<int64_t>& high) {
  std::string text = "dense<[";
  for (size_t i = 0; i < low.size(); ++i) {
    absl::StrAppend(&text, i == 0 ? "[" : ", [", low[i], ", ", high[i], "]");
  }
  absl::StrAppend(&text, "]> : tensor<", low.size(), "x2xi64>");
  return text;
}

std::string FloatHex(ir::DType dtype, double value) {
  if (dtype == ir::DType::kF64) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return Hex(bits, 16);
  }
  const auto f = static_cast<float>(value);
  if (dtype == ir::DType::kBF16) return Hex(ir::FloatToBF16(f), 4);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return Hex(bits, 8);
}

std::string ScalarText(ir::DType dtype, double value) {
  if (ir::IsFloat(dtype)) return FloatHex(dtype, value);
  if (dtype == ir::DType::kPred) return value != 0 ? "true" : "false";
  return absl::StrCat(static_cast<int64_t>(value));
}

std::string IdentityText(ir::DType dtype, ir::Combiner combiner) {
  const double inf = std::numeric_limits<double>::infinity();
  const bool s32 = dtype == ir::DType::kS32;
  switch (combiner) {
    case ir::Combiner::kSum:
    case ir::Combiner::kNone:
      return ScalarText(dtype, 0);
    case ir::Combiner::kProduct:
      return ScalarText(dtype, 1);
    case ir::Combiner::kMax:
      if (ir::IsFloat(dtype)) return FloatHex(dtype, -inf);
      return s32 ? absl::StrCat(std::numeric_limits<int32_t>::min())
                 : absl::StrCat(std::numeric_limits<int64_t>::min());
    case ir::Combiner::kMin:
      if (ir::IsFloat(dtype)) return FloatHex(dtype, inf);
      return s32 ? absl::StrCat(std::numeric_limits<int32_t>::max())
                 : absl::StrCat(std::numeric_limits<int64_t>::max());
  }
  return ScalarText(dtype, 0);
}

std::string DenseLiteral(const ir::Literal& literal) {
  const std::vector<int64_t>& dims = literal.shape.dims;
  const int64_t count = literal.shape.num_elements();
  std::string text = "dense<";
  if (count == 0) return text + ">";
  if (dims.empty() || IsSplat(literal, count)) {
    AppendElement(&text, literal, 0);
    return text + ">";
  }
  // suffix[d]: the elements one step of dimension d - 1 spans; an element at a multiple of
  // suffix[d] opens a bracket of dimension d, one before a multiple closes it.
  std::vector<int64_t> suffix(dims.size());
  int64_t span = 1;
  for (size_t d = dims.size(); d-- > 0;) suffix[d] = span *= dims[d];
  text.reserve(text.size() + static_cast<size_t>(count) * 12);
  for (int64_t e = 0; e < count; ++e) {
    if (e > 0) text.append(", ");
    for (int64_t s : suffix) {
      if (e % s == 0) text.push_back('[');
    }
    AppendElement(&text, literal, e);
    for (int64_t s : suffix) {
      if ((e + 1) % s == 0) text.push_back(']');
    }
  }
  return text + ">";
}

void Writer::Indent(int extra) {
  static constexpr char kSpaces[] = "                                                ";
  size_t width = static_cast<size_t>(indent_) + static_cast<size_t>(extra);
  while (width > 0) {
    const size_t n = std::min(width, sizeof(kSpaces) - 1);
    out_->append(kSpaces, n);
    width -= n;
  }
}

void Writer::WriteSignature(const std::vector<Value>& operands, const std::vector<Value>& results) {
  WriteOperandTypes(operands);
  if (results.size() != 1) out_->push_back('(');
  for (size_t i = 0; i < results.size(); ++i) {
    if (i > 0) out_->append(", ");
    out_->append(results[i].Type());
  }
  if (results.size() != 1) out_->push_back(')');
  out_->push_back('\n');
}

void Writer::WriteOperandTypes(const std::vector<Value>& operands) {
  out_->append(" : (");
  for (size_t i = 0; i < operands.size(); ++i) {
    if (i > 0) out_->append(", ");
    out_->append(operands[i].Type());
  }
  out_->append(") -> ");
}

void Writer::WriteHead(absl::string_view result, size_t results, absl::string_view name,
                       const std::vector<Value>& operands) {
  Indent();
  out_->append(result.data(), result.size());
  if (results != 1) absl::StrAppend(out_, ":", results);
  out_->append(" = \"");
  out_->append(name.data(), name.size());
  out_->append("\"(");
  for (size_t i = 0; i < operands.size(); ++i) {
    if (i > 0) out_->append(", ");
    out_->append(operands[i].name);
  }
  out_->push_back(')');
}

void Writer::WriteRegions(const std::vector<Region>& regions) {
  out_->append(" (");
  for (size_t r = 0; r < regions.size(); ++r) {
    out_->append(r == 0 ? "{\n" : ", {\n");
    std::vector<Value> arguments;
    Indent(2);
    out_->append("^bb0(");
    for (size_t i = 0; i < regions[r].arguments.size(); ++i) {
      arguments.push_back(Typed(Value{NewName(), regions[r].arguments[i], ""}));
      absl::StrAppend(out_, i == 0 ? "" : ", ", arguments.back().name, ": ", arguments.back().type);
    }
    out_->append("):\n");
    Writer body(out_, counter_, indent_ + 4);
    regions[r].body(body, arguments);
    Indent();
    out_->push_back('}');
  }
  out_->push_back(')');
}

std::vector<Value> Writer::TypedOps(absl::string_view name, const std::vector<Value>& operands,
                                    const std::vector<Value>& results, absl::string_view attributes,
                                    const std::vector<Region>& regions) {
  const std::string result = NewName();
  WriteHead(result, results.size(), name, operands);
  if (!regions.empty()) WriteRegions(regions);
  if (!attributes.empty()) absl::StrAppend(out_, " {", attributes, "}");
  std::vector<Value> values;
  values.reserve(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    values.push_back(Typed(results[i]));
    values.back().name = results.size() == 1 ? result : absl::StrCat(result, "#", i);
  }
  WriteSignature(operands, values);
  return values;
}

std::vector<Value> Writer::Ops(absl::string_view name, const std::vector<Value>& operands,
                               const std::vector<ir::Shape>& results, absl::string_view attributes,
                               const std::vector<Region>& regions) {
  std::vector<Value> typed;
  typed.reserve(results.size());
  for (const ir::Shape& shape : results) typed.push_back(Value{"", shape, ""});
  return TypedOps(name, operands, typed, attributes, regions);
}

// The one-result form written directly (the common case: no vectors of results).
Value Writer::Op(absl::string_view name, const std::vector<Value>& operands,
                 const ir::Shape& result, absl::string_view attributes,
                 const std::vector<Region>& regions) {
  Value value{NewName(), result, TensorType(result)};
  WriteHead(value.name, 1, name, operands);
  if (!regions.empty()) WriteRegions(regions);
  if (!attributes.empty()) {
    out_->append(" {");
    out_->append(attributes.data(), attributes.size());
    out_->push_back('}');
  }
  WriteOperandTypes(operands);
  out_->append(value.type);
  out_->push_back('\n');
  return value;
}

Value Writer::Constant(const ir::Literal& literal) {
  Indent();
  Value value = Typed(Value{NewName(), literal.shape, ""});
  absl::StrAppend(out_, value.name, " = stablehlo.constant ", DenseLiteral(literal), " : ",
                  value.type, "\n");
  return value;
}

Value Writer::Splat(const ir::Shape& shape, absl::string_view text) {
  Indent();
  Value value = Typed(Value{NewName(), shape, ""});
  absl::StrAppend(out_, value.name, " = stablehlo.constant dense<",
                  shape.num_elements() == 0 ? "" : text, "> : ", value.type, "\n");
  return value;
}

void Writer::Return(const std::vector<Value>& values) {
  Indent();
  out_->append("\"stablehlo.return\"(");
  for (size_t i = 0; i < values.size(); ++i) {
    absl::StrAppend(out_, i == 0 ? "" : ", ", values[i].name);
  }
  out_->append(") : (");
  for (size_t i = 0; i < values.size(); ++i) {
    absl::StrAppend(out_, i == 0 ? "" : ", ", values[i].Type());
  }
  out_->append(") -> ()\n");
}

Value Writer::Compare(absl::string_view direction, const Value& a, const Value& b,
                      absl::string_view compare_type) {
  std::string attributes =
      absl::StrCat("comparison_direction = #stablehlo<comparison_direction ", direction, ">");
  if (!compare_type.empty()) {
    absl::StrAppend(&attributes, ", compare_type = #stablehlo<comparison_type ", compare_type, ">");
  }
  return Op("stablehlo.compare", {a, b}, ir::Shape{ir::DType::kPred, a.shape.dims}, attributes);
}

bool AllAre(const std::vector<int64_t>& values, int64_t value) {
  for (int64_t v : values) {
    if (v != value) return false;
  }
  return true;
}

void AppendField(std::string* text, absl::string_view name, const std::vector<int64_t>& values) {
  if (values.empty()) return;
  absl::StrAppend(text, text->back() == '<' ? "" : ", ", name, " = ", Bracketed(values));
}

std::string OptionalArray(absl::string_view name, const std::vector<int64_t>& values) {
  if (AllAre(values, 1)) return "";
  return absl::StrCat(", ", name, " = ", I64Array(values));
}

std::string OptionalPadding(const std::vector<int64_t>& low, const std::vector<int64_t>& high) {
  if (AllAre(low, 0) && AllAre(high, 0)) return "";
  return absl::StrCat(", padding = ", PaddingAttr(low, high));
}

absl::string_view CombinerOpName(ir::Combiner combiner) {
  switch (combiner) {
    case ir::Combiner::kSum:
    case ir::Combiner::kNone:
      return "stablehlo.add";
    case ir::Combiner::kProduct:
      return "stablehlo.multiply";
    case ir::Combiner::kMax:
      return "stablehlo.maximum";
    case ir::Combiner::kMin:
      return "stablehlo.minimum";
  }
  return "stablehlo.add";
}

Region BinaryRegion(ir::DType dtype, absl::string_view op) {
  return Region{{Scalar(dtype), Scalar(dtype)},
                [op = std::string(op)](Writer& w, const std::vector<Value>& args) {
                  w.Return({w.Binary(op, args[0], args[1])});
                }};
}

const std::vector<int64_t>& Lowering::Attr(const char* name) const {
  static const std::vector<int64_t> kNone;
  auto found = inst.attrs.find(name);
  return found == inst.attrs.end() ? kNone : found->second;
}

}  // namespace seam::stablehlo::internal

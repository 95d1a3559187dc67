// Shared by the emitter's files (emit*.cc): the text of types, attributes and constants,
// and the Writer that appends ops in MLIR's generic form (docs/stablehlo.md).
#ifndef SEAM_STABLEHLO_EMIT_INTERNAL_H_
#define SEAM_STABLEHLO_EMIT_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "src/ir/program.h"
#include "src/stablehlo/emit_options.h"

namespace seam::stablehlo::internal {

// "f32", "f64", "bf16", "i32", "i64", "i1".
const char* ElementType(ir::DType dtype);
// "tensor<4x3xf32>", "tensor<f32>" (a scalar), "tensor<0x3xf32>".
std::string TensorType(const ir::Shape& shape);
// "array<i64: 1, 2>", "array<i64>" when empty.
std::string I64Array(const std::vector<int64_t>& values);
// "[1, 2]" (dimension lists inside #stablehlo.dot<...>, #stablehlo.gather<...>).
std::string Bracketed(const std::vector<int64_t>& values);
// `dense<[[lo0, hi0], [lo1, hi1]]> : tensor<2x2xi64>` (padding).
std::string PaddingAttr(const std::vector<int64_t>& low, const std::vector<int64_t>& high);
// The hex bit pattern of a float of `dtype` (f32, f64 or bf16) holding `value` rounded to
// the dtype: "0x3F800000". Used for the inits and bounds the lowerings need.
std::string FloatHex(ir::DType dtype, double value);
// The scalar text of `value` in `dtype`: hex for floats, decimal for integers, true/false.
std::string ScalarText(ir::DType dtype, double value);
// The identity of a fold with `combiner` in `dtype` (0, 1, the lowest value with -inf for
// floats, the highest), as ScalarText.
std::string IdentityText(ir::DType dtype, ir::Combiner combiner);
// `dense<...>` of a literal: nested brackets row-major, one value for a splat, `dense<>`
// when empty (docs/stablehlo.md, "Constants").
std::string DenseLiteral(const ir::Literal& literal);
// The shape of a scalar of `dtype`.
inline ir::Shape Scalar(ir::DType dtype) { return ir::Shape{dtype, {}}; }

// A value of the function or of a region: its SSA name, its shape and its type's text. The
// Writer fills `type` from the shape when it makes the value (each value's type is written
// once per use, so it is made once); a value given a type keeps it (the tensor<3xui64>
// state of rng_bit_generator, which no seam dtype describes).
struct Value {
  std::string name;
  ir::Shape shape;
  std::string type = {};

  const std::string& Type() const { return type; }
};
// `value` with its type's text filled in from its shape where it has none.
inline Value Typed(Value value) {
  if (value.type.empty()) value.type = TensorType(value.shape);
  return value;
}

class Writer;
// A region: its block's argument shapes and a body that writes the ops and ends with
// Writer::Return.
struct Region {
  std::vector<ir::Shape> arguments;
  std::function<void(Writer&, const std::vector<Value>&)> body;
};

// Appends ops to `out`, naming every value %0, %1, ... from one counter shared by the
// function and its regions (MLIR's regions of these ops see the enclosing names, so names
// are never reused).
class Writer {
 public:
  Writer(std::string* out, int* counter, int indent)
      : out_(out), counter_(counter), indent_(indent) {}

  // `%N = "name"(operands) ({regions}) {attributes} : (operand types) -> result type`.
  Value Op(absl::string_view name, const std::vector<Value>& operands, const ir::Shape& result,
           absl::string_view attributes = {}, const std::vector<Region>& regions = {});
  // The same with several results: `%N:k = ...`, used as %N#i.
  std::vector<Value> Ops(absl::string_view name, const std::vector<Value>& operands,
                         const std::vector<ir::Shape>& results, absl::string_view attributes = {},
                         const std::vector<Region>& regions = {});
  // The same with each result's type written out (Value::type), for types outside seam's.
  std::vector<Value> TypedOps(absl::string_view name, const std::vector<Value>& operands,
                              const std::vector<Value>& results, absl::string_view attributes = {},
                              const std::vector<Region>& regions = {});
  // `%N = stablehlo.constant dense<...> : tensor<...>`.
  Value Constant(const ir::Literal& literal);
  // A constant of `shape` whose every element is `text` (ScalarText's form).
  Value Splat(const ir::Shape& shape, absl::string_view text);
  // `"stablehlo.return"(values) : (types) -> ()`, a region's last op.
  void Return(const std::vector<Value>& values);

  // Shorthands for region bodies and small lowerings.
  Value Binary(absl::string_view name, const Value& a, const Value& b) {
    return Op(name, {a, b}, a.shape);
  }
  // `stablehlo.compare` with `direction` (EQ, NE, LT, LE, GT, GE) and, when not empty, a
  // compare_type (TOTALORDER).
  Value Compare(absl::string_view direction, const Value& a, const Value& b,
                absl::string_view compare_type = {});
  Value Select(const Value& p, const Value& a, const Value& b) {
    return Op("stablehlo.select", {p, a, b}, a.shape);
  }

 private:
  std::string NewName() { return absl::StrCat("%", (*counter_)++); }
  void Indent(int extra = 0);
  void WriteRegions(const std::vector<Region>& regions);
  void WriteSignature(const std::vector<Value>& operands, const std::vector<Value>& results);
  // `: (operand types) -> `, before the result types.
  void WriteOperandTypes(const std::vector<Value>& operands);
  // `%N[:k] = "name"(operands)`, indented.
  void WriteHead(absl::string_view result, size_t results, absl::string_view name,
                 const std::vector<Value>& operands);

  std::string* out_;
  int* counter_;
  int indent_;
};

// Whether every entry is `value` (true for an empty list).
bool AllAre(const std::vector<int64_t>& values, int64_t value);
// Appends `name = [..]` to a struct attribute (#stablehlo.dot<, #stablehlo.gather<, ...),
// with a comma after an earlier field; an empty list is omitted, as MLIR prints it.
void AppendField(std::string* text, absl::string_view name, const std::vector<int64_t>& values);
// `, name = array<i64: ...>` unless the list is empty or every entry is 1 (the default of
// strides and dilations: defaulted attributes are omitted).
std::string OptionalArray(absl::string_view name, const std::vector<int64_t>& values);
// `, padding = dense<...>` unless every entry is 0.
std::string OptionalPadding(const std::vector<int64_t>& low, const std::vector<int64_t>& high);

// A region of two scalars of `dtype` that returns `op` of them ("stablehlo.add", ...).
Region BinaryRegion(ir::DType dtype, absl::string_view op);
// The StableHLO op a combiner folds with: add, multiply, maximum, minimum.
absl::string_view CombinerOpName(ir::Combiner combiner);

// What every lowering gets: the instruction, its operands' values, the options.
struct Lowering {
  Writer& w;
  const ir::Instruction& inst;
  const std::vector<Value>& operands;
  const EmitOptions& options;

  const std::vector<int64_t>& Attr(const char* name) const;
  int64_t Single(const char* name) const { return Attr(name).at(0); }
};

// The lowerings by family (emit_data.cc, emit_reduce.cc, emit_dot.cc, emit_index.cc). Each
// returns the value of the instruction.
Value LowerIota(const Lowering& l);
Value LowerBroadcastInDim(const Lowering& l);
Value LowerTranspose(const Lowering& l);
Value LowerSlice(const Lowering& l);
Value LowerConcatenate(const Lowering& l);
Value LowerPad(const Lowering& l);

Value LowerReduce(const Lowering& l);
Value LowerArgReduce(const Lowering& l);
Value LowerCumsum(const Lowering& l);
Value LowerReduceWindow(const Lowering& l);
Value LowerSelectAndScatter(const Lowering& l);
Value LowerAllReduce(const Lowering& l);

Value LowerDotGeneral(const Lowering& l);
Value LowerConvolution(const Lowering& l);

Value LowerGather(const Lowering& l);
Value LowerScatter(const Lowering& l);
Value LowerRngBitGenerator(const Lowering& l);
Value LowerArgsort(const Lowering& l);

}  // namespace seam::stablehlo::internal

#endif  // SEAM_STABLEHLO_EMIT_INTERNAL_H_

// The StableHLO reader's mapping from the syntax tree to seam's IR (read_convert.cc: values,
// leaves, elementwise ops and data movement; read_convert_ops.cc: reductions, windows,
// gather/scatter, random bits, sort, all_reduce; read_bodies.cc: which region a body is;
// read_constant.cc: types and dense values). Internal to the reader.
#ifndef SEAM_STABLEHLO_READ_CONVERT_H_
#define SEAM_STABLEHLO_READ_CONVERT_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/ir/program.h"
#include "src/stablehlo/read_syntax.h"

namespace seam::stablehlo::convert {

using syntax::Attr;
using syntax::Block;
using syntax::Cat;
using syntax::Op;
using syntax::Pos;
using syntax::Type;

// The seam shape of a tensor type (ui64 has none: it appears only in the random state).
absl::StatusOr<ir::Shape> ShapeOf(const Type& type);
// A dense<...> attribute as a literal of `shape`.
absl::StatusOr<ir::Literal> DenseLiteral(const Attr& attr, const ir::Shape& shape);
// The integers of an array<i64: ...>, a [..] list of integers or an integer dense<...>.
absl::StatusOr<std::vector<int64_t>> IntsOf(const Attr& attr, std::string_view what);
// An Nx2 dense<[[lo, hi], ...]> padding: lows and highs.
absl::Status PaddingOf(const Attr& attr, int64_t rank, std::vector<int64_t>* low,
                       std::vector<int64_t>* high);

// What a region computes, as far as the reader cares (read_bodies.cc).
enum class Body {
  kOther,
  kAdd,
  kMultiply,
  kMaximum,
  kMinimum,
  kSecondArgument,  // returns its second argument (scatter_replace)
  kCompareGe,       // select_and_scatter's select
  kArgMax,          // two-operand reduce: first index of the maximum, NaN wins
  kArgMin,
  kSortAscending,  // argsort comparators (seam's order: NaN above +inf, -0 == +0)
  kSortDescending,
};
// `element` is the element type of the data operand (f32, i32, ...).
Body ClassifyBody(const Block& block, std::string_view element);
const char* BodyName(Body body);

class Converter {
 public:
  absl::StatusOr<ir::Program> Convert(const syntax::Module& module);

  struct Value {
    int inst = -1;
    Type type;
    std::string unsupported;  // non-empty: using the value is an error with this text
    int state_of = -1;        // a random state (bitcast of this i64[3] instruction)
  };
  static Value Plain(int inst, const Type& type) {
    Value v;
    v.inst = inst;
    v.type = type;
    return v;
  }

 private:
  absl::Status ConvertOp(const Op& op);
  absl::Status ConvertSimple(const Op& op, ir::Op seam_op);
  absl::Status ConvertConstant(const Op& op);
  absl::Status ConvertCompare(const Op& op);
  absl::Status ConvertDataMovement(const Op& op);
  absl::Status ConvertDot(const Op& op);
  absl::Status ConvertReduce(const Op& op);
  absl::Status ConvertArgReduce(const Op& op, Body body);
  absl::Status ConvertReduceWindow(const Op& op);
  absl::Status ConvertConvolution(const Op& op);
  absl::Status ConvertSelectAndScatter(const Op& op);
  absl::Status ConvertGather(const Op& op);
  absl::Status ConvertScatter(const Op& op);
  absl::Status ConvertBitcast(const Op& op);
  absl::Status ConvertRng(const Op& op);
  absl::Status ConvertSort(const Op& op);
  absl::Status ConvertAllReduce(const Op& op);
  absl::Status ConvertReturn(const Op& op, const std::vector<Type>& declared);

  // Checks the operand and result counts and that every operand is defined with its type;
  // fills `operands` with the seam instructions.
  absl::Status Operands(const Op& op, size_t operands, size_t results, std::vector<int>* out);
  absl::StatusOr<const Value*> Use(const syntax::ValueUse& use, const Type* type);
  // Attributes other than `allowed` are an error naming the first.
  absl::Status OnlyAttrs(const Op& op, std::initializer_list<const char*> allowed);
  const Attr* Find(const Op& op, const char* name);
  absl::StatusOr<const Attr*> Need(const Op& op, const char* name);
  // Appends an instruction (shape from `type`), returns its index.
  absl::StatusOr<int> Add(ir::Instruction inst, const Type& type, Pos pos);
  int AddShaped(ir::Instruction inst, Pos pos);
  absl::Status Define(const Op& op, int64_t result, const Value& value);
  // Leaves out constants no instruction and no result reads (renumbering the rest).
  void DropUnusedConstants();

  // A value's name and result index: %x is {"x", 0}, %x#1 is {"x", 1}.
  struct ValueKey {
    std::string_view name;
    int64_t index = 0;
    bool operator==(const ValueKey& other) const {
      return index == other.index && name == other.name;
    }
    template <typename H>
    friend H AbslHashValue(H h, const ValueKey& key) {
      return H::combine(std::move(h), absl::string_view(key.name.data(), key.name.size()),
                        key.index);
    }
  };

  ir::Program program_;
  absl::flat_hash_map<ValueKey, Value> values_;
  std::vector<Pos> positions_;
};

}  // namespace seam::stablehlo::convert

#endif  // SEAM_STABLEHLO_READ_CONVERT_H_

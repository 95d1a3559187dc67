// Which computation a region is (read_convert.h's Body). One-op bodies (add, multiply,
// maximum, minimum, compare GE, returning the second argument) are matched by their
// structure. The argmax/argmin reduce body and the argsort comparator can be written many
// ways, so they are recognised by what they compute: a small scalar interpreter runs the
// body on every pair of probe values (±0, ±inf, NaN of both signs, ties, both index
// orders) and the body is accepted when every answer is seam's (docs/stablehlo.md).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/stablehlo/read_convert.h"

namespace seam::stablehlo::convert {
namespace {

// A scalar of the interpreter: floats, integers (small probe values, exact in double) and
// booleans are all held as double.
using Scalar = double;

// IEEE-754 totalOrder key of a double: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
int64_t TotalOrderKey(double x) {
  int64_t bits = 0;
  std::memcpy(&bits, &x, sizeof(bits));
  return bits < 0 ? (bits ^ std::numeric_limits<int64_t>::max()) : bits;
}

std::optional<bool> Compare(const Op& op, double a, double b) {
  auto dir = op.attrs.find("comparison_direction");
  if (dir == op.attrs.end()) return std::nullopt;
  auto type = op.attrs.find("compare_type");
  const std::string_view d = dir->second.word;
  if (type != op.attrs.end() && type->second.word == "TOTALORDER") {
    const int64_t ka = TotalOrderKey(a), kb = TotalOrderKey(b);
    if (d == "EQ") return ka == kb;
    if (d == "NE") return ka != kb;
    if (d == "LT") return ka < kb;
    if (d == "LE") return ka <= kb;
    if (d == "GT") return ka > kb;
    if (d == "GE") return ka >= kb;
    return std::nullopt;
  }
  if (d == "EQ") return a == b;
  if (d == "NE") return a != b;
  if (d == "LT") return a < b;
  if (d == "LE") return a <= b;
  if (d == "GT") return a > b;
  if (d == "GE") return a >= b;
  return std::nullopt;
}

std::optional<double> ConstantValue(const Op& op) {
  auto it = op.attrs.find("value");
  if (it == op.attrs.end() || op.result_types.size() != 1) return std::nullopt;
  absl::StatusOr<ir::Shape> shape = ShapeOf(op.result_types[0]);
  if (!shape.ok() || shape->num_elements() != 1) return std::nullopt;
  absl::StatusOr<ir::Literal> lit = DenseLiteral(it->second, *shape);
  if (!lit.ok()) return std::nullopt;
  const uint8_t* b = lit->bytes.data();
  switch (shape->dtype) {
    case ir::DType::kF32: {
      float f;
      std::memcpy(&f, b, 4);
      return f;
    }
    case ir::DType::kF64: {
      double f;
      std::memcpy(&f, b, 8);
      return f;
    }
    case ir::DType::kBF16: {
      uint32_t w = static_cast<uint32_t>(b[0] | (b[1] << 8)) << 16;
      float f;
      std::memcpy(&f, &w, 4);
      return f;
    }
    case ir::DType::kS32: {
      int32_t i;
      std::memcpy(&i, b, 4);
      return i;
    }
    case ir::DType::kS64: {
      int64_t i;
      std::memcpy(&i, b, 8);
      return static_cast<double>(i);
    }
    case ir::DType::kPred:
      return b[0] != 0 ? 1.0 : 0.0;
  }
  return std::nullopt;
}

std::optional<double> Binary(std::string_view n, double a, double b) {
  if (n == "stablehlo.add") return a + b;
  if (n == "stablehlo.subtract") return a - b;
  if (n == "stablehlo.multiply") return a * b;
  if (n == "stablehlo.maximum" || n == "stablehlo.minimum") {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
    return n == "stablehlo.maximum" ? std::fmax(a, b) : std::fmin(a, b);
  }
  if (n == "stablehlo.and") return (a != 0 && b != 0) ? 1.0 : 0.0;
  if (n == "stablehlo.or") return (a != 0 || b != 0) ? 1.0 : 0.0;
  return std::nullopt;
}

// The interpreter's values by name (a body has a few: a list is enough). A later
// definition of a name shadows an earlier one.
class Env {
 public:
  void Set(std::string_view name, Scalar value) { entries_.push_back({name, value}); }
  const Scalar* Get(const syntax::ValueUse& use) const {
    if (use.index != 0) return nullptr;  // every value of a body has one result
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
      if (it->first == use.name) return &it->second;
    }
    return nullptr;
  }

 private:
  std::vector<std::pair<std::string_view, Scalar>> entries_;
};

// Runs the body on `args`; nullopt when it holds an op the interpreter does not know.
std::optional<std::vector<Scalar>> Run(const Block& block, const std::vector<Scalar>& args) {
  Env env;
  for (size_t i = 0; i < block.arg_names.size(); ++i) env.Set(block.arg_names[i], args[i]);
  for (const Op& op : block.ops) {
    std::vector<Scalar> in;
    for (const syntax::ValueUse& use : op.operands) {
      const Scalar* value = env.Get(use);
      if (value == nullptr) return std::nullopt;
      in.push_back(*value);
    }
    if (op.name == "stablehlo.return" || op.name == "return") return in;
    std::optional<Scalar> out;
    const std::string_view n = op.name;
    if (n == "stablehlo.constant" && in.empty()) {
      out = ConstantValue(op);
    } else if (n == "stablehlo.compare" && in.size() == 2) {
      std::optional<bool> c = Compare(op, in[0], in[1]);
      if (c) out = *c ? 1.0 : 0.0;
    } else if (n == "stablehlo.select" && in.size() == 3) {
      out = in[0] != 0 ? in[1] : in[2];
    } else if (n == "stablehlo.not" && in.size() == 1) {
      out = in[0] != 0 ? 0.0 : 1.0;
    } else if (n == "stablehlo.convert" && in.size() == 1) {
      out = in[0];
    } else if (in.size() == 2) {
      out = Binary(n, in[0], in[1]);
    }
    if (!out || op.result.empty() || op.num_results != 1) return std::nullopt;
    env.Set(op.result, *out);
  }
  return std::nullopt;
}

std::vector<double> ProbeValues(std::string_view element) {
  if (element[0] == 'f' || element == "bf16") {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {-inf, -2.5, -0.0, 0.0, 1.5, 3.0, inf, nan, -nan};
  }
  return {-3, 0, 2, 7};
}

bool SameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// argmax (`max`) or argmin over (a, ai, b, bi): seam's first index, NaN winning.
bool IsArgReduce(const Block& block, std::string_view element, bool max) {
  const std::vector<double> values = ProbeValues(element);
  for (double a : values) {
    for (double b : values) {
      for (auto [ai, bi] : {std::pair<double, double>{0, 1}, {1, 0}, {2, 2}}) {
        std::optional<std::vector<Scalar>> got = Run(block, {a, ai, b, bi});
        if (!got || got->size() != 2) return false;
        const bool an = std::isnan(a), bn = std::isnan(b);
        const bool better = max ? a > b : a < b;
        const bool take = (an && !bn) || better || ((a == b || (an && bn)) && ai < bi);
        if ((*got)[1] != (take ? ai : bi) || !SameValue((*got)[0], take ? a : b)) return false;
      }
    }
  }
  return true;
}

// The argsort comparator over (a, b, ai, bi): seam's order (NaN above +inf, -0 == +0).
bool IsSortComparator(const Block& block, std::string_view element, bool ascending) {
  const std::vector<double> values = ProbeValues(element);
  for (double a : values) {
    for (double b : values) {
      for (auto [ai, bi] : {std::pair<double, double>{0, 1}, {1, 0}}) {
        std::optional<std::vector<Scalar>> got = Run(block, {a, b, ai, bi});
        if (!got || got->size() != 1) return false;
        bool want;
        if (std::isnan(a) || std::isnan(b)) {
          want = ascending ? (!std::isnan(a) && std::isnan(b)) : (std::isnan(a) && !std::isnan(b));
        } else {
          want = ascending ? a < b : a > b;  // -0 == +0
        }
        if (((*got)[0] != 0) != want) return false;
      }
    }
  }
  return true;
}

// Whether `use` names the value `name` (result 0).
bool IsName(const syntax::ValueUse& use, std::string_view name) {
  return use.index == 0 && use.name == name;
}

// The one op of a two-argument body applied to (arg0, arg1) in either order (or, for
// `ordered`, in that order only) and returned.
const Op* SingleOp(const Block& block, bool ordered) {
  if (block.arg_names.size() != 2 || block.ops.size() != 2) return nullptr;
  const Op& op = block.ops[0];
  const Op& ret = block.ops[1];
  if (ret.operands.size() != 1 || !IsName(ret.operands[0], op.result) || op.operands.size() != 2) {
    return nullptr;
  }
  const syntax::ValueUse& x = op.operands[0];
  const syntax::ValueUse& y = op.operands[1];
  const std::string_view a = block.arg_names[0];
  const std::string_view b = block.arg_names[1];
  if ((IsName(x, a) && IsName(y, b)) || (!ordered && IsName(x, b) && IsName(y, a))) return &op;
  return nullptr;
}

}  // namespace

const char* BodyName(Body body) {
  switch (body) {
    case Body::kAdd:
      return "add";
    case Body::kMultiply:
      return "multiply";
    case Body::kMaximum:
      return "maximum";
    case Body::kMinimum:
      return "minimum";
    case Body::kSecondArgument:
      return "second argument";
    case Body::kCompareGe:
      return "compare GE";
    case Body::kArgMax:
      return "argmax";
    case Body::kArgMin:
      return "argmin";
    case Body::kSortAscending:
      return "ascending comparator";
    case Body::kSortDescending:
      return "descending comparator";
    case Body::kOther:
      break;
  }
  return "unrecognised";
}

Body ClassifyBody(const Block& block, std::string_view element) {
  for (const Type& t : block.arg_types) {
    if (!t.dims.empty()) return Body::kOther;
  }
  const size_t args = block.arg_names.size();
  if (args == 2 && block.ops.size() == 1 && block.ops[0].operands.size() == 1 &&
      IsName(block.ops[0].operands[0], block.arg_names[1])) {
    return Body::kSecondArgument;
  }
  if (const Op* op = SingleOp(block, false); op != nullptr) {
    if (op->name == "stablehlo.add") return Body::kAdd;
    if (op->name == "stablehlo.multiply") return Body::kMultiply;
    if (op->name == "stablehlo.maximum") return Body::kMaximum;
    if (op->name == "stablehlo.minimum") return Body::kMinimum;
  }
  if (const Op* op = SingleOp(block, true); op != nullptr && op->name == "stablehlo.compare") {
    auto dir = op->attrs.find("comparison_direction");
    auto type = op->attrs.find("compare_type");
    const bool ieee =
        type == op->attrs.end() || type->second.word == "FLOAT" || type->second.word == "SIGNED";
    if (dir != op->attrs.end() && dir->second.word == "GE" && ieee) return Body::kCompareGe;
  }
  if (args == 4 && block.ops.size() <= 64) {
    if (IsArgReduce(block, element, true)) return Body::kArgMax;
    if (IsArgReduce(block, element, false)) return Body::kArgMin;
    if (IsSortComparator(block, element, true)) return Body::kSortAscending;
    if (IsSortComparator(block, element, false)) return Body::kSortDescending;
  }
  return Body::kOther;
}

}  // namespace seam::stablehlo::convert

#include "src/ir/reference_scalar.h"

#include <cmath>
#include <limits>

#include "src/ir/bf16.h"

namespace seam::ir::reference {
namespace {

int64_t MinOf(DType dtype) {
  return dtype == DType::kS32 ? std::numeric_limits<int32_t>::min()
                              : std::numeric_limits<int64_t>::min();
}

int64_t MaxOf(DType dtype) {
  return dtype == DType::kS32 ? std::numeric_limits<int32_t>::max()
                              : std::numeric_limits<int64_t>::max();
}

// NaN wins; otherwise the larger, and +0 is larger than -0.
double Max(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

double Min(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

int64_t IntPower(DType dtype, int64_t base, int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return exponent % 2 == 0 ? 1 : -1;
    return 0;
  }
  uint64_t result = 1;
  uint64_t square = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exponent); e != 0; e >>= 1) {
    if (e & 1) result *= square;
    square *= square;
  }
  return WrapTo(dtype, result);
}

}  // namespace

double RoundTo(DType dtype, double x) {
  switch (dtype) {
    case DType::kF32:
      return static_cast<float>(x);
    case DType::kBF16:
      return BF16ToFloat(FloatToBF16(static_cast<float>(x)));
    case DType::kF64:
    case DType::kS32:
    case DType::kS64:
    case DType::kPred:
      break;
  }
  return x;
}

int64_t WrapTo(DType dtype, uint64_t x) {
  switch (dtype) {
    case DType::kS32:
      return static_cast<int32_t>(static_cast<uint32_t>(x));
    case DType::kPred:
      return x != 0;
    case DType::kS64:
    case DType::kF32:
    case DType::kF64:
    case DType::kBF16:
      break;
  }
  return static_cast<int64_t>(x);
}

double FloatUnary(Op op, double x) {
  switch (op) {
    case Op::kNeg:
      return -x;
    case Op::kAbs:
      return std::fabs(x);
    case Op::kSign:
      if (std::isnan(x) || x == 0) return x;
      return x > 0 ? 1 : -1;
    case Op::kExp:
      return std::exp(x);
    case Op::kLog:
      return std::log(x);
    case Op::kLog1p:
      return std::log1p(x);
    case Op::kTanh:
      return std::tanh(x);
    case Op::kLogistic:
      return 1 / (1 + std::exp(-x));
    case Op::kSqrt:
      return std::sqrt(x);
    case Op::kRsqrt:
      return 1 / std::sqrt(x);
    case Op::kFloor:
      return std::floor(x);
    case Op::kCeil:
      return std::ceil(x);
    case Op::kErf:
      return std::erf(x);
    case Op::kNot:  // integers and pred only
#define SEAM_CASES_UNARY 0
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#include "src/ir/op_cases.inc"
      break;  // not a float unary row: the evaluator asks for none
  }
  return std::numeric_limits<double>::quiet_NaN();
}

int64_t IntUnary(Op op, DType dtype, int64_t x) {
  auto u = static_cast<uint64_t>(x);
  switch (op) {
    case Op::kNeg:
      return WrapTo(dtype, 0 - u);
    case Op::kAbs:
      return x < 0 ? WrapTo(dtype, 0 - u) : x;
    case Op::kSign:
      return (x > 0) - (x < 0);
    case Op::kNot:
      return dtype == DType::kPred ? !x : WrapTo(dtype, ~u);
    // Floats only.
    case Op::kExp:
    case Op::kLog:
    case Op::kLog1p:
    case Op::kTanh:
    case Op::kLogistic:
    case Op::kSqrt:
    case Op::kRsqrt:
    case Op::kFloor:
    case Op::kCeil:
    case Op::kErf:
#define SEAM_CASES_UNARY 0
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#include "src/ir/op_cases.inc"
      break;  // not an integer unary row: the evaluator asks for none
  }
  return 0;
}

double FloatBinary(Op op, double a, double b) {
  switch (op) {
    case Op::kAdd:
      return a + b;
    case Op::kSubtract:
      return a - b;
    case Op::kMultiply:
      return a * b;
    case Op::kDivide:
      return a / b;
    case Op::kRemainder:
      return std::fmod(a, b);
    case Op::kPower:
      return std::pow(a, b);
    case Op::kMaximum:
      return Max(a, b);
    case Op::kMinimum:
      return Min(a, b);
    case Op::kAnd:  // integers and pred only
    case Op::kOr:
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 0
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#include "src/ir/op_cases.inc"
      break;  // not a float binary row: the evaluator asks for none
  }
  return std::numeric_limits<double>::quiet_NaN();
}

int64_t IntBinary(Op op, DType dtype, int64_t a, int64_t b) {
  auto ua = static_cast<uint64_t>(a);
  auto ub = static_cast<uint64_t>(b);
  switch (op) {
    case Op::kAdd:
      return WrapTo(dtype, ua + ub);
    case Op::kSubtract:
      return WrapTo(dtype, ua - ub);
    case Op::kMultiply:
      return WrapTo(dtype, ua * ub);
    case Op::kDivide:
      if (b == 0) return -1;
      if (a == MinOf(dtype) && b == -1) return a;
      return a / b;
    case Op::kRemainder:
      if (b == 0) return a;
      if (a == MinOf(dtype) && b == -1) return 0;
      return a % b;
    case Op::kPower:
      return IntPower(dtype, a, b);
    case Op::kMaximum:
      return a > b ? a : b;
    case Op::kMinimum:
      return a < b ? a : b;
    case Op::kAnd:
      return dtype == DType::kPred ? (a != 0 && b != 0) : static_cast<int64_t>(ua & ub);
    case Op::kOr:
      return dtype == DType::kPred ? (a != 0 || b != 0) : static_cast<int64_t>(ua | ub);
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 0
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#include "src/ir/op_cases.inc"
      break;  // not a binary row: the evaluator asks for none
  }
  return 0;
}

template <typename T>
bool CompareValues(Op op, T a, T b) {
  switch (op) {
    case Op::kEq:
      return a == b;
    case Op::kNe:
      return a != b;
    case Op::kLt:
      return a < b;
    case Op::kLe:
      return a <= b;
    case Op::kGt:
      return a > b;
    case Op::kGe:
      return a >= b;
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 0
#define SEAM_CASES_OTHER 1
#include "src/ir/op_cases.inc"
      break;  // not a compare row: the evaluator asks for none
  }
  return false;
}

bool CompareFloat(Op op, double a, double b) { return CompareValues(op, a, b); }

bool CompareInt(Op op, int64_t a, int64_t b) { return CompareValues(op, a, b); }

double ConvertToFloat(DType from, double f, int64_t i, DType to) {
  if (IsFloat(from)) return RoundTo(to, f);
  // Straight from the integer, so that s64 -> f32 is rounded once.
  switch (to) {
    case DType::kF32:
      return static_cast<float>(i);
    case DType::kBF16:
      return BF16ToFloat(FloatToBF16(static_cast<float>(i)));
    case DType::kF64:
    case DType::kS32:
    case DType::kS64:
    case DType::kPred:
      break;
  }
  return static_cast<double>(i);
}

int64_t ConvertToInt(DType from, double f, int64_t i, DType to) {
  if (!IsFloat(from)) return WrapTo(to, static_cast<uint64_t>(i));
  if (to == DType::kPred) return f != 0;
  if (std::isnan(f)) return 0;
  // Truncate toward zero, saturating at the ends of the range. MaxOf(s64) as a double is
  // 2^63, just beyond the range, so >= is the right test for both widths.
  if (f >= static_cast<double>(MaxOf(to))) return MaxOf(to);
  if (f <= static_cast<double>(MinOf(to))) return MinOf(to);
  return static_cast<int64_t>(std::trunc(f));
}

}  // namespace seam::ir::reference

// The public seam::Tensor API over the lazy graph: handles, host data, reads and sync.
// Operations live in ops_*.cc, gradients in autodiff.cc.
#include "seam/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/base/object_pool.h"
#include "src/ir/bf16.h"
#include "src/ir/shape_rules.h"
#include "src/ir/text.h"
#include "src/lazy/donation.h"
#include "src/lazy/eager.h"
#include "src/lazy/fast_shape.h"
#include "src/lazy/graph_executor.h"
#include "src/lazy/lazy_tensor.h"
#include "src/lazy/recompile_explainer.h"
#include "src/lazy/runtime.h"
#include "src/lazy/step_plan.h"
#include "src/lazy/tensor_internal.h"

namespace seam {

using lazy::Node;
using lazy::NodePtr;
using lazy::TensorImpl;

Tensor TensorAccess::Wrap(NodePtr node) {
  auto impl = std::allocate_shared<TensorImpl>(base::PoolAllocator<TensorImpl>(), std::move(node));
  lazy::RegisterTensor(impl);
  return Tensor(std::move(impl));
}

const std::shared_ptr<TensorImpl>& TensorAccess::Impl(const Tensor& tensor, const char* what) {
  if (!tensor.impl_)
    throw Error(ErrorCode::kInvalidArgument, absl::StrCat(what, ": tensor is undefined"));
  return tensor.impl_;
}

namespace lazy {

namespace {

struct UserOp {
  const char* op = nullptr;  // null: no scope is open
  const ir::Shape* input = nullptr;
  const char* arg = nullptr;
  int64_t value = 0;
};
thread_local UserOp t_user_op;

// `message` with the open scope's operation in place of the leading "<internal op>: ".
std::string InUserTerms(absl::string_view message) {
  const UserOp& user = t_user_op;
  if (user.op == nullptr) return std::string(message);
  size_t colon = message.find(": ");
  bool named = colon != absl::string_view::npos && colon > 0 &&
               std::all_of(message.begin(), message.begin() + colon, [](char c) {
                 return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_';
               });
  if (named) message.remove_prefix(colon + 2);
  std::string args = user.arg == nullptr ? "" : absl::StrCat("(", user.arg, "=", user.value, ")");
  return absl::StrCat(user.op, args, " on ", user.input->ToString(), ": ", message);
}

}  // namespace

UserOpScope::UserOpScope(const char* op, const ir::Shape& input, const char* arg, int64_t value)
    : outermost_(t_user_op.op == nullptr) {
  if (outermost_) t_user_op = UserOp{op, &input, arg, value};
}

UserOpScope::~UserOpScope() {
  if (outermost_) t_user_op = UserOp{};
}

void Throw(const absl::Status& status) {
  throw Error(static_cast<ErrorCode>(status.code()), InUserTerms(status.message()));
}

void ThrowInvalid(const std::string& message) {
  throw Error(ErrorCode::kInvalidArgument, InUserTerms(message));
}

NodePtr NodeOf(const Tensor& tensor, const char* what) {
  return TensorAccess::Impl(tensor, what)->node();
}

namespace {

void CheckOperandsNotDonated(ir::Op op, const NodeList& operands) {
  for (const NodePtr& operand : operands) {
    if (operand->is_leaf() && operand->value->donated) {
      Throw(CheckNotDonated(*operand->value, ir::OpName(op)));
    }
  }
}

// The last step of recording: in eager mode, the node runs at once.
NodePtr Finish(std::shared_ptr<Node> node) {
  if (EagerKnownOff()) return node;
  absl::StatusOr<bool> eager = EagerEnabled();
  if (!eager.ok()) Throw(eager.status());
  if (*eager) {
    if (absl::Status status = ExecuteEagerly(*node); !status.ok()) Throw(status);
  }
  return node;
}

// The operands are moved into the node; `declared` may be moved from.
NodePtr MakeNodeWith(ir::Op op, NodeList& operands, AttributeSetPtr attributes,
                     ir::Shape& declared) {
  CheckOperandsNotDonated(op, operands);
  auto node = NewNode();
  const ir::Attributes& attrs = attributes != nullptr ? attributes->map : NoAttributes();
  if (!FastShape(op, operands, attrs, declared, node->shape)) {
    ir::Instruction inst;
    inst.op = op;
    inst.attrs = attrs;
    inst.shape = std::move(declared);
    std::vector<ir::Shape> operand_shapes;
    operand_shapes.reserve(operands.size());
    for (const NodePtr& operand : operands) operand_shapes.push_back(operand->shape);
    absl::StatusOr<ir::Shape> shape = ir::InferShape(inst, operand_shapes);
    if (!shape.ok()) Throw(shape.status());
    node->shape = *std::move(shape);
  }
  node->op = op;
  // Moved one by one: cheaper than the inlined vector's generic move assignment.
  for (NodePtr& operand : operands) node->operands.push_back(std::move(operand));
  node->attributes = std::move(attributes);
  return Finish(std::move(node));
}

}  // namespace

NodePtr MakeNode(ir::Op op, NodeList operands, std::initializer_list<Attr> attrs,
                 ir::Shape declared) {
  AttributeSetPtr set;
  if (attrs.size() != 0) set = InternAttributes(std::span<const Attr>(attrs.begin(), attrs.size()));
  return MakeNodeWith(op, operands, std::move(set), declared);
}

NodePtr MakeNode(ir::Op op, NodeList operands, const ir::Attributes& attrs, ir::Shape declared) {
  return MakeNodeWith(op, operands, InternAttributes(attrs), declared);
}

NodePtr MakeBinaryNode(ir::Op op, NodePtr x, NodePtr y) {
  auto node = NewNode();
  node->operands.push_back(std::move(x));
  node->operands.push_back(std::move(y));
  CheckOperandsNotDonated(op, node->operands);
  ir::Shape no_declared;
  if (!FastShape(op, node->operands, NoAttributes(), no_declared, node->shape)) {
    // The generic rule (and its error message) on the same operands.
    NodeList operands = std::move(node->operands);
    return MakeNodeWith(op, operands, nullptr, no_declared);
  }
  node->op = op;
  return Finish(std::move(node));
}

ir::Shape MakeShape(ir::DType dtype, Ints dims) {
  ir::Shape shape;
  shape.dtype = dtype;
  SetDims(shape.dims, std::span<const int64_t>(dims.data(), dims.size()));
  return shape;
}

NodePtr ConstantNode(ir::Literal literal) {
  auto node = NewNode();
  node->op = ir::Op::kConstant;
  node->shape = literal.shape;
  node->literal = std::move(literal);
  return node;
}

NodePtr DataLeaf(ir::Literal literal) {
  auto value = NewDeviceValue();
  value->shape = literal.shape;
  value->host = std::move(literal);
  return MakeLeaf(std::move(value));
}

namespace {

// `count` copies of `value` as the literal's bytes, written in place (no vector of values
// first, no copy of the dimensions).
template <typename T>
ir::Literal Filled(ir::Shape shape, size_t count, T value) {
  ir::Literal literal;
  literal.shape = std::move(shape);
  literal.bytes.resize(count * sizeof(T));
  for (size_t i = 0; i < count; ++i)
    std::memcpy(literal.bytes.data() + i * sizeof(T), &value, sizeof(T));
  return literal;
}

}  // namespace

ir::Literal FullLiteral(ir::DType dtype, Ints dims, double value) {
  ir::Shape shape = MakeShape(dtype, dims);
  if (absl::Status status = ir::ValidateShape(shape); !status.ok()) Throw(status);
  size_t n = static_cast<size_t>(shape.num_elements());
  switch (dtype) {
    case ir::DType::kF32:
      return Filled(std::move(shape), n, static_cast<float>(value));
    case ir::DType::kF64:
      return Filled(std::move(shape), n, value);
    case ir::DType::kBF16:  // through float, as c10::BFloat16(double) does
      return Filled(std::move(shape), n, ir::FloatToBF16(static_cast<float>(value)));
    case ir::DType::kS32:
      return Filled(std::move(shape), n, static_cast<int32_t>(value));
    case ir::DType::kS64:
      return Filled(std::move(shape), n, static_cast<int64_t>(value));
    case ir::DType::kPred:
      return Filled(std::move(shape), n, static_cast<uint8_t>(value != 0));
  }
  ThrowInvalid(absl::StrCat("full: unknown dtype ", static_cast<int>(dtype)));
}

ir::Literal FullIntLiteral(ir::DType dtype, Ints dims, int64_t value) {
  ir::Shape shape = MakeShape(dtype, dims);
  if (absl::Status status = ir::ValidateShape(shape); !status.ok()) Throw(status);
  size_t n = static_cast<size_t>(shape.num_elements());
  if (dtype == ir::DType::kS64) return Filled(std::move(shape), n, value);
  if (dtype == ir::DType::kS32 && value >= INT32_MIN && value <= INT32_MAX) {
    return Filled(std::move(shape), n, static_cast<int32_t>(value));
  }
  return FullLiteral(dtype, dims, static_cast<double>(value));
}

ir::Literal ScalarLiteral(ir::DType dtype, double value) { return FullLiteral(dtype, {}, value); }

namespace {

// The data leaves of the scalars this thread recorded lately, found again by their dtype and
// the value they were made from (a double's bits, or an integer's), so that the ops of a
// step that use one value read one leaf: one program parameter and one upload instead of
// one per op (the reference's device-data cache, within a step). A slot keeps the leaf
// weakly: once no graph holds it the next use makes a new one, so nothing outlives its
// step here, and a leaf no tensor handle owns is never donated (src/lazy/donation.h).
struct ScalarSlot {
  uint64_t bits = 0;
  ir::DType dtype = ir::DType::kF32;
  bool integer = false;
  std::weak_ptr<const Node> leaf;
};

template <typename MakeLiteral>
NodePtr SharedScalar(ir::DType dtype, uint64_t bits, bool integer, MakeLiteral make) {
  constexpr size_t kSlots = 16;
  thread_local ScalarSlot slots[kSlots];
  const uint64_t h =
      (bits ^ (static_cast<uint64_t>(dtype) << 56) ^ (integer ? 1 : 0)) * 0x9e3779b97f4a7c15ULL;
  ScalarSlot& slot = slots[h >> 60];
  if (slot.bits == bits && slot.dtype == dtype && slot.integer == integer) {
    if (NodePtr leaf = slot.leaf.lock(); leaf != nullptr && !leaf->value->donated) return leaf;
  }
  NodePtr leaf = DataLeaf(make());
  slot.bits = bits;
  slot.dtype = dtype;
  slot.integer = integer;
  slot.leaf = leaf;
  return leaf;
}

}  // namespace

NodePtr DataScalarNode(ir::DType dtype, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return SharedScalar(dtype, bits, false, [&] { return ScalarLiteral(dtype, value); });
}

NodePtr ScalarNode(ir::DType dtype, double value) {
  if (value == 0.0 || value == 1.0 || value == -1.0 || dtype == ir::DType::kPred) {
    return ConstantNode(ScalarLiteral(dtype, value));
  }
  return DataScalarNode(dtype, value);
}

NodePtr IntScalarNode(ir::DType dtype, int64_t value) {
  if (value == 0 || value == 1 || value == -1) {
    return ConstantNode(FullIntLiteral(dtype, {}, value));
  }
  return SharedScalar(dtype, static_cast<uint64_t>(value), true,
                      [&] { return FullIntLiteral(dtype, {}, value); });
}

ir::DType ToIr(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return ir::DType::kF32;
    case DType::kInt32:
      return ir::DType::kS32;
    case DType::kFloat64:
      return ir::DType::kF64;
    case DType::kBool:
      return ir::DType::kPred;
    case DType::kBFloat16:
      return ir::DType::kBF16;
    case DType::kInt64:
      return ir::DType::kS64;
  }
  ThrowInvalid(absl::StrCat("unknown DType value ", static_cast<int>(dtype)));
}

DType FromIr(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kF32:
      return DType::kFloat32;
    case ir::DType::kS32:
      return DType::kInt32;
    case ir::DType::kF64:
      return DType::kFloat64;
    case ir::DType::kPred:
      return DType::kBool;
    case ir::DType::kBF16:
      return DType::kBFloat16;
    case ir::DType::kS64:
      return DType::kInt64;
  }
  ThrowInvalid(absl::StrCat("unknown IR dtype ", static_cast<int>(dtype)));
}

}  // namespace lazy

namespace {

// The shape a creation function `op` was given, checked in the caller's terms.
ir::Shape CheckedShape(const char* op, const std::vector<int64_t>& dims, ir::DType dtype) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      lazy::ThrowInvalid(absl::StrCat(op, ": dimension ", i, " of the shape [",
                                      absl::StrJoin(dims, ","), "] is negative"));
    }
  }
  ir::Shape s{dtype, dims};
  if (absl::Status status = ir::ValidateShape(s); !status.ok()) {
    lazy::ThrowInvalid(absl::StrCat(op, ": ", status.message()));
  }
  return s;
}

void CheckCount(size_t count, const std::vector<int64_t>& shape) {
  ir::Shape s = CheckedShape("from_vector", shape, ir::DType::kF32);
  if (static_cast<int64_t>(count) != s.num_elements()) {
    throw Error(
        ErrorCode::kInvalidArgument,
        absl::StrCat("from_vector: ", count, " values given for shape [", absl::StrJoin(shape, ","),
                     "], which has ", s.num_elements(), " elements"));
  }
}

Tensor FromLiteral(ir::Literal literal) { return lazy::Wrap(lazy::DataLeaf(std::move(literal))); }

// Random draws (doubles) as a tensor of `dtype`; bfloat16 values are rounded from the float
// draw, as torch.randn(..., dtype=torch.bfloat16) rounds from float.
Tensor FromDoubles(const char* op, const std::vector<double>& values, std::vector<int64_t> shape,
                   DType dtype) {
  CheckCount(values.size(), shape);
  switch (dtype) {
    case DType::kFloat64:
      return FromLiteral(ir::Literal::FromF64(values, std::move(shape)));
    case DType::kFloat32:
      return FromLiteral(
          ir::Literal::FromF32(std::vector<float>(values.begin(), values.end()), std::move(shape)));
    case DType::kBFloat16:
      return FromLiteral(ir::Literal::FromBF16(std::vector<float>(values.begin(), values.end()),
                                               std::move(shape)));
    case DType::kInt32:
    case DType::kInt64:
    case DType::kBool:
      break;
  }
  throw Error(ErrorCode::kInvalidArgument,
              absl::StrCat(op, ": the dtype must be float32, float64 or bfloat16, not ",
                           dtype_name(dtype)));
}

int64_t Count(const char* op, const std::vector<int64_t>& shape) {
  return CheckedShape(op, shape, ir::DType::kF32).num_elements();
}

// Integer values are exact for int64 and range-checked for int32; a floating-point value for
// an integer dtype is truncated toward zero, as torch.full does, once it is checked to fit.
Tensor Full(const char* op, const std::vector<int64_t>& shape, const Scalar& value, DType dtype) {
  const ir::DType ir_dtype = lazy::ToIr(dtype);
  CheckedShape(op, shape, ir_dtype);
  bool fits = !value.too_large();
  if (fits && ir::IsInteger(ir_dtype)) {
    if (value.kind() == Scalar::Kind::kFloat) {
      const double low = ir_dtype == ir::DType::kS32 ? INT32_MIN : -0x1p63;
      const double high = ir_dtype == ir::DType::kS32 ? INT32_MAX + 1.0 : 0x1p63;
      const double truncated = std::trunc(value.to_double());  // NaN fails both tests
      fits = truncated >= low && truncated < high;
    } else if (ir_dtype == ir::DType::kS32) {
      fits = value.to_int() >= INT32_MIN && value.to_int() <= INT32_MAX;
    }
  }
  if (!fits) {
    const std::string text = value.too_large() ? "above 2^63-1"
                             : value.kind() == Scalar::Kind::kFloat
                                 ? absl::StrCat(value.to_double())
                                 : absl::StrCat(value.to_int());
    lazy::ThrowInvalid(absl::StrCat(op, ": the value ", text, " does not fit ", dtype_name(dtype)));
  }
  if (value.kind() != Scalar::Kind::kFloat) {
    return FromLiteral(lazy::FullIntLiteral(ir_dtype, shape, value.to_int()));
  }
  return FromLiteral(lazy::FullLiteral(ir_dtype, shape, value.to_double()));
}

}  // namespace

Tensor::Tensor() = default;

Tensor Tensor::from_vector(const std::vector<float>& values, std::vector<int64_t> shape) {
  CheckCount(values.size(), shape);
  return FromLiteral(ir::Literal::FromF32(values, std::move(shape)));
}

Tensor Tensor::from_vector(const std::vector<int32_t>& values, std::vector<int64_t> shape) {
  CheckCount(values.size(), shape);
  return FromLiteral(ir::Literal::FromS32(values, std::move(shape)));
}

Tensor Tensor::from_vector(const std::vector<double>& values, std::vector<int64_t> shape) {
  CheckCount(values.size(), shape);
  return FromLiteral(ir::Literal::FromF64(values, std::move(shape)));
}

Tensor Tensor::from_vector(const std::vector<int64_t>& values, std::vector<int64_t> shape) {
  CheckCount(values.size(), shape);
  return FromLiteral(ir::Literal::FromS64(values, std::move(shape)));
}

Tensor Tensor::from_vector(const std::vector<bfloat16>& values, std::vector<int64_t> shape) {
  return from_span(std::span<const bfloat16>(values), std::move(shape));
}

Tensor Tensor::from_vector(const std::vector<float>& values, std::vector<int64_t> shape,
                           DType dtype) {
  // Through double, exactly: each float keeps its value, bfloat16 rounds it once.
  return FromDoubles("from_vector", std::vector<double>(values.begin(), values.end()),
                     std::move(shape), dtype);
}

Tensor Tensor::from_span(std::span<const float> values, std::vector<int64_t> shape) {
  return from_vector(std::vector<float>(values.begin(), values.end()), std::move(shape));
}

Tensor Tensor::from_span(std::span<const int32_t> values, std::vector<int64_t> shape) {
  return from_vector(std::vector<int32_t>(values.begin(), values.end()), std::move(shape));
}

Tensor Tensor::from_span(std::span<const double> values, std::vector<int64_t> shape) {
  return from_vector(std::vector<double>(values.begin(), values.end()), std::move(shape));
}

Tensor Tensor::from_span(std::span<const int64_t> values, std::vector<int64_t> shape) {
  return from_vector(std::vector<int64_t>(values.begin(), values.end()), std::move(shape));
}

Tensor Tensor::from_span(std::span<const bfloat16> values, std::vector<int64_t> shape) {
  CheckCount(values.size(), shape);
  ir::Literal literal;
  literal.shape = ir::Shape{ir::DType::kBF16, std::move(shape)};
  literal.bytes.resize(values.size() * sizeof(uint16_t));
  if (!values.empty()) std::memcpy(literal.bytes.data(), values.data(), literal.bytes.size());
  return FromLiteral(std::move(literal));
}

Tensor Tensor::scalar(float value) { return FromLiteral(ir::Literal::ScalarF32(value)); }

Tensor Tensor::scalar(double value, DType dtype) {
  return FromLiteral(lazy::ScalarLiteral(lazy::ToIr(dtype), value));
}

// Host data, not a broadcast constant: optimizer state made with zeros() is then a plain
// device buffer that later steps replace.
Tensor Tensor::zeros(const std::vector<int64_t>& shape, DType dtype) {
  return Full("zeros", shape, 0, dtype);
}
Tensor Tensor::ones(const std::vector<int64_t>& shape, DType dtype) {
  return Full("ones", shape, 1, dtype);
}
Tensor Tensor::full(const std::vector<int64_t>& shape, Scalar value, DType dtype) {
  return Full("full", shape, value, dtype);
}

Tensor Tensor::arange(int64_t count, DType dtype) {
  if (count < 0)
    throw Error(ErrorCode::kInvalidArgument, absl::StrCat("arange: count ", count, " is negative"));
  return lazy::Wrap(lazy::MakeNode(ir::Op::kIota, {}, {{"dimension", {0}}},
                                   lazy::MakeShape(lazy::ToIr(dtype), {count})));
}

Tensor Tensor::randn(std::vector<int64_t> shape, uint64_t seed, DType dtype) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> dist(0.0, 1.0);
  std::vector<double> values(static_cast<size_t>(Count("randn", shape)));
  for (double& v : values) v = dist(rng);
  return FromDoubles("randn", values, std::move(shape), dtype);
}

Tensor Tensor::uniform(std::vector<int64_t> shape, double low, double high, uint64_t seed,
                       DType dtype) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(low, high);
  std::vector<double> values(static_cast<size_t>(Count("uniform", shape)));
  for (double& v : values) v = dist(rng);
  return FromDoubles("uniform", values, std::move(shape), dtype);
}

const std::vector<int64_t>& Tensor::shape() const {
  return TensorAccess::Impl(*this, "shape")->node()->shape.dims;
}

DType Tensor::dtype() const { return lazy::FromIr(lazy::NodeOf(*this, "dtype")->shape.dtype); }

int64_t Tensor::numel() const { return lazy::NodeOf(*this, "numel")->shape.num_elements(); }

bool Tensor::has_pending_ops() const { return !lazy::NodeOf(*this, "has_pending_ops")->is_leaf(); }

Tensor& Tensor::assign(const Tensor& value) {
  NodePtr current = lazy::NodeOf(*this, "assign");
  NodePtr next = lazy::NodeOf(value, "assign");
  if (!(current->shape == next->shape)) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("assign: the new value ", next->shape.ToString(),
                             " does not match the tensor ", current->shape.ToString()));
  }
  // A fresh handle impl: other handles that shared this one's impl keep the old value.
  // The new impl remembers the leaf it replaces, whose buffer the next sync may donate
  // (src/lazy/donation.h). Assigning twice before a sync keeps the first one.
  std::weak_ptr<const Node> replaced;
  if (current->is_leaf()) {
    replaced = current;
  } else {
    replaced = impl_->replaced();
  }
  impl_ = TensorAccess::Impl(lazy::Wrap(std::move(next)), "assign");
  impl_->set_replaced(std::move(replaced));
  return *this;
}

namespace {

// The dtype whose elements T holds.
template <typename T>
constexpr ir::DType HostDType() {
  if constexpr (std::is_same_v<T, float>) return ir::DType::kF32;
  if constexpr (std::is_same_v<T, double>) return ir::DType::kF64;
  if constexpr (std::is_same_v<T, int64_t>) return ir::DType::kS64;
  if constexpr (std::is_same_v<T, bfloat16>) return ir::DType::kBF16;
  return ir::DType::kS32;
}

// Checks that a T read suits the tensor's elements; returns whether they are bfloat16
// widened to float (every bfloat16 value is a float, exactly).
template <typename T>
bool CheckReadType(ir::DType actual, const char* op) {
  constexpr ir::DType wanted = HostDType<T>();
  const bool widened = std::is_same_v<T, float> && actual == ir::DType::kBF16;
  if (actual != wanted && !widened) {
    throw Error(
        ErrorCode::kInvalidArgument,
        absl::StrCat(op, ": the tensor holds ", dtype_name(lazy::FromIr(actual)), " elements, not ",
                     dtype_name(lazy::FromIr(wanted)), " (convert it first with .to())"));
  }
  return widened;
}

// The tensor's `count` elements into `out`. Elements of the type asked for are copied by
// the client straight into `out` (no literal in between); bfloat16 read as float is
// widened from a literal.
template <typename T>
void ReadElements(const std::shared_ptr<TensorImpl>& impl, const char* op,
                  const SourceLocation& site, bool widened, T* out, size_t count) {
  lazy::SyncSiteScope scope(site, op);
  if (!widened) {
    absl::Status status = lazy::ReadTensorInto(
        impl, op, absl::MakeSpan(reinterpret_cast<uint8_t*>(out), count * sizeof(T)));
    if (!status.ok()) lazy::Throw(status);
    return;
  }
  absl::StatusOr<ir::Literal> literal = lazy::ReadTensor(impl, op);
  if (!literal.ok()) lazy::Throw(literal.status());
  for (size_t i = 0; i < count; ++i) {
    uint16_t bits;
    std::memcpy(&bits, literal->bytes.data() + 2 * i, sizeof bits);
    out[i] = static_cast<T>(ir::BF16ToFloat(bits));
  }
}

template <typename T>
std::vector<T> ReadVector(const std::shared_ptr<TensorImpl>& impl, const char* op,
                          const SourceLocation& site) {
  NodePtr node = impl->node();
  const bool widened = CheckReadType<T>(node->shape.dtype, op);
  std::vector<T> out(static_cast<size_t>(node->shape.num_elements()));
  node.reset();  // a sync may replace it
  ReadElements(impl, op, site, widened, out.data(), out.size());
  return out;
}

}  // namespace

template <typename T>
std::vector<T> Tensor::to_vector(SourceLocation site) const {
  return ReadVector<T>(TensorAccess::Impl(*this, "to_vector"), "to_vector", site);
}

template <typename T>
T Tensor::item(SourceLocation site) const {
  const std::shared_ptr<TensorImpl>& impl = TensorAccess::Impl(*this, "item");
  NodePtr node = impl->node();
  const int64_t count = node->shape.num_elements();
  if (count != 1) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("item: the tensor has ", count, " elements, not 1"));
  }
  const bool widened = CheckReadType<T>(node->shape.dtype, "item");
  node.reset();  // a sync may replace it
  T value{};
  ReadElements(impl, "item", site, widened, &value, 1);
  return value;
}

template std::vector<float> Tensor::to_vector<float>(SourceLocation) const;
template std::vector<int32_t> Tensor::to_vector<int32_t>(SourceLocation) const;
template std::vector<double> Tensor::to_vector<double>(SourceLocation) const;
template float Tensor::item<float>(SourceLocation) const;
template int32_t Tensor::item<int32_t>(SourceLocation) const;
template double Tensor::item<double>(SourceLocation) const;
template std::vector<int64_t> Tensor::to_vector<int64_t>(SourceLocation) const;
template std::vector<bfloat16> Tensor::to_vector<bfloat16>(SourceLocation) const;
template int64_t Tensor::item<int64_t>(SourceLocation) const;
template bfloat16 Tensor::item<bfloat16>(SourceLocation) const;

std::string pending_ir_text(const std::vector<Tensor>& tensors) {
  std::vector<std::shared_ptr<TensorImpl>> impls;
  impls.reserve(tensors.size());
  for (const Tensor& tensor : tensors)
    impls.push_back(TensorAccess::Impl(tensor, "pending_ir_text"));
  // The plan a step barrier over `tensors` would make now (its donations read use counts).
  const lazy::StepLock lock = lazy::CurrentRuntime().LockSteps();
  lazy::StepPlan plan;
  absl::StatusOr<bool> planned = lazy::PlanStep(impls, /*donate=*/true, plan);
  if (!planned.ok()) lazy::Throw(planned.status());
  return ir::PrintProgram(lazy::LowerPlan(plan).program);
}

void sync(SourceLocation site) {
  lazy::SyncSiteScope scope(site);
  std::vector<std::shared_ptr<TensorImpl>> live = lazy::ThreadLiveTensors();
  absl::Status status = lazy::SyncTensors(live, /*donate=*/true);
  if (!status.ok()) lazy::Throw(status);
  lazy::CutEagerHistory(live);
}

void set_eager(bool enabled) { lazy::SetEager(enabled); }

bool is_eager() {
  absl::StatusOr<bool> eager = lazy::EagerEnabled();
  if (!eager.ok()) lazy::Throw(eager.status());
  return *eager;
}

void set_buffer_donor(const Tensor& tensor, bool donor) {
  NodePtr node = lazy::NodeOf(tensor, "set_buffer_donor");
  if (!node->is_leaf()) {
    throw Error(ErrorCode::kFailedPrecondition,
                absl::StrCat("set_buffer_donor: the tensor ", node->shape.ToString(),
                             " has pending operations; sync it first"));
  }
  node->value->buffer_donor = donor;
}

}  // namespace seam

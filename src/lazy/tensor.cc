// The public seam::Tensor API over the lazy graph.
#include "seam/tensor.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/ir/shape_rules.h"
#include "src/ir/text.h"
#include "src/lazy/graph_executor.h"
#include "src/lazy/lazy_tensor.h"
#include "src/runtime/metrics.h"

namespace seam {

using lazy::Node;
using lazy::NodePtr;
using lazy::TensorImpl;

class TensorAccess {
 public:
  static Tensor Wrap(NodePtr node) {
    auto impl = std::make_shared<TensorImpl>(std::move(node));
    lazy::RegisterTensor(impl);
    return Tensor(std::move(impl));
  }
  static const std::shared_ptr<TensorImpl>& Impl(const Tensor& tensor, const char* what) {
    if (!tensor.impl_) throw Error(3, absl::StrCat(what, ": tensor is undefined"));
    return tensor.impl_;
  }
};

namespace {

[[noreturn]] void Throw(const absl::Status& status) {
  throw Error(static_cast<int>(status.code()), std::string(status.message()));
}


NodePtr NodeOf(const Tensor& tensor, const char* what) {
  return TensorAccess::Impl(tensor, what)->node();
}

// Builds a node, checking it with the IR's shape rules (the declared shape is used for
// ops whose result shape is an attribute of the call, such as broadcast_in_dim).
NodePtr MakeNode(ir::Op op, std::vector<NodePtr> operands, ir::Attributes attrs,
                 ir::Shape declared = {}) {
  ir::Instruction inst;
  inst.op = op;
  inst.attrs = attrs;
  inst.shape = std::move(declared);
  std::vector<ir::Shape> operand_shapes;
  for (const NodePtr& operand : operands) operand_shapes.push_back(operand->shape);
  absl::StatusOr<ir::Shape> shape = ir::InferShape(inst, operand_shapes);
  if (!shape.ok()) Throw(shape.status());
  auto node = std::make_shared<Node>();
  node->op = op;
  node->operands = std::move(operands);
  node->attrs = std::move(attrs);
  node->shape = *std::move(shape);
  return node;
}

Tensor FromLiteral(ir::Literal literal) {
  auto value = std::make_shared<lazy::DeviceValue>();
  value->shape = literal.shape;
  value->host = std::move(literal);
  return TensorAccess::Wrap(lazy::MakeLeaf(std::move(value)));
}

void CheckCount(size_t count, const std::vector<int64_t>& shape) {
  ir::Shape s{ir::DType::kF32, shape};
  if (absl::Status status = ir::ValidateShape(s); !status.ok()) Throw(status);
  if (static_cast<int64_t>(count) != s.num_elements()) {
    throw Error(3, absl::StrCat("from_vector: ", count, " values given for shape [",
                                absl::StrJoin(shape, ","), "], which has ", s.num_elements(),
                                " elements"));
  }
}

NodePtr BroadcastTo(const NodePtr& node, const std::vector<int64_t>& dims) {
  if (node->shape.dims == dims) return node;
  std::vector<int64_t> mapping(node->shape.dims.size());
  int64_t offset = static_cast<int64_t>(dims.size() - node->shape.dims.size());
  for (size_t i = 0; i < mapping.size(); ++i) mapping[i] = offset + static_cast<int64_t>(i);
  return MakeNode(ir::Op::kBroadcastInDim, {node}, {{"dims", mapping}},
                  ir::Shape{node->shape.dtype, dims});
}

Tensor Binary(ir::Op op, const char* name, const Tensor& a, const Tensor& b) {
  NodePtr x = NodeOf(a, name);
  NodePtr y = NodeOf(b, name);
  if (x->shape.dtype != y->shape.dtype) {
    throw Error(3, absl::StrCat(name, ": element types differ: ", x->shape.ToString(), " and ",
                                y->shape.ToString()));
  }
  // numpy broadcasting: align trailing dimensions; a size-1 dimension stretches.
  const auto& xd = x->shape.dims;
  const auto& yd = y->shape.dims;
  size_t rank = std::max(xd.size(), yd.size());
  std::vector<int64_t> dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t xs = i < rank - xd.size() ? 1 : xd[i - (rank - xd.size())];
    int64_t ys = i < rank - yd.size() ? 1 : yd[i - (rank - yd.size())];
    if (xs != ys && xs != 1 && ys != 1) {
      throw Error(3, absl::StrCat(name, ": shapes ", x->shape.ToString(), " and ",
                                  y->shape.ToString(), " cannot be broadcast together"));
    }
    dims[i] = xs == 1 ? ys : xs;
  }
  return TensorAccess::Wrap(MakeNode(op, {BroadcastTo(x, dims), BroadcastTo(y, dims)}, {}));
}

// A scalar operand in the tensor's element type. 0 and +-1 become program constants; any
// other value is data, so that changing it (a learning rate, say) does not recompile.
Tensor ScalarLike(const Tensor& like, float value, const char* name) {
  ir::DType dtype = NodeOf(like, name)->shape.dtype;
  ir::Literal literal = dtype == ir::DType::kF32
                            ? ir::Literal::ScalarF32(value)
                            : ir::Literal::FromS32({static_cast<int32_t>(value)}, {});
  if (value == 0.0f || value == 1.0f || value == -1.0f) {
    auto node = std::make_shared<Node>();
    node->op = ir::Op::kConstant;
    node->shape = literal.shape;
    node->literal = std::move(literal);
    return TensorAccess::Wrap(std::move(node));
  }
  return FromLiteral(std::move(literal));
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

Tensor Tensor::scalar(float value) { return FromLiteral(ir::Literal::ScalarF32(value)); }

const std::vector<int64_t>& Tensor::shape() const {
  return TensorAccess::Impl(*this, "shape")->node()->shape.dims;
}

DType Tensor::dtype() const {
  return NodeOf(*this, "dtype")->shape.dtype == ir::DType::kF32 ? DType::kFloat32 : DType::kInt32;
}

int64_t Tensor::numel() const { return NodeOf(*this, "numel")->shape.num_elements(); }

bool Tensor::has_pending_ops() const { return !NodeOf(*this, "has_pending_ops")->is_leaf(); }

template <typename T>
std::vector<T> Tensor::to_vector() const {
  const auto& impl = TensorAccess::Impl(*this, "to_vector");
  constexpr ir::DType wanted = std::is_same_v<T, float> ? ir::DType::kF32 : ir::DType::kS32;
  ir::DType actual = impl->node()->shape.dtype;
  if (actual != wanted) {
    throw Error(3, absl::StrCat("to_vector: the tensor holds ", std::string(ir::DTypeName(actual)),
                                " elements, not ", std::string(ir::DTypeName(wanted))));
  }
  absl::StatusOr<ir::Literal> literal = lazy::ReadTensor(impl);
  if (!literal.ok()) Throw(literal.status());
  const T* data = reinterpret_cast<const T*>(literal->bytes.data());
  return std::vector<T>(data, data + literal->shape.num_elements());
}

template <typename T>
T Tensor::item() const {
  int64_t count = numel();
  if (count != 1) {
    throw Error(3, absl::StrCat("item: the tensor has ", count, " elements, not 1"));
  }
  return to_vector<T>().front();
}

template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<int32_t> Tensor::to_vector<int32_t>() const;
template float Tensor::item<float>() const;
template int32_t Tensor::item<int32_t>() const;

// A 2-D dot_general: contract lhs dimension 1 with rhs dimension 0, no batch dimensions.
Tensor Tensor::matmul(const Tensor& other) const {
  NodePtr lhs = NodeOf(*this, "matmul");
  NodePtr rhs = NodeOf(other, "matmul");
  for (const NodePtr& side : {lhs, rhs}) {
    if (side->shape.rank() != 2) {
      throw Error(3, absl::StrCat("matmul: operands must have rank 2, got ", lhs->shape.ToString(),
                                  " and ", rhs->shape.ToString()));
    }
  }
  ir::Attributes attrs = {
      {"lhs_batch", {}}, {"rhs_batch", {}}, {"lhs_contracting", {1}}, {"rhs_contracting", {0}}};
  return TensorAccess::Wrap(MakeNode(ir::Op::kDotGeneral, {lhs, rhs}, std::move(attrs)));
}

Tensor Tensor::sum() const {
  int64_t rank = NodeOf(*this, "sum")->shape.rank();
  std::vector<int64_t> axes(rank);
  for (int64_t i = 0; i < rank; ++i) axes[i] = i;
  return sum(axes);
}

Tensor Tensor::sum(const std::vector<int64_t>& axes) const {
  NodePtr node = NodeOf(*this, "sum");
  std::vector<int64_t> normalized;
  for (int64_t axis : axes) {
    int64_t a = axis < 0 ? axis + node->shape.rank() : axis;
    if (a < 0 || a >= node->shape.rank()) {
      throw Error(3, absl::StrCat("sum: axis ", axis, " is out of range for ",
                                  node->shape.ToString()));
    }
    normalized.push_back(a);
  }
  std::sort(normalized.begin(), normalized.end());
  if (std::adjacent_find(normalized.begin(), normalized.end()) != normalized.end()) {
    throw Error(3, absl::StrCat("sum: axes [", absl::StrJoin(axes, ","), "] repeat an axis"));
  }
  return TensorAccess::Wrap(MakeNode(ir::Op::kReduceSum, {node}, {{"axes", normalized}}));
}

Tensor operator+(const Tensor& a, const Tensor& b) { return Binary(ir::Op::kAdd, "add", a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) {
  return Binary(ir::Op::kSubtract, "subtract", a, b);
}
Tensor operator*(const Tensor& a, const Tensor& b) {
  return Binary(ir::Op::kMultiply, "multiply", a, b);
}
Tensor operator+(const Tensor& a, float b) { return a + ScalarLike(a, b, "add"); }
Tensor operator-(const Tensor& a, float b) { return a - ScalarLike(a, b, "subtract"); }
Tensor operator*(const Tensor& a, float b) { return a * ScalarLike(a, b, "multiply"); }
Tensor operator*(float a, const Tensor& b) { return ScalarLike(b, a, "multiply") * b; }
Tensor matmul(const Tensor& a, const Tensor& b) { return a.matmul(b); }

std::string pending_ir_text(const std::vector<Tensor>& tensors) {
  std::vector<NodePtr> roots;
  for (const Tensor& tensor : tensors) {
    NodePtr node = NodeOf(tensor, "pending_ir_text");
    if (!node->is_leaf()) roots.push_back(std::move(node));
  }
  return ir::PrintProgram(lazy::LowerGraph(roots).program);
}

void sync() {
  metrics::GetOrCreateCounter("MarkStep")->Add(1);
  absl::Status status = lazy::SyncTensors(lazy::LiveTensors());
  if (!status.ok()) Throw(status);
}

}  // namespace seam

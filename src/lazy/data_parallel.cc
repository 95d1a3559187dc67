// The public data-parallel API (include/seam/distributed.h): all_reduce, sharding a host
// batch over the replicas, and reading every replica's value.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "seam/distributed.h"
#include "src/lazy/eager.h"
#include "src/lazy/replicated.h"
#include "src/lazy/runtime.h"
#include "src/lazy/step_runner.h"
#include "src/lazy/tensor_internal.h"
#include "src/runtime/process/runtime.h"

namespace seam {
namespace {

using lazy::NodePtr;

runtime::ComputationClient* Client() {
  absl::StatusOr<runtime::ComputationClient*> client = lazy::CurrentRuntime().client();
  if (!client.ok()) lazy::Throw(client.status());
  return *client;
}

// Splits `whole` (already checked against its shape) into `replicas` row blocks.
Tensor ShardLiteral(const ir::Literal& whole, int64_t replicas) {
  const std::vector<int64_t>& dims = whole.shape.dims;
  if (dims.empty() || dims[0] % replicas != 0) {
    lazy::ThrowInvalid(absl::StrCat("shard: the batch dimension of ", whole.shape.ToString(),
                                    " does not split evenly over ", replicas,
                                    " replicas (axis 0 must be a multiple of ", replicas, ")"));
  }
  if (replicas == 1) return lazy::Wrap(lazy::DataLeaf(whole));
  ir::Shape part{whole.shape.dtype, dims};
  part.dims[0] /= replicas;
  const size_t bytes = static_cast<size_t>(part.byte_size());
  std::vector<ir::Literal> shards;
  for (int64_t d = 0; d < replicas; ++d) {
    ir::Literal shard;
    shard.shape = part;
    auto begin = whole.bytes.begin() + static_cast<std::ptrdiff_t>(d * bytes);
    shard.bytes.assign(begin, begin + static_cast<std::ptrdiff_t>(bytes));
    shards.push_back(std::move(shard));
  }
  return lazy::Wrap(lazy::ReplicatedLeaf(std::move(shards)));
}

void CheckCount(size_t count, const std::vector<int64_t>& shape) {
  ir::Shape s{ir::DType::kF32, shape};
  if (absl::Status status = ir::ValidateShape(s); !status.ok()) lazy::Throw(status);
  if (static_cast<int64_t>(count) != s.num_elements()) {
    lazy::ThrowInvalid(absl::StrCat("shard: ", count, " values given for shape [",
                                    absl::StrJoin(shape, ","), "], which has ", s.num_elements(),
                                    " elements"));
  }
}

// In a job of several processes an all_reduce spans every process, which only a whole
// step can do: eager mode's one-op programs would silently reduce this process alone.
void CheckNotEagerAcrossProcesses(const char* op) {
  if (lazy::EagerKnownOff()) return;
  absl::StatusOr<bool> eager = lazy::EagerEnabled();
  if (!eager.ok()) lazy::Throw(eager.status());
  if (*eager && Client()->GetNumProcesses() > 1) {
    lazy::ThrowInvalid(absl::StrCat(op, ": in a job of ", Client()->GetNumProcesses(),
                                    " processes an all_reduce needs lazy mode (eager mode runs "
                                    "each op alone, on this process only)"));
  }
}

}  // namespace

Tensor all_reduce(const Tensor& t, ReduceOp op) {
  CheckNotEagerAcrossProcesses("all_reduce");
  NodePtr x = lazy::NodeOf(t, "all_reduce");
  if (!ir::IsFloat(x->shape.dtype) && !ir::IsInteger(x->shape.dtype)) {
    lazy::ThrowInvalid(
        absl::StrCat("all_reduce: needs a numeric tensor, got ", x->shape.ToString()));
  }
  ir::Op ir_op = op == ReduceOp::kSum   ? ir::Op::kAllReduceSum
                 : op == ReduceOp::kMax ? ir::Op::kAllReduceMax
                                        : ir::Op::kAllReduceMin;
  return lazy::Wrap(lazy::AllReduceNode(ir_op, x));
}

int64_t local_device_count() { return static_cast<int64_t>(Client()->GetLocalDevices().size()); }

int64_t process_index() { return Client()->GetProcessIndex(); }

int64_t process_count() { return Client()->GetNumProcesses(); }

DataParallel::DataParallel(int64_t replicas, DataParallelOptions options) : DataParallel(replicas) {
  options_ = options;
}

DataParallel::DataParallel(int64_t replicas) {
  runtime::ComputationClient* client = Client();
  const auto local = static_cast<int64_t>(client->GetLocalDevices().size());
  const int64_t processes = client->GetNumProcesses();
  if (processes > 1) {
    if (replicas != 0 && replicas != processes * local) {
      lazy::ThrowInvalid(absl::StrCat(
          "DataParallel: ", replicas, " replicas asked for, but in a job of ", processes,
          " processes a data-parallel step spans every device of the job: 0 or ", processes * local,
          " (", processes, " processes x ", local, " local devices)"));
    }
    replicas_ = processes * local;
    local_replicas_ = local;
    first_replica_ = client->GetProcessIndex() * local;
    return;
  }
  if (replicas < 0 || replicas > local) {
    lazy::ThrowInvalid(absl::StrCat("DataParallel: ", replicas,
                                    " replicas asked for, but there are ", local,
                                    " local devices (set CPU_NUM_DEVICES for more CPU devices)"));
  }
  replicas_ = replicas == 0 ? local : replicas;
  local_replicas_ = replicas_;
}

Tensor DataParallel::shard(const std::vector<float>& values, std::vector<int64_t> shape) const {
  CheckCount(values.size(), shape);
  return ShardLiteral(ir::Literal::FromF32(values, std::move(shape)), local_replicas_);
}

Tensor DataParallel::shard(const std::vector<int32_t>& values, std::vector<int64_t> shape) const {
  CheckCount(values.size(), shape);
  return ShardLiteral(ir::Literal::FromS32(values, std::move(shape)), local_replicas_);
}

Tensor DataParallel::shard(const std::vector<double>& values, std::vector<int64_t> shape) const {
  CheckCount(values.size(), shape);
  return ShardLiteral(ir::Literal::FromF64(values, std::move(shape)), local_replicas_);
}

Tensor DataParallel::mean(const Tensor& t) const {
  CheckNotEagerAcrossProcesses("DataParallel::mean");
  NodePtr x = lazy::NodeOf(t, "DataParallel::mean");
  if (!ir::IsFloat(x->shape.dtype)) {
    lazy::ThrowInvalid(
        absl::StrCat("DataParallel::mean: needs a float tensor, got ", x->shape.ToString()));
  }
  NodePtr total = lazy::AllReduceNode(ir::Op::kAllReduceSum, x);
  NodePtr divisor =
      lazy::ConstantNode(lazy::ScalarLiteral(x->shape.dtype, static_cast<double>(replicas_)));
  return lazy::Wrap(lazy::Elementwise(ir::Op::kDivide, "DataParallel::mean", total, divisor));
}

template <typename T>
std::vector<std::vector<T>> DataParallel::gather(const Tensor& t) const {
  const auto& impl = TensorAccess::Impl(t, "gather");
  std::vector<T> first = t.to_vector<T>();  // checks the dtype and syncs
  NodePtr node = impl->node();
  std::vector<std::vector<T>> values;
  bool replicated = false;
  lazy::Runtime& rt = lazy::CurrentRuntime();
  {
    const lazy::StepLock lock = rt.LockSteps();
    replicated = node->value->replicas != nullptr;
  }
  if (!replicated) {
    values.assign(static_cast<size_t>(local_replicas_), first);
    return values;
  }
  std::vector<runtime::ComputationClient::DataPtr> handles;
  {
    const lazy::StepLock lock = rt.LockSteps();
    const lazy::ReplicaValues& copies = *node->value->replicas;
    if (copies.count != local_replicas_) {
      lazy::ThrowInvalid(absl::StrCat("gather: the tensor has ", copies.count,
                                      " local replicas, this DataParallel ", local_replicas_));
    }
    handles.assign(copies.device.begin() + 1, copies.device.end());
  }
  values.push_back(std::move(first));
  if (handles.empty()) return values;
  std::vector<ir::Literal> read;
  if (absl::Status status = lazy::ReadDeviceValues(rt, handles, read); !status.ok()) {
    lazy::Throw(status);
  }
  for (const ir::Literal& literal : read) {
    const T* data = reinterpret_cast<const T*>(literal.bytes.data());
    values.emplace_back(data, data + literal.shape.num_elements());
  }
  return values;
}

template std::vector<std::vector<float>> DataParallel::gather<float>(const Tensor&) const;
template std::vector<std::vector<int32_t>> DataParallel::gather<int32_t>(const Tensor&) const;
template std::vector<std::vector<double>> DataParallel::gather<double>(const Tensor&) const;

}  // namespace seam

#include "seam/optim.h"

#include <cmath>
#include <string>

#include "src/base/settings.h"
#include "src/lazy/tensor_internal.h"

namespace seam::optim {

namespace {

// SEAM_DP_BUCKET_BYTES: the gradient buckets' size when DataParallelOptions leaves it 0.
const char* const kBucketBytesVariable = base::SettingName(base::Setting::kSeamDpBucketBytes);

int64_t BucketBytes(const DataParallelOptions& options) {
  if (options.bucket_bytes < 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "DataParallelOptions::bucket_bytes must be at least 0, got " +
                    std::to_string(options.bucket_bytes));
  }
  if (options.bucket_bytes > 0) return options.bucket_bytes;
  absl::StatusOr<int64_t> value = base::ReadIntSetting(base::Setting::kSeamDpBucketBytes,
                                                       DataParallelOptions::kDefaultBucketBytes);
  if (!value.ok()) throw Error(ErrorCode::kInvalidArgument, std::string(value.status().message()));
  if (*value < 1) {
    throw Error(ErrorCode::kInvalidArgument,
                std::string("environment variable ") + kBucketBytesVariable +
                    " must be a positive byte count, got " + std::to_string(*value));
  }
  return *value;
}

size_t ElementBytes(DType dtype) {
  switch (dtype) {
    case DType::kFloat64:
    case DType::kInt64:
      return 8;
    case DType::kBFloat16:
      return 2;
    case DType::kBool:
      return 1;
    case DType::kFloat32:
    case DType::kInt32:
      return 4;
  }
  return 4;
}

// dp.mean, or with the bf16 gradient exchange (DataParallelOptions) for f32: the sum
// over the replicas in bf16, widened and divided in f32.
Tensor Mean(const Tensor& t, const DataParallel& dp) {
  if (!dp.options().bf16_gradient_exchange || t.dtype() != DType::kFloat32) return dp.mean(t);
  const Tensor total = all_reduce(t.to(DType::kBFloat16), ReduceOp::kSum).to(DType::kFloat32);
  return total / static_cast<float>(dp.replicas());
}

// Buckets of gradients instead of one all_reduce per gradient, as DDP's buckets and XLA's
// all-reduce combiner do: every collective costs a round of messages between the replicas
// (across processes, a Gloo ring), so the gradients of a dtype are flattened, concatenated
// a bucket at a time, averaged in one mean and cut back. Each element is reduced exactly as
// on its own, so the results are bit-identical to one mean per gradient. The buckets go
// last parameter first, the order the backward pass computes them in, so that the CPU
// plugin can start each bucket's all_reduce while the rest of the pass runs.
std::vector<Tensor> MeanOverReplicas(const std::vector<Tensor>& grads, const DataParallel& dp) {
  const int64_t cap = BucketBytes(dp.options());
  std::vector<Tensor> means(grads.size());
  auto exchange = [&](const std::vector<size_t>& members) {
    if (members.size() == 1) {
      means[members[0]] = Mean(grads[members[0]], dp);
      return;
    }
    std::vector<Tensor> flat;
    flat.reserve(members.size());
    for (size_t i : members) flat.push_back(grads[i].reshape({grads[i].numel()}));
    Tensor mean = Mean(Tensor::cat(flat, 0), dp);
    int64_t offset = 0;
    for (size_t i : members) {
      const int64_t count = grads[i].numel();
      means[i] = mean.slice(0, offset, offset + count).reshape(grads[i].shape());
      offset += count;
    }
  };
  std::vector<bool> done(grads.size(), false);
  for (size_t first = grads.size(); first-- > 0;) {
    if (done[first]) continue;
    const DType dtype = grads[first].dtype();
    std::vector<size_t> bucket;
    int64_t bytes = 0;
    for (size_t i = first + 1; i-- > 0;) {
      if (done[i] || grads[i].dtype() != dtype) continue;
      done[i] = true;
      bucket.push_back(i);
      bytes += grads[i].numel() * static_cast<int64_t>(ElementBytes(dtype));
      if (bytes >= cap) {
        exchange(bucket);
        bucket.clear();
        bytes = 0;
      }
    }
    if (!bucket.empty()) exchange(bucket);
  }
  return means;
}

}  // namespace

void Optimizer::step(const Tensor& loss) {
  if (params_.empty())
    throw Error(ErrorCode::kInvalidArgument, "optimizer step: there are no parameters");
  std::vector<Tensor> params;
  params.reserve(params_.size());
  for (Tensor* p : params_) params.push_back(*p);
  update(lazy::Gradients("optimizer step", loss, params));
}

void Optimizer::step(const Tensor& loss, const DataParallel& dp) {
  if (params_.empty())
    throw Error(ErrorCode::kInvalidArgument, "optimizer step: there are no parameters");
  std::vector<Tensor> params;
  for (Tensor* p : params_) params.push_back(*p);
  std::vector<Tensor> grads = lazy::Gradients("optimizer step", loss, params);
  if (dp.replicas() > 1) grads = MeanOverReplicas(grads, dp);
  update(grads);
}

Sgd::Sgd(std::vector<Tensor*> params, float lr, float momentum, float weight_decay)
    : Optimizer(std::move(params)), lr(lr), momentum(momentum), weight_decay(weight_decay) {}

namespace {

// The dtype an update computes in: float32 for bfloat16 parameters, as PyTorch's optimizers
// compute bfloat16 in float32 (Adam's beta2 = 0.999 has no bfloat16 value: it would round
// to 1). The state is kept in the parameters' dtype and each result is rounded once.
DType ComputeDType(DType dtype) { return dtype == DType::kBFloat16 ? DType::kFloat32 : dtype; }

// A hyperparameter as program data, Tensor::scalar's bytes, its leaf shared by the updates
// of a step that use the same value (DataScalarNode, src/lazy/node_ops.h): one parameter
// and one upload per value, not one per parameter group or per parameter.
Tensor Hyper(double value, DType dtype) {
  return lazy::Wrap(lazy::DataScalarNode(lazy::ToIr(dtype), value));
}

void CheckGrads(const char* name, size_t params, const std::vector<Tensor>& grads) {
  if (params == 0 || grads.size() != params) {
    throw Error(ErrorCode::kInvalidArgument, std::string(name) + ": " +
                                                 std::to_string(grads.size()) + " gradients for " +
                                                 std::to_string(params) + " parameters");
  }
}

}  // namespace

std::vector<const Tensor*> Sgd::state() const {
  std::vector<const Tensor*> out;
  for (const Tensor& v : velocity_) out.push_back(&v);
  return out;
}

void Sgd::update(const std::vector<Tensor>& grads) {
  CheckGrads("Sgd", params_.size(), grads);
  DType dtype = params_.front()->dtype();
  DType compute = ComputeDType(dtype);
  Tensor lr_t = Hyper(lr, compute);
  Tensor wd_t = weight_decay != 0 ? Hyper(weight_decay, compute) : Tensor();
  Tensor mom_t = momentum != 0 ? Hyper(momentum, compute) : Tensor();
  if (momentum != 0 && velocity_.empty()) {
    for (Tensor* p : params_) velocity_.push_back(Tensor::zeros(p->shape(), dtype));
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = *params_[i];
    const Tensor p_c = p.to(compute);  // the same tensor when compute is the dtype
    Tensor g = grads[i].to(compute);
    if (weight_decay != 0) g = g + wd_t * p_c;
    if (momentum != 0) {
      velocity_[i].assign((mom_t * velocity_[i].to(compute) + g).to(dtype));
      g = velocity_[i].to(compute);
    }
    p.assign((p_c - lr_t * g).to(dtype));
  }
}

Adam::Adam(std::vector<Tensor*> params, float lr, float beta1, float beta2, float eps,
           float weight_decay, bool capturable)
    : Optimizer(std::move(params)),
      lr(lr),
      beta1(beta1),
      beta2(beta2),
      eps(eps),
      weight_decay(weight_decay),
      capturable_(capturable) {}

std::vector<const Tensor*> Adam::state() const {
  std::vector<const Tensor*> out;
  for (const Tensor& m : m_) out.push_back(&m);
  for (const Tensor& v : v_) out.push_back(&v);
  for (const Tensor& s : step_) out.push_back(&s);
  return out;
}

void Adam::update(const std::vector<Tensor>& grads) {
  CheckGrads("Adam", params_.size(), grads);
  DType dtype = params_.front()->dtype();
  DType compute = ComputeDType(dtype);
  if (m_.empty()) {
    for (Tensor* p : params_) {
      m_.push_back(Tensor::zeros(p->shape(), dtype));
      v_.push_back(Tensor::zeros(p->shape(), dtype));
    }
    if (capturable_) step_.push_back(Tensor::zeros({}, DType::kFloat32));
  }
  Tensor step_size, eps_t;
  if (capturable_) {
    // The step count and both bias corrections live in the program: the recorded scalars
    // (1, beta1, beta2, lr, eps) are the same every step, so captures agree and replay.
    const DType f32 = DType::kFloat32;
    step_[0].assign(step_[0] + Hyper(1.0, f32));
    Tensor one = Hyper(1.0, f32);
    Tensor correction1 = one - pow(Hyper(beta1, f32), step_[0]);
    Tensor sqrt_correction2 = (one - pow(Hyper(beta2, f32), step_[0])).sqrt();
    step_size = Hyper(lr, f32) * sqrt_correction2 / correction1;
    eps_t = Hyper(eps, f32) * sqrt_correction2;
    if (compute != f32) {
      step_size = step_size.to(compute);
      eps_t = eps_t.to(compute);
    }
  } else {
    ++t_;
    double correction1 = 1.0 - std::pow(static_cast<double>(beta1), static_cast<double>(t_));
    double correction2 = 1.0 - std::pow(static_cast<double>(beta2), static_cast<double>(t_));
    // Every hyperparameter is data (Hyper), so the program is the same every step.
    step_size = Hyper(lr * std::sqrt(correction2) / correction1, compute);
    eps_t = Hyper(eps * std::sqrt(correction2), compute);
  }
  Tensor b1 = Hyper(beta1, compute), one_minus_b1 = Hyper(1.0 - beta1, compute);
  Tensor b2 = Hyper(beta2, compute), one_minus_b2 = Hyper(1.0 - beta2, compute);
  Tensor wd_t = Hyper(weight_decay, compute);
  // AdamW's factor, 1 - lr * weight_decay, computed in double and rounded once.
  Tensor decay_t = Hyper(1.0 - static_cast<double>(lr) * weight_decay, compute);
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = *params_[i];
    Tensor p_c = p.to(compute);  // the same tensor when compute is the dtype
    Tensor g = grads[i].to(compute);
    if (weight_decay != 0 && decoupled_weight_decay_) {
      p_c = p_c * decay_t;
    } else if (weight_decay != 0) {
      g = g + wd_t * p_c;
    }
    const Tensor m = b1 * m_[i].to(compute) + one_minus_b1 * g;
    const Tensor v = b2 * v_[i].to(compute) + one_minus_b2 * g * g;
    m_[i].assign(m.to(dtype));
    v_[i].assign(v.to(dtype));
    p.assign((p_c - step_size * m / (v.sqrt() + eps_t)).to(dtype));
  }
}

}  // namespace seam::optim

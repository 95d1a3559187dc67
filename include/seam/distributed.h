// Data parallelism in one process, as PyTorch/XLA users know it: every replica (one per
// local device; CPU_NUM_DEVICES of them for PJRT_DEVICE=CPU) runs the same program on its
// own shard of the batch, gradients are all-reduced inside that program, and parameters stay
// identical on every replica. docs/frontend.md ("Data parallel") has the rules.
//
//   seam::DataParallel dp;                       // every local device
//   Tensor x = dp.shard(images, {256, 784});     // replica d sees rows [128d, 128d+128)
//   Tensor y = dp.shard(labels, {256});
//   Tensor loss = nn::cross_entropy(model.forward(x), y);
//   optimizer.step(loss, dp);                    // grads: all_reduce sum / replicas
//   Tensor global_loss = dp.mean(loss);
//   seam::sync();                                // one program, ExecuteReplicated
#ifndef SEAM_DISTRIBUTED_H_
#define SEAM_DISTRIBUTED_H_

#include <cstdint>
#include <vector>

#include "seam/tensor.h"

namespace seam {

enum class ReduceOp { kSum, kMax, kMin };

// Every replica of the step gets the elementwise sum (max, min) of `t` over all replicas
// (IR all_reduce_sum/_max/_min, one group of every replica). In a step that has no
// per-replica values there is one replica and it is the identity, as in XLA. Its gradient
// is that of the sum over replicas of each replica's loss: all_reduce(g, kSum) for kSum;
// for kMax/kMin, all_reduce(g, kSum) where the replica's value is the extreme, else 0.
Tensor all_reduce(const Tensor& t, ReduceOp op);

// The number of local devices of the process's client (starting it if needed).
int64_t local_device_count();

class DataParallel {
 public:
  // Over the first `replicas` local devices; 0 means all of them. More replicas than local
  // devices is an Error.
  explicit DataParallel(int64_t replicas = 0);
  int64_t replicas() const { return replicas_; }

  // A host batch split along axis 0 into replicas() equal shards: replica d holds rows
  // [d*B/N, (d+1)*B/N), and the tensor's shape is the shard's ([B/N, ...]). B must be a
  // multiple of replicas(). With one replica it is a plain tensor.
  Tensor shard(const std::vector<float>& values, std::vector<int64_t> shape) const;
  Tensor shard(const std::vector<int32_t>& values, std::vector<int64_t> shape) const;
  Tensor shard(const std::vector<double>& values, std::vector<int64_t> shape) const;

  // all_reduce(t, kSum) / replicas(): the mean over the replicas (the divisor is a program
  // constant). For float tensors.
  Tensor mean(const Tensor& t) const;

  // Each replica's value of `t` ([d] is replica d's), syncing `t` first if it is pending. A
  // plain (not per-replica) value is the same on every replica and is returned replicas()
  // times. T is float, int32_t or double, as for Tensor::to_vector.
  template <typename T>
  std::vector<std::vector<T>> gather(const Tensor& t) const;

 private:
  int64_t replicas_;
};

}  // namespace seam

#endif  // SEAM_DISTRIBUTED_H_

// Data parallelism, as PyTorch/XLA users know it: every replica (one per device: the local
// devices, CPU_NUM_DEVICES of them for PJRT_DEVICE=CPU, of every process of the job) runs
// the same program on its own shard of the batch, gradients are all-reduced inside that
// program, and parameters stay identical on every replica. docs/frontend.md ("Data
// parallel") has the rules; docs/distributed.md the jobs of several processes.
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

// This process's rank in a job of several processes (RANK; 0 in a job of one), and the
// job's process count (WORLD_SIZE; 1 in a job of one). Start the client if needed, which in
// a job of several processes waits for all of them (docs/distributed.md).
int64_t process_index();
int64_t process_count();

// Preemption (docs/distributed.md, "Preemption"), opt-in as PyTorch/XLA's preemption sync
// manager: after activate_preemption_sync() a SIGTERM to the process (or to `seam launch`,
// which forwards it) is a notice rather than the end: the handler only sets a flag. Call
// reached_preemption_sync_point(step) once per training step, every rank with the same
// increasing step numbers (0 or more): it returns true at the one step every rank of the job
// agrees on (the coordinator picks it once every rank has reported the notice; a rank may
// wait a moment in the call for it), and false before and without a notice. In a job of one
// process it returns true at the first call after the signal. Save a checkpoint there and
// exit with status 143: `seam launch` then exits 143 too, and does not restart the job.
// Installing the handler is done once (later calls do nothing); reached_... before it, or
// with a negative step, is an Error.
void activate_preemption_sync();
bool reached_preemption_sync_point(int64_t step);
// Whether this process has received SIGTERM since activate_preemption_sync().
bool preemption_noticed();

// How a DataParallel step exchanges gradients (Optimizer::step(loss, dp)).
struct DataParallelOptions {
  // Float32 gradients travel as bfloat16: rounded to bf16, summed over the replicas in bf16
  // (each addition rounded to bf16), widened back and divided by the replica count in f32.
  // Half the bytes on the wire of a job of several processes, as PyTorch DDP's
  // bf16_compress_hook; the update sees gradients with bf16's 8-bit mantissa
  // (docs/distributed.md, "bf16 gradient exchange", has the measured loss curve). Other
  // dtypes are exchanged as they are. Off by default.
  bool bf16_gradient_exchange = false;
  // Gradients are exchanged in buckets, last parameter first, as the backward pass computes
  // them: a bucket closes once its gradients hold at least this many bytes (their own
  // dtype's) or the gradients run out. Each bucket is one all_reduce,
  // which in a job of several processes starts as soon as its gradients are computed and
  // runs beside the rest of the backward pass (docs/distributed.md, "Overlapped gradient
  // exchange"). 0: the environment
  // variable SEAM_DP_BUCKET_BYTES, else kDefaultBucketBytes (25 MiB, PyTorch DDP's
  // bucket_cap_mb; measured against 256 KiB to 16 MiB in BENCHMARKS.md, "Data parallel
  // across processes").
  static constexpr int64_t kDefaultBucketBytes = int64_t{25} << 20;
  int64_t bucket_bytes = 0;
};

class DataParallel {
 public:
  // In a job of one process: over the first `replicas` local devices; 0 means all of them.
  // More replicas than local devices is an Error. In a job of several processes: over every
  // device of every process (replicas 0 or process_count() x local_device_count(), anything
  // else an Error); this process holds replicas [first_replica(), first_replica() +
  // local_replicas()).
  explicit DataParallel(int64_t replicas = 0);
  DataParallel(int64_t replicas, DataParallelOptions options);
  int64_t replicas() const { return replicas_; }
  const DataParallelOptions& options() const { return options_; }
  int64_t local_replicas() const { return local_replicas_; }
  int64_t first_replica() const { return first_replica_; }

  // This process's share of a batch split along axis 0 into local_replicas() equal shards:
  // local replica d holds rows [d*B/N, (d+1)*B/N) of the B rows given (N = local_replicas()),
  // and the tensor's shape is the shard's ([B/N, ...]). B must be a multiple of N. With one
  // local replica it is a plain tensor. In a job of one process this is the whole batch; in
  // a job of several each process passes its own rows (those of its replicas).
  Tensor shard(const std::vector<float>& values, std::vector<int64_t> shape) const;
  Tensor shard(const std::vector<int32_t>& values, std::vector<int64_t> shape) const;
  Tensor shard(const std::vector<double>& values, std::vector<int64_t> shape) const;

  // all_reduce(t, kSum) / replicas(): the mean over every replica of the job (the divisor
  // is a program constant). For float tensors.
  Tensor mean(const Tensor& t) const;

  // Each local replica's value of `t` ([d] is local replica d's, global replica
  // first_replica() + d), syncing `t` first if it is pending. A plain (not per-replica)
  // value is the same on every local replica and is returned local_replicas() times. T is
  // float, int32_t or double, as for Tensor::to_vector.
  template <typename T>
  std::vector<std::vector<T>> gather(const Tensor& t) const;

 private:
  int64_t replicas_;
  int64_t local_replicas_;
  int64_t first_replica_ = 0;
  DataParallelOptions options_;
};

}  // namespace seam

#endif  // SEAM_DISTRIBUTED_H_

// PlanSegments (loop_segments.h): which runs of a loop kernel's operations become generated
// code, and each run as a vector program with its registers and memory references.
#include "src/plugins/cpu/compile/loop_segments.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "src/plugins/cpu/api/cpu_settings.h"

namespace seam::cpu {
namespace {

using ir::Op;

std::optional<VectorOp> VectorOpOf(Op op) {
  switch (op) {
    case Op::kAdd:
      return VectorOp::kAdd;
    case Op::kSubtract:
      return VectorOp::kSubtract;
    case Op::kMultiply:
      return VectorOp::kMultiply;
    case Op::kDivide:
      return VectorOp::kDivide;
    case Op::kMaximum:
      return VectorOp::kMaximum;
    case Op::kMinimum:
      return VectorOp::kMinimum;
    case Op::kNeg:
      return VectorOp::kNeg;
    case Op::kAbs:
      return VectorOp::kAbs;
    case Op::kSqrt:
      return VectorOp::kSqrt;
    case Op::kRsqrt:
      return VectorOp::kRsqrt;
    case Op::kExp:
      return VectorOp::kExp;
    case Op::kErf:
      return VectorOp::kErf;
    case Op::kEq:
      return VectorOp::kEq;
    case Op::kNe:
      return VectorOp::kNe;
    case Op::kLt:
      return VectorOp::kLt;
    case Op::kLe:
      return VectorOp::kLe;
    case Op::kGt:
      return VectorOp::kGt;
    case Op::kGe:
      return VectorOp::kGe;
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#define SEAM_CASES_EXCEPT_kAdd
#define SEAM_CASES_EXCEPT_kSubtract
#define SEAM_CASES_EXCEPT_kMultiply
#define SEAM_CASES_EXCEPT_kDivide
#define SEAM_CASES_EXCEPT_kMaximum
#define SEAM_CASES_EXCEPT_kMinimum
#define SEAM_CASES_EXCEPT_kNeg
#define SEAM_CASES_EXCEPT_kAbs
#define SEAM_CASES_EXCEPT_kSqrt
#define SEAM_CASES_EXCEPT_kRsqrt
#define SEAM_CASES_EXCEPT_kExp
#define SEAM_CASES_EXCEPT_kErf
#define SEAM_CASES_EXCEPT_kEq
#define SEAM_CASES_EXCEPT_kNe
#define SEAM_CASES_EXCEPT_kLt
#define SEAM_CASES_EXCEPT_kLe
#define SEAM_CASES_EXCEPT_kGt
#define SEAM_CASES_EXCEPT_kGe
#include "src/ir/op_cases.inc"
#undef SEAM_CASES_EXCEPT_kEq
#undef SEAM_CASES_EXCEPT_kNe
#undef SEAM_CASES_EXCEPT_kLt
#undef SEAM_CASES_EXCEPT_kLe
#undef SEAM_CASES_EXCEPT_kGt
#undef SEAM_CASES_EXCEPT_kGe
#undef SEAM_CASES_EXCEPT_kAdd
#undef SEAM_CASES_EXCEPT_kSubtract
#undef SEAM_CASES_EXCEPT_kMultiply
#undef SEAM_CASES_EXCEPT_kDivide
#undef SEAM_CASES_EXCEPT_kMaximum
#undef SEAM_CASES_EXCEPT_kMinimum
#undef SEAM_CASES_EXCEPT_kNeg
#undef SEAM_CASES_EXCEPT_kAbs
#undef SEAM_CASES_EXCEPT_kSqrt
#undef SEAM_CASES_EXCEPT_kRsqrt
#undef SEAM_CASES_EXCEPT_kExp
#undef SEAM_CASES_EXCEPT_kErf
      break;
  }
  return std::nullopt;
}

// Whether the generated code takes `op`: an operation it has on f32 values (a compare's
// result a predicate, a select's first operand one), not streamed.
bool Takes(const TileOp& op) {
  if (op.dtype != ir::DType::kF32 || op.stream) return false;
  const bool f32_result = op.result_dtype == ir::DType::kF32;
  switch (op.kind) {
    case TileOp::kBinary: {
      const std::optional<VectorOp> v = VectorOpOf(op.op);
      if (!v.has_value()) return false;
      if (IsVectorCompare(*v)) return op.result_dtype == ir::DType::kPred;
      return f32_result && *v <= VectorOp::kMinimum;
    }
    case TileOp::kUnary: {
      const std::optional<VectorOp> v = VectorOpOf(op.op);
      return f32_result && v.has_value() && *v >= VectorOp::kNeg && *v <= VectorOp::kErf;
    }
    case TileOp::kChain:
    case TileOp::kCopy:
    case TileOp::kSelect:
      return f32_result;
    case TileOp::kConvert:
    case TileOp::kGather:
      break;
  }
  return false;
}

using RefKey = std::pair<int, int>;  // TileRef kind and index

RefKey KeyOf(const TileRef& r) { return {static_cast<int>(r.kind), r.index}; }

// For each op, the op that computed each of its operands (-1: a kernel input), and the ops
// that read each op's result.
struct Uses {
  std::vector<std::vector<int>> producers;
  std::vector<std::vector<int>> readers;
};

Uses FindUses(const LoopKernel& kernel) {
  const size_t n = kernel.ops.size();
  Uses uses{std::vector<std::vector<int>>(n), std::vector<std::vector<int>>(n)};
  std::map<RefKey, int> latest;  // the op whose result a scratch slot or output holds now
  for (size_t j = 0; j < n; ++j) {
    const TileOp& op = kernel.ops[j];
    for (const TileRef& r : op.operands) {
      int p = -1;
      if (r.kind != TileRef::kInput) {
        if (auto it = latest.find(KeyOf(r)); it != latest.end()) p = it->second;
      }
      uses.producers[j].push_back(p);
      if (p >= 0) uses.readers[p].push_back(static_cast<int>(j));
    }
    latest[KeyOf(op.result)] = static_cast<int>(j);
  }
  return uses;
}

// The row shift of a broadcast that spreads one f32 per row along rows of a power-of-two
// length from 2^kMinRowShift to 2^kMaxRowShift (a row statistic: walk [rows, length] with
// strides [1, 0]), else 0. Such a row never straddles a tile (kTileElements is a multiple of
// its length), so a tile's rows start at its first element.
int RowShiftOf(const TileOp& op) {
  if (op.kind != TileOp::kGather || op.dtype != ir::DType::kF32 || op.repeats ||
      op.dims.size() != 2 || op.strides[0] != 1 || op.strides[1] != 0) {
    return 0;
  }
  for (int shift = kMinRowShift; shift <= kMaxRowShift; ++shift) {
    if (op.dims[1] == int64_t{1} << shift) return kTileElements % op.dims[1] == 0 ? shift : 0;
  }
  return 0;
}

// Builds the program of ops [first, ...) until an op does not fit (registers or
// references); returns the end of what fits (> first unless op `first` alone does not fit).
class SegmentBuilder {
 public:
  SegmentBuilder(const LoopKernel& kernel, const Uses& uses, int first, int limit)
      : kernel_(kernel), uses_(uses), first_(first), limit_(limit) {
    for (int r = kVectorRegisters; r-- > 0;) free_.push_back(r);
  }

  int Build(PlannedSegment* out) {
    int k = first_;
    for (; k < limit_; ++k) {
      if (!Add(k)) break;
    }
    // Broadcasts at the end would only be filled earlier: they run as before.
    while (!gathers_.empty() && gathers_.back() == k - 1) {
      gathers_.pop_back();
      --k;
    }
    out->segment.first = first_;
    out->segment.end = k;
    out->segment.refs = refs_;
    out->segment.gathers = gathers_;
    out->segment.row_gathers.clear();
    for (const auto& [gather, shift] : row_gathers_) {
      if (gather < k) out->segment.row_gathers.push_back(gather);
    }
    const bool rows = std::any_of(ref_shift_.begin(), ref_shift_.end(), [](int s) { return s; });
    out->segment.row_shift = rows ? ref_shift_ : std::vector<int>();
    out->program.num_refs = static_cast<int>(refs_.size());
    out->program.steps = std::move(steps_);
    out->program.row_shift = out->segment.row_shift;
    return k;
  }

 private:
  // Adds op k to the program, or returns false (nothing added) where it does not fit.
  bool Add(int k) {
    const TileOp& op = kernel_.ops[k];
    if (op.kind == TileOp::kGather) {
      // A row broadcast that only ops of this run read is read in place (RowShiftOf).
      if (const int shift = RowShiftOf(op); shift != 0 && op.result.kind == TileRef::kScratch &&
                                            !uses_.readers[k].empty() && !ReadAfterRun(k)) {
        row_gathers_[k] = shift;
        return true;
      }
      // Its fill can run before the segment where no earlier op of the segment reads or
      // writes its slot; later ops read the slot from memory.
      if (RefIndex(op.result) >= 0) return false;
      gathers_.push_back(k);
      return true;
    }
    if (free_.empty()) return false;
    // References it would add (a row broadcast's: its operand, with the row shift).
    std::vector<std::pair<TileRef, int>> new_refs;
    auto need = [&](const TileRef& r, int shift) {
      if (RefIndex(r, shift) < 0 &&
          std::none_of(new_refs.begin(), new_refs.end(), [&](const auto& x) {
            return KeyOf(x.first) == KeyOf(r) && x.second == shift;
          })) {
        new_refs.emplace_back(r, shift);
      }
    };
    for (size_t i = 0; i < op.operands.size(); ++i) {
      if (!Source(k, i).in_memory) continue;
      const int p = uses_.producers[k][i];
      if (auto row = row_gathers_.find(p); row != row_gathers_.end()) {
        need(kernel_.ops[p].operands[0], row->second);
      } else {
        need(op.operands[i], 0);
      }
    }
    if (Stored(k)) need(op.result, 0);
    if (refs_.size() + new_refs.size() > static_cast<size_t>(kMaxSegmentRefs)) return false;
    for (const auto& [r, shift] : new_refs) {
      refs_.push_back(r);
      ref_shift_.push_back(shift);
    }
    const int dst = free_.back();
    free_.pop_back();
    Emit(k, dst);
    register_of_[k] = dst;
    // Registers whose value nothing later in the run reads are free again (the run may
    // still be cut later: a value read after the cut is then stored, see Finish).
    if (uses_.readers[k].empty() || !ReadLaterInRun(k, k)) Release(k);
    for (int p : uses_.producers[k]) {
      if (p >= first_ && register_of_.count(p) && !ReadLaterInRun(p, k)) Release(p);
    }
    return true;
  }

  // Whether op p's result is read by an op after k that the segment could still take.
  bool ReadLaterInRun(int p, int k) const {
    return std::any_of(uses_.readers[p].begin(), uses_.readers[p].end(),
                       [&](int r) { return r > k && r < limit_; });
  }

  // Whether op p's result is read at or after the end of the run.
  bool ReadAfterRun(int p) const {
    return std::any_of(uses_.readers[p].begin(), uses_.readers[p].end(),
                       [&](int r) { return r >= limit_; });
  }

  // Op k's result goes to memory: an output, or read after the run.
  bool Stored(int k) const {
    const TileOp& op = kernel_.ops[k];
    if (op.result.kind == TileRef::kOutput) return true;
    return std::any_of(uses_.readers[k].begin(), uses_.readers[k].end(),
                       [&](int r) { return r >= limit_; });
  }

  void Release(int p) {
    auto it = register_of_.find(p);
    if (it == register_of_.end() || it->second < 0) return;
    free_.push_back(it->second);
    it->second = -1;
  }

  // The index of reference r (a row reference where shift is not 0), or -1.
  int RefIndex(const TileRef& r, int shift = 0) const {
    for (size_t i = 0; i < refs_.size(); ++i) {
      if (KeyOf(refs_[i]) == KeyOf(r) && ref_shift_[i] == shift) return static_cast<int>(i);
    }
    return -1;
  }

  // Operand i of op k: the register of the op in this segment that computed it, else its
  // memory.
  VectorSource Source(int k, size_t i) const {
    const int p = uses_.producers[k][i];
    if (p >= first_) {
      if (auto it = register_of_.find(p); it != register_of_.end() && it->second >= 0) {
        return {false, it->second};
      }
    }
    if (auto row = row_gathers_.find(p); p >= 0 && row != row_gathers_.end()) {
      return {true, RefIndex(kernel_.ops[p].operands[0], row->second)};
    }
    return {true, RefIndex(kernel_.ops[k].operands[i])};
  }

  void Emit(int k, int dst) {
    const TileOp& op = kernel_.ops[k];
    const int store = Stored(k) ? RefIndex(op.result) : -1;
    const size_t begin = steps_.size();
    switch (op.kind) {
      case TileOp::kBinary:
        steps_.push_back({*VectorOpOf(op.op), dst, Source(k, 0), Source(k, 1), -1, {}});
        break;
      case TileOp::kUnary:
        steps_.push_back({*VectorOpOf(op.op), dst, Source(k, 0), {}, -1, {}});
        break;
      case TileOp::kCopy:
        steps_.push_back({VectorOp::kMove, dst, Source(k, 0), {}, -1, {}});
        break;
      case TileOp::kChain: {
        VectorSource v = Source(k, 0);
        for (const ChainStep& step : op.steps) {
          const auto vop = static_cast<VectorOp>(step.code / 3);  // kChainOps' order
          const VectorSource m = Source(k, step.operand);
          switch (static_cast<ChainShape>(step.code % 3)) {
            case ChainShape::kLeft:
              steps_.push_back({vop, dst, v, m, -1, {}});
              break;
            case ChainShape::kRight:
              steps_.push_back({vop, dst, m, v, -1, {}});
              break;
            case ChainShape::kBoth:
              steps_.push_back({vop, dst, v, v, -1, {}});
              break;
          }
          v = {false, dst};
        }
        break;
      }
      case TileOp::kSelect:
        steps_.push_back({VectorOp::kSelect, dst, Source(k, 0), Source(k, 1), -1, Source(k, 2)});
        break;
      case TileOp::kConvert:
      case TileOp::kGather:
        break;
    }
    if (steps_.size() > begin) steps_.back().store_to = store;
  }

  const LoopKernel& kernel_;
  const Uses& uses_;
  const int first_, limit_;
  std::vector<int> free_;
  std::map<int, int> register_of_;  // op -> register (-1 once released)
  std::vector<TileRef> refs_;
  std::vector<int> ref_shift_;  // per reference: 0, or a row reference's shift
  std::vector<VectorStep> steps_;
  std::vector<int> gathers_;        // broadcasts filled before the segment
  std::map<int, int> row_gathers_;  // row broadcasts read in place -> their row shift
};

}  // namespace

std::vector<PlannedSegment> PlanSegments(const LoopKernel& kernel) {
  const Uses uses = FindUses(kernel);
  std::vector<PlannedSegment> segments;
  const int n = static_cast<int>(kernel.ops.size());
  for (int i = 0; i < n;) {
    // A run starts at an op the code takes, or at the broadcasts just before one.
    int taken = i;
    while (taken < n && kernel.ops[taken].kind == TileOp::kGather) ++taken;
    if (taken == n || !Takes(kernel.ops[taken])) {
      i = taken + 1;
      continue;
    }
    // A run goes on through broadcasts (kGather): their fills can run before its segment.
    int limit = i;
    while (limit < n && (Takes(kernel.ops[limit]) || kernel.ops[limit].kind == TileOp::kGather)) {
      ++limit;
    }
    // [i, run_end) is one run; cut into segments where registers or references run out.
    // A segment is built again with its cut as its limit, so that the values the rest of
    // the run reads are stored; storing more may need more references and cut it earlier,
    // so until the cut stays.
    const int run_end = limit;
    while (i < run_end) {
      PlannedSegment planned;
      int end = SegmentBuilder(kernel, uses, i, limit).Build(&planned);
      while (end > i && end < limit) {
        limit = end;
        end = SegmentBuilder(kernel, uses, i, limit).Build(&planned);
      }
      // Two operations at least, or one that reads a row broadcast in place (its fill saved).
      const int operations = end - i - static_cast<int>(planned.segment.gathers.size()) -
                             static_cast<int>(planned.segment.row_gathers.size());
      if (operations >= 2 || (operations == 1 && !planned.segment.row_gathers.empty())) {
        segments.push_back(std::move(planned));
      }
      i = std::max(end, i + 1);
      limit = run_end;
    }
  }
  return segments;
}

void GenerateLoopCode(std::vector<LoopKernel>* kernels) {
  if (!ActiveChainCode() || !ChainCodeAvailable()) return;
  // Every kernel's chains and segments in one Compile (one mapping for the executable: the
  // mapping's system calls and TLB flushes were a third of a small program's compile when
  // each kernel had its own).
  struct Owner {
    LoopKernel* kernel;
    PlannedSegment planned;
  };
  std::vector<Owner> segments;
  std::vector<TileOp*> chain_ops;
  std::vector<ChainSpec> chains;
  std::vector<VectorProgram> programs;
  for (LoopKernel& kernel : *kernels) {
    std::vector<bool> in_segment(kernel.ops.size(), false);
    for (PlannedSegment& p : PlanSegments(kernel)) {
      std::fill(in_segment.begin() + p.segment.first, in_segment.begin() + p.segment.end, true);
      programs.push_back(p.program);
      segments.push_back({&kernel, std::move(p)});
    }
    for (size_t i = 0; i < kernel.ops.size(); ++i) {
      TileOp& op = kernel.ops[i];
      if (op.kind != TileOp::kChain || in_segment[i]) continue;
      chains.push_back({op.dtype, op.steps, static_cast<int>(op.operands.size()), op.stream});
      chain_ops.push_back(&op);
    }
  }
  if (chains.empty() && programs.empty()) return;
  const std::shared_ptr<const ChainCode> code = ChainCode::Compile(chains, programs);
  if (code == nullptr) return;
  for (size_t i = 0; i < chain_ops.size(); ++i) chain_ops[i]->chain_function = code->function(i);
  for (size_t i = 0; i < segments.size(); ++i) {
    LoopKernel& kernel = *segments[i].kernel;
    LoopSegment segment = std::move(segments[i].planned.segment);
    segment.function = code->segment(i);
    if (segment.function == nullptr) continue;  // its ops run as tile passes
    if (kernel.segment_at.empty()) kernel.segment_at.assign(kernel.ops.size(), -1);
    kernel.segment_at[segment.first] = static_cast<int>(kernel.segments.size());
    kernel.segments.push_back(std::move(segment));
  }
  for (LoopKernel& kernel : *kernels) kernel.chain_code = code;
}

}  // namespace seam::cpu

// Generated chain code (chain_jit.h), emitted with xbyak (Debian: libxbyak-dev).
#include "src/plugins/cpu/kernels/chain_jit.h"

#include <atomic>
#include <cstdint>
#include <exception>

#if defined(__x86_64__)
#define SEAM_CHAIN_JIT 1
// An executable mapping of its own (mmap), never writable and executable at once: written
// while read-write, then switched to read-execute before any chain runs.
#define XBYAK_USE_MMAP_ALLOCATOR 1
#include <xbyak/xbyak.h>
#else
#define SEAM_CHAIN_JIT 0
#endif

namespace seam::cpu {
namespace {

std::atomic<int64_t> generated_chains{0};

// Mappings of generated code live in this process at once, in bytes; beyond this budget
// more kernels keep their chains on FastChainF32/F64 (a program of many thousands of loop
// kernels would otherwise map a page for each).
constexpr int64_t kMaxLiveCodeBytes = int64_t{64} << 20;
std::atomic<int64_t> live_code_bytes{0};

// The largest code one step adds per block: for maximum/minimum two compares, the
// operation, two masked writes, a load and a move of 7 to 11 bytes each for each of the 4
// vectors. Generous: an overflow is caught and leaves the kernel without code.
constexpr size_t kStepBytes = 4 * 80;
constexpr size_t kChainOverheadBytes = 256;

bool Qualifies(const ChainSpec& chain) {
  return (chain.dtype == ir::DType::kF32 || chain.dtype == ir::DType::kF64) &&
         !chain.steps.empty() && chain.steps.size() <= kMaxGeneratedChainSteps &&
         chain.num_operands >= 1 && chain.num_operands <= kMaxChainOperands;
}

}  // namespace

#if SEAM_CHAIN_JIT

struct ChainCode::Generator : Xbyak::CodeGenerator {
  explicit Generator(size_t bytes) : Xbyak::CodeGenerator(bytes, Xbyak::DontSetProtectRWE) {}

  // The operands' addresses live in these registers; r12 is the byte offset of the block.
  static Xbyak::Reg64 Pointer(int k) {
    static constexpr int kPointers[kMaxChainOperands] = {
        Xbyak::Operand::R8,  Xbyak::Operand::R9,  Xbyak::Operand::R10, Xbyak::Operand::R11,
        Xbyak::Operand::RAX, Xbyak::Operand::RCX, Xbyak::Operand::RBX, Xbyak::Operand::RDI};
    return Xbyak::Reg64(kPointers[k]);
  }

  // One chain as a function (operands: rdi, out: rsi, blocks: rdx).
  void Emit(const ChainSpec& chain) {
    const bool f32 = chain.dtype == ir::DType::kF32;
    bool selects = false;  // any maximum or minimum: they need the NaN constant
    for (const ChainStep& step : chain.steps) selects |= step.code / 3 >= 4;
    push(rbx);
    push(r12);
    if (selects) {
      // zmm31: the quiet NaN std::numeric_limits gives, in every lane.
      if (f32) {
        mov(eax, 0x7fc00000);
        vpbroadcastd(zmm31, eax);
      } else {
        mov(rax, uint64_t{0x7ff8000000000000});
        vpbroadcastq(zmm31, rax);
      }
    }
    // rdi holds the operand list until the last load, which replaces it.
    for (int k = 0; k < chain.num_operands; ++k) {
      if (Pointer(k).getIdx() != Xbyak::Operand::RDI) mov(Pointer(k), ptr[rdi + 8 * k]);
    }
    if (chain.num_operands == kMaxChainOperands) {
      mov(rdi, ptr[rdi + 8 * (kMaxChainOperands - 1)]);
    }
    Xbyak::Label loop, done;
    xor_(r12, r12);
    test(rdx, rdx);
    jz(done, T_NEAR);
    L(loop);
    for (int j = 0; j < 4; ++j) Move(f32, Xbyak::Zmm(j), ptr[Pointer(0) + r12 + 64 * j]);
    for (const ChainStep& step : chain.steps) EmitStep(f32, step);
    for (int j = 0; j < 4; ++j) {
      const Xbyak::Address to = ptr[rsi + r12 + 64 * j];
      if (chain.stream) {
        f32 ? vmovntps(to, Xbyak::Zmm(j)) : vmovntpd(to, Xbyak::Zmm(j));
      } else {
        f32 ? vmovups(to, Xbyak::Zmm(j)) : vmovupd(to, Xbyak::Zmm(j));
      }
    }
    add(r12, static_cast<int>(kChainCodeBlockBytes));
    dec(rdx);
    jnz(loop, T_NEAR);
    L(done);
    pop(r12);
    pop(rbx);
    vzeroupper();
    ret();
  }

  void Move(bool f32, const Xbyak::Zmm& to, const Xbyak::Operand& from) {
    f32 ? vmovups(to, from) : vmovupd(to, from);
  }

  // v = op(v, m), op(m, v) or op(v, v) on the block's four vectors zmm0-3 (zmm4-7 hold a
  // loaded m, zmm8-11 a maximum or minimum being built).
  void EmitStep(bool f32, const ChainStep& step) {
    const int index = step.code / 3;  // kernels_fast.cc's order: + - * / max min
    const auto shape = static_cast<ChainShape>(step.code % 3);
    for (int j = 0; j < 4; ++j) {
      const Xbyak::Zmm v(j), m(4 + j), r(8 + j);
      const Xbyak::Address at = ptr[Pointer(step.operand) + r12 + 64 * j];
      if (index < 4) {
        if (shape == ChainShape::kBoth) {
          Arithmetic(f32, index, v, v, v);
        } else if (shape == ChainShape::kLeft) {
          Arithmetic(f32, index, v, v, at);
        } else {
          Move(f32, m, at);
          Arithmetic(f32, index, v, m, v);
        }
        continue;
      }
      // a = the left operand, b = the right one.
      const Xbyak::Zmm a = shape == ChainShape::kRight ? m : v;
      const Xbyak::Zmm b = shape == ChainShape::kBoth ? v : shape == ChainShape::kLeft ? m : v;
      if (shape != ChainShape::kBoth) Move(f32, m, at);
      const bool maximum = index == 4;
      // Equal lanes (either zero against the other) get a & b (maximum) or a | b (minimum)
      // bit for bit, unordered lanes the quiet NaN, the others the larger or smaller: the
      // rules of kernels_fast.cc's Max and Min.
      f32 ? vcmpps(k1, a, b, 0) : vcmppd(k1, a, b, 0);  // EQ_OQ
      f32 ? vcmpps(k2, a, b, 3) : vcmppd(k2, a, b, 3);  // UNORD_Q
      if (maximum) {
        f32 ? vmaxps(r, a, b) : vmaxpd(r, a, b);  // a > b ? a : b
        f32 ? vpandd(r | k1, a, b) : vpandq(r | k1, a, b);
      } else {
        f32 ? vminps(r, a, b) : vminpd(r, a, b);  // a < b ? a : b
        f32 ? vpord(r | k1, a, b) : vporq(r | k1, a, b);
      }
      f32 ? vmovaps(r | k2, zmm31) : vmovapd(r | k2, zmm31);
      f32 ? vmovaps(v, r) : vmovapd(v, r);
    }
  }

  void Arithmetic(bool f32, int index, const Xbyak::Zmm& to, const Xbyak::Zmm& a,
                  const Xbyak::Operand& b) {
    switch (index) {  // kChainOps' order
      case 0:
        return f32 ? vaddps(to, a, b) : vaddpd(to, a, b);
      case 1:
        return f32 ? vsubps(to, a, b) : vsubpd(to, a, b);
      case 2:
        return f32 ? vmulps(to, a, b) : vmulpd(to, a, b);
      default:
        return f32 ? vdivps(to, a, b) : vdivpd(to, a, b);
    }
  }
};

ChainCode::~ChainCode() { live_code_bytes.fetch_sub(static_cast<int64_t>(bytes_)); }

bool ChainCodeAvailable() {
  static const bool available = __builtin_cpu_supports("avx512f");
  return available;
}

std::shared_ptr<const ChainCode> ChainCode::Compile(const std::vector<ChainSpec>& chains) {
  if (!ChainCodeAvailable()) return nullptr;
  size_t bytes = 0;
  for (const ChainSpec& chain : chains) {
    if (Qualifies(chain)) bytes += kChainOverheadBytes + chain.steps.size() * kStepBytes;
  }
  if (bytes == 0) return nullptr;
  constexpr size_t kPage = 4096;
  bytes = (bytes + kPage - 1) / kPage * kPage;
  if (live_code_bytes.fetch_add(static_cast<int64_t>(bytes)) + static_cast<int64_t>(bytes) >
      kMaxLiveCodeBytes) {
    live_code_bytes.fetch_sub(static_cast<int64_t>(bytes));
    return nullptr;
  }
  std::shared_ptr<ChainCode> code(new ChainCode);
  code->bytes_ = bytes;  // the destructor returns them to the budget
  try {
    code->generator_ = std::make_unique<Generator>(bytes);
  } catch (const std::exception&) {
    return nullptr;
  }
  Generator& g = *code->generator_;
  code->functions_.assign(chains.size(), nullptr);
  int64_t made = 0;
  try {
    for (size_t i = 0; i < chains.size(); ++i) {
      if (!Qualifies(chains[i])) continue;
      g.align(16);
      code->functions_[i] = reinterpret_cast<ChainFunction>(const_cast<uint8_t*>(g.getCurr()));
      g.Emit(chains[i]);
      ++made;
    }
  } catch (const std::exception&) {
    return nullptr;
  }
  if (!g.setProtectModeRE(false)) return nullptr;
  generated_chains.fetch_add(made);
  return code;
}

#else  // no generated code on this architecture

struct ChainCode::Generator {};
ChainCode::~ChainCode() = default;
bool ChainCodeAvailable() { return false; }
std::shared_ptr<const ChainCode> ChainCode::Compile(const std::vector<ChainSpec>&) {
  return nullptr;
}

#endif

int64_t RunChainFunction(ChainFunction function, ir::DType dtype, bool stream,
                         const uint8_t* const* operands, uint8_t* out, int64_t n) {
  const int64_t per_block = kChainCodeBlockBytes / (dtype == ir::DType::kF32 ? 4 : 8);
  const int64_t blocks = n / per_block;
  if (blocks == 0 || (stream && reinterpret_cast<uintptr_t>(out) % 64 != 0)) return 0;
  function(operands, out, blocks);
  return blocks * per_block;
}

int64_t GeneratedChainCount() { return generated_chains.load(); }

}  // namespace seam::cpu

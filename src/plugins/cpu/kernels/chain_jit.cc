// Generated loop code (chain_jit.h), emitted with xbyak (Debian: libxbyak-dev).
#include "src/plugins/cpu/kernels/chain_jit.h"

#include <atomic>
#include <bit>
#include <cstdint>
#include <exception>
#include <utility>

#include "src/base/sanitizers.h"

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
std::atomic<int64_t> failed_compiles{0};

// Mappings of generated code live in this process at once, in bytes; beyond this budget
// more kernels keep their chains on FastChainF32/F64 (a program of many thousands of loop
// kernels would otherwise map a page for each).
constexpr int64_t kMaxLiveCodeBytes = int64_t{64} << 20;
std::atomic<int64_t> live_code_bytes{0};

// The largest code one step adds per block: for maximum/minimum two compares, the
// operation, two masked writes, a load and a move of 7 to 11 bytes each for each of the 4
// vectors. Generous: an overflow is caught and leaves the kernel without code.
constexpr size_t kStepBytes = size_t{4} * 80;
constexpr size_t kChainOverheadBytes = 256;

// A segment step's code, at most: an exp's 36 instructions or a maximum's nine, with the
// loads and the store, at up to 12 bytes each; four times (the pair's two copies, the single
// vector, the tail).
constexpr size_t kSegmentStepBytes = size_t{4} * 128;
constexpr size_t kSegmentExpBytes = size_t{4} * 512;
constexpr size_t kSegmentErfBytes = size_t{4} * 1024;  // about 60 instructions

size_t SegmentBytes(const VectorProgram& program) {
  size_t bytes = 0;
  for (const VectorStep& step : program.steps) {
    if (step.op == VectorOp::kExp) {
      bytes += kSegmentExpBytes;
    } else if (step.op == VectorOp::kErf) {
      bytes += kSegmentErfBytes;
    } else {
      bytes += kSegmentStepBytes;
    }
  }
  return bytes;
}

bool InRegisters(int index) { return index >= 0 && index < kVectorRegisters; }

bool Valid(const VectorProgram& program) {
  if (program.steps.empty() || program.num_refs < 0 || program.num_refs > kMaxSegmentRefs) {
    return false;
  }
  auto source = [&](const VectorSource& s) {
    return s.in_memory ? s.index >= 0 && s.index < program.num_refs : InRegisters(s.index);
  };
  const bool rows = !program.row_shift.empty();
  if (rows && program.row_shift.size() != static_cast<size_t>(program.num_refs)) return false;
  auto row = [&](int ref) { return rows && ref >= 0 && program.row_shift[ref] != 0; };
  for (int shift : program.row_shift) {
    if (shift != 0 && (shift < kMinRowShift || shift > kMaxRowShift)) return false;
  }
  for (const VectorStep& step : program.steps) {
    if (!InRegisters(step.dst) || !source(step.a) || !source(step.b) ||
        (step.op == VectorOp::kSelect && !source(step.c)) || step.store_to >= program.num_refs) {
      return false;
    }
    // A row reference is read as f32 values only: never stored to, never a predicate.
    if (row(step.store_to) ||
        (step.a.in_memory && row(step.a.index) && (step.op == VectorOp::kSelect))) {
      return false;
    }
  }
  return true;
}

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
      if (Pointer(k).getIdx() != Xbyak::Operand::RDI) mov(Pointer(k), ptr[rdi + size_t{8} * k]);
    }
    if (chain.num_operands == kMaxChainOperands) {
      mov(rdi, ptr[rdi + size_t{8} * (kMaxChainOperands - 1)]);
    }
    Xbyak::Label loop, done;
    xor_(r12, r12);
    test(rdx, rdx);
    jz(done, T_NEAR);
    L(loop);
    for (int j = 0; j < 4; ++j) Move(f32, Xbyak::Zmm(j), ptr[Pointer(0) + r12 + size_t{64} * j]);
    for (const ChainStep& step : chain.steps) EmitStep(f32, step);
    for (int j = 0; j < 4; ++j) {
      const Xbyak::Address to = ptr[rsi + r12 + size_t{64} * j];
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
      const Xbyak::Address at = ptr[Pointer(step.operand) + r12 + size_t{64} * j];
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
      MaxMin(f32, maximum, a, b, r, v);
    }
  }

  // to = maximum or minimum of a and b, built in r (which is neither): zmm31 holds the NaN.
  void MaxMin(bool f32, bool maximum, const Xbyak::Zmm& a, const Xbyak::Zmm& b, const Xbyak::Zmm& r,
              const Xbyak::Zmm& to) {
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
    f32 ? vmovaps(to, r) : vmovapd(to, r);
  }

  // A segment as a function (refs: rdi, n: rsi). Two vectors at a time while two remain
  // (their instructions interleaved step by step: the out-of-order core overlaps the two
  // dependency chains, an exp's above all), then one, then the last n % 16 elements masked.
  // rcx is the byte offset of the first vector (of f32 elements; r10 = rcx / 4 that of a
  // predicate's bytes), r8 the end of the pairs, rax and rdx a reference's address. Value
  // slot s of copy j is zmm(2s + j); zmm20-23 and zmm24-27 are copy 0's and copy 1's
  // temporaries; zmm28-31 hold 1.0, the magnitude mask, the sign bit and the NaN. k1-k5
  // are maximum's, minimum's and exp's, k6 a compare's or select's, k7 the tail's mask.
  void EmitSegment(const VectorProgram& program) {
    Xbyak::Label table;  // this function's own constants, after its code
    constants_ = &table;
    row_shift_ = &program.row_shift;
    const std::pair<const Xbyak::Zmm*, uint32_t> constants[] = {
        {&zmm28, 0x3f800000}, {&zmm29, 0x7fffffff}, {&zmm30, 0x80000000}, {&zmm31, 0x7fc00000}};
    for (const auto& [reg, bits] : constants) {
      mov(eax, bits);
      vpbroadcastd(*reg, eax);
    }
    Xbyak::Label pairs, single, tail, done;
    mov(r8, rsi);
    and_(r8, -32);
    shl(r8, 2);
    xor_(ecx, ecx);
    cmp(rcx, r8);
    jae(single, T_NEAR);
    L(pairs);
    EmitBody(program, false, 2);
    add(rcx, 128);
    cmp(rcx, r8);
    jb(pairs, T_NEAR);
    L(single);
    test(rsi, 16);
    jz(tail, T_NEAR);
    EmitBody(program, false, 1);
    add(rcx, 64);
    L(tail);
    mov(r9, rsi);
    and_(r9, 15);
    jz(done, T_NEAR);
    mov(eax, 1);
    shlx(eax, eax, r9d);
    dec(eax);
    kmovw(k7, eax);
    EmitBody(program, true, 1);
    L(done);
    vzeroupper();
    ret();
    WriteConstants();
  }

  // The constants of Exp, written after each segment's code (`constants_`).
  enum Constant {
    kMinus104,
    k89,
    kLog2e,
    kRound,
    kLn2High,
    kLn2Low,
    kP0,
    kP1,
    kP2,
    kP3,
    kP4,
    kP5,
    kOne,
    kBias,
    kIntOne,  // a true predicate's lane
    // Erf's: the Taylor coefficients from x^20's down to x^2's, 2 / sqrt(pi), the clamp, the
    // p of t = 1 / (1 + p |x|) and the five of the Abramowitz-Stegun polynomial.
    kT10,
    kT9,
    kT8,
    kT7,
    kT6,
    kT5,
    kT4,
    kT3,
    kT2,
    kT1,
    kTwoOverSqrtPi,
    kFour,
    kErfP,
    kA5,
    kA4,
    kA3,
    kA2,
    kA1,
    kConstants
  };

  void WriteConstants() {
    align(64);
    L(*constants_);
    const float values[] = {-104.0F,
                            89.0F,
                            1.44269504088896341F,
                            12582912.0F,
                            -0.693359375F,
                            2.12194440e-4F,
                            1.9875691500e-4F,
                            1.3981999507e-3F,
                            8.3334519073e-3F,
                            4.1665795894e-2F,
                            1.6666665459e-1F,
                            5.0000001201e-1F,
                            1.0F};
    for (float v : values) dd(std::bit_cast<uint32_t>(v));
    dd(127);  // kBias: the exponent's
    dd(1);    // kIntOne
    const float erf[] = {1.3122532963802806e-08F,
                         -1.4503852223150468e-07F,
                         1.4589169000933706e-06F,
                         -1.3227513227513228e-05F,
                         1.0683760683760684e-04F,
                         -7.5757575757575758e-04F,
                         4.6296296296296296e-03F,
                         -2.3809523809523808e-02F,
                         1.0000000000000000e-01F,
                         -3.3333333333333333e-01F,
                         1.1283791670955126F,
                         4.0F,
                         0.3275911F,
                         1.061405429F,
                         -1.453152027F,
                         1.421413741F,
                         -0.284496736F,
                         0.254829592F};
    for (float v : erf) dd(std::bit_cast<uint32_t>(v));
  }

  // A constant in every lane, as a broadcast memory operand.
  Xbyak::Address C(Constant c) {
    return ptr_b[rip + *constants_ + static_cast<int64_t>(4) * static_cast<int64_t>(c)];
  }
  // The same as a scalar (vbroadcastss's operand).
  Xbyak::Address Scalar(Constant c) {
    return dword[rip + *constants_ + static_cast<int64_t>(4) * static_cast<int64_t>(c)];
  }

  // to = exp(x) with kernels_math.cc's Exp<true> operations in its order (FMA version), so
  // the same bits: clamp, n = round(x log2 e), r = x - n ln 2 in two parts, the degree-6
  // polynomial, 2^n as two factors, +0 at and below -104. Copy j's four temporaries and
  // k3-k5 are its own; x may be the first temporary.
  void Exp(const Xbyak::Zmm& to, const Xbyak::Zmm& x, int j) {
    const Xbyak::Zmm t0 = Temp(j, 0), t1 = Temp(j, 1), t2 = Temp(j, 2), t3 = Temp(j, 3);
    vcmpps(k3, x, C(kMinus104), 2);  // x <= -104 (LE; NaN false)
    vmovaps(t1, x);
    vpxord(t1 | k3, t1, t1);             // c = zero ? 0 : x
    vcmpps(k4, t1, C(k89), 14);          // c > 89 (GT; NaN false)
    vbroadcastss(t1 | k4, Scalar(k89));  // c = 89 there
    vmulps(t2, t1, C(kLog2e));           // t
    vaddps(t2, t2, C(kRound));
    vsubps(t2, t2, C(kRound));  // n
    vmovaps(t3, t1);
    vfmadd231ps(t3, t2, C(kLn2High));  // r = fma(n, -ln2_hi, c)
    vfmadd231ps(t3, t2, C(kLn2Low));   // r = fma(n, ln2_lo, r)
    vbroadcastss(t1, Scalar(kP0));     // p
    for (Constant c : {kP1, kP2, kP3, kP4, kP5}) vfmadd213ps(t1, t3, C(c));  // p = fma(p, r, c)
    vmulps(t1, t1, t3);                                                      // p * r
    vfmadd213ps(t1, t3, t3);                                                 // fma(p r, r, r)
    vaddps(t1, t1, C(kOne));                                                 // e
    vcmpps(k5, t2, t2, 0);                                                   // n == n
    vmovaps(t2 | k5 | T_z, t2);                                              // safe n (0 for NaN)
    vcvttps2dq(t2, t2);                                                      // whole
    vpsrld(t0, t2, 31);
    vpaddd(t0, t0, t2);
    vpsrad(t0, t0, 1);   // half = whole / 2 (toward zero)
    vpsubd(t3, t2, t0);  // whole - half
    vpaddd(t0, t0, C(kBias));
    vpslld(t0, t0, 23);  // 2^half
    vpaddd(t3, t3, C(kBias));
    vpslld(t3, t3, 23);  // 2^(whole - half)
    vmulps(t1, t1, t0);
    vmulps(t1, t1, t3);       // e 2^half 2^(whole - half)
    vpxord(t1 | k3, t1, t1);  // zero ? 0 : scaled
    vmovaps(to, t1);
  }

  // to = erf(x) with kernels_math.cc's Erf<true> operations in its order (FMA version), so
  // the same bits: a = |x|; for a < 1 the Taylor polynomial in a^2 times 2 / sqrt(pi) a,
  // else 1 - (poly(u) u) exp(-b^2) with b = min(a, 4) and u = 1 / (1 + p b), exp(-b^2) as
  // ExpOfSmallNegative (one scale factor); x's sign copied over; a NaN returned as it is.
  // Each branch is computed only when one of the vector's lanes takes it (a GELU's inputs
  // are mostly below 1: the second branch, about two thirds of the work, is then skipped
  // for whole vectors); the lanes' values are the same either way. kortestw's flags live
  // through the vector instructions between the two tests (none of them writes flags).
  // `to` is not x (the planner gives a step a register none of its operands is in); copy j
  // uses its own temporaries after x and both of the other copy's (nothing lives in them
  // between steps), and k3-k4.
  void Erf(const Xbyak::Zmm& to, const Xbyak::Zmm& x, int j) {
    const int o = 1 - j;
    const Xbyak::Zmm r1 = Temp(j, 1), r2 = Temp(j, 2), r3 = Temp(j, 3), r4 = Temp(o, 0),
                     r5 = Temp(o, 1), r6 = Temp(o, 2), r7 = Temp(o, 3);
    Xbyak::Label large, finish;
    vpandd(r1, zmm29, x);      // a
    vcmpps(k3, r1, zmm28, 1);  // a < 1 (LT; NaN false)
    kortestw(k3, k3);          // ZF: no lane below 1; CF: every lane
    jz(large, T_NEAR);
    vmulps(r2, r1, r1);  // s
    vbroadcastss(r3, Scalar(kT10));
    for (Constant c : {kT9, kT8, kT7, kT6, kT5, kT4, kT3, kT2, kT1, kOne}) {
      vfmadd213ps(r3, r2, C(c));  // t = fma(t, s, c)
    }
    vmulps(r4, r1, C(kTwoOverSqrtPi));
    vmulps(to, r4, r3);  // small
    jc(finish, T_NEAR);  // the flags are still kortestw's
    L(large);
    vminps(r1, r1, C(kFour));  // b = a < 4 ? a : 4
    vbroadcastss(r2, Scalar(kErfP));
    vfmadd213ps(r2, r1, C(kOne));  // fma(p, b, 1)
    vdivps(r2, zmm28, r2);         // u
    vbroadcastss(r3, Scalar(kA5));
    for (Constant c : {kA4, kA3, kA2, kA1}) vfmadd213ps(r3, r2, C(c));  // poly = fma(poly, u, c)
    vmulps(r3, r3, r2);
    vpxord(r3, r3, zmm30);  // -(poly u)
    vpxord(r4, r1, zmm30);
    vmulps(r4, r4, r1);  // -b b
    vmulps(r5, r4, C(kLog2e));
    vaddps(r5, r5, C(kRound));
    vsubps(r5, r5, C(kRound));  // n
    vmovaps(r6, r4);
    vfmadd231ps(r6, r5, C(kLn2High));  // r = fma(n, -ln2_hi, -b b)
    vfmadd231ps(r6, r5, C(kLn2Low));   // r = fma(n, ln2_lo, r)
    vbroadcastss(r7, Scalar(kP0));
    for (Constant c : {kP1, kP2, kP3, kP4, kP5}) vfmadd213ps(r7, r6, C(c));  // p = fma(p, r, c)
    vmulps(r7, r7, r6);                                                      // p * r
    vfmadd213ps(r7, r6, r6);                                                 // fma(p r, r, r)
    vaddps(r7, r7, C(kOne));                                                 // e
    vcvttps2dq(r5, r5);
    vpaddd(r5, r5, C(kBias));
    vpslld(r5, r5, 23);            // 2^n
    vmulps(r7, r7, r5);            // exp(-b^2)
    vfmadd213ps(r3, r7, C(kOne));  // large = fma(-(poly u), exp(-b^2), 1)
    vblendmps(to | k3, r3, to);    // a < 1 ? small : large (no lane below 1: none of to's)
    L(finish);
    vpandd(to, to, zmm29);
    vpandd(r1, x, zmm30);
    vpord(to, to, r1);    // copysign(magnitude, x)
    vcmpps(k4, x, x, 3);  // x != x (UNORD)
    vmovaps(to | k4, x);
  }

  Xbyak::Label* constants_ = nullptr;            // the table of the segment being written
  const std::vector<int>* row_shift_ = nullptr;  // the segment's (VectorProgram::row_shift)

  // Reference `ref` of the segment being written is a row reference: its shift, else 0.
  int RowShift(int ref) const {
    return row_shift_ != nullptr && ref >= 0 && ref < static_cast<int>(row_shift_->size())
               ? (*row_shift_)[ref]
               : 0;
  }

  // Copy j's vector of reference `ref`.
  Xbyak::Address Reference(const Xbyak::Reg64& base, int ref, int j) {
    mov(base, ptr[rdi + size_t{8} * ref]);
    return ptr[base + rcx + size_t{64} * j];
  }

  // Copy j's 16 bytes of predicate reference `ref` (one byte per element: the element
  // offset is rcx / 4).
  Xbyak::Address PredicateReference(int ref, int j) {
    mov(rax, ptr[rdi + size_t{8} * ref]);
    mov(r10, rcx);
    shr(r10, 2);
    return ptr[rax + r10 + size_t{16} * j];
  }

  // A predicate source of copy j as 32-bit lanes (a byte's value when loaded into `temp`
  // from memory: a select tests them for nonzero).
  Xbyak::Zmm LoadPredicate(const VectorSource& source, const Xbyak::Zmm& temp, bool masked, int j) {
    if (!source.in_memory) return Value(source.index, j);
    const Xbyak::Address at = PredicateReference(source.index, j);
    masked ? vpmovzxbd(temp | k7 | T_z, at) : vpmovzxbd(temp, at);
    return temp;
  }

  static Xbyak::Zmm Value(int slot, int j) { return Xbyak::Zmm(2 * slot + j); }
  static Xbyak::Zmm Temp(int j, int i) { return Xbyak::Zmm(20 + 4 * j + i); }

  // The source of copy j in a register: its own, or loaded into `temp` (masked in the
  // tail: nothing past n is read).
  Xbyak::Zmm Load(const VectorSource& source, const Xbyak::Zmm& temp, bool masked, int j) {
    if (!source.in_memory) return Value(source.index, j);
    if (const int shift = RowShift(source.index); shift != 0) {
      // The row of copy j's first element, (rcx / 4 + 16 j) >> shift: one value for the
      // whole vector (a row holds whole vectors), read even in the tail (the vector's
      // first element is below n, so its row is one the caller's rows cover).
      mov(rax, ptr[rdi + size_t{8} * source.index]);
      lea(r10, ptr[rcx + size_t{64} * j]);
      shr(r10, shift + 2);
      vbroadcastss(temp, ptr[rax + r10 * 4]);
      return temp;
    }
    const Xbyak::Address at = Reference(rax, source.index, j);
    masked ? vmovups(temp | k7 | T_z, at) : vmovups(temp, at);
    return temp;
  }

  void EmitBody(const VectorProgram& program, bool masked, int copies) {
    for (const VectorStep& step : program.steps) {
      for (int j = 0; j < copies; ++j) EmitStep(step, masked, j);
    }
  }

  void EmitStep(const VectorStep& step, bool masked, int j) {
    const Xbyak::Zmm to = Value(step.dst, j);
    auto a = [&] { return Load(step.a, Temp(j, 0), masked, j); };
    switch (step.op) {
      case VectorOp::kAdd:
      case VectorOp::kSubtract:
      case VectorOp::kMultiply:
      case VectorOp::kDivide: {
        const int index = static_cast<int>(step.op);  // kChainOps' order
        const Xbyak::Zmm left = a();
        // Whole vectors read a memory source as the instruction's operand; the tail loads it.
        if (step.b.in_memory && !masked && RowShift(step.b.index) == 0) {
          Arithmetic(true, index, to, left, Reference(rdx, step.b.index, j));
        } else {
          Arithmetic(true, index, to, left, Load(step.b, Temp(j, 1), masked, j));
        }
        break;
      }
      case VectorOp::kMaximum:
      case VectorOp::kMinimum:
        MaxMin(true, step.op == VectorOp::kMaximum, a(), Load(step.b, Temp(j, 1), masked, j),
               Temp(j, 2), to);
        break;
      case VectorOp::kNeg:
        vpxord(to, zmm30, a());
        break;
      case VectorOp::kAbs:
        vpandd(to, zmm29, a());
        break;
      case VectorOp::kSqrt:
        vsqrtps(to, a());
        break;
      case VectorOp::kRsqrt:
        vsqrtps(Temp(j, 3), a());
        vdivps(to, zmm28, Temp(j, 3));
        break;
      case VectorOp::kExp:
        Exp(to, a(), j);
        break;
      case VectorOp::kErf:
        Erf(to, a(), j);
        break;
      case VectorOp::kMove:
        if (step.a.in_memory) {
          Load(step.a, to, masked, j);
        } else if (step.a.index != step.dst) {
          vmovaps(to, Value(step.a.index, j));
        }
        break;
      case VectorOp::kEq:
      case VectorOp::kNe:
      case VectorOp::kLt:
      case VectorOp::kLe:
      case VectorOp::kGt:
      case VectorOp::kGe:
        Compare(step, to, masked, j);
        return;
      case VectorOp::kSelect: {
        const Xbyak::Zmm predicate = LoadPredicate(step.a, Temp(j, 0), masked, j);
        vptestmd(k6, predicate, predicate);
        const Xbyak::Zmm on_true = Load(step.b, Temp(j, 1), masked, j);
        vblendmps(to | k6, Load(step.c, Temp(j, 2), masked, j), on_true);
        break;
      }
    }
    if (step.store_to >= 0) {
      const Xbyak::Address at = Reference(rax, step.store_to, j);
      masked ? vmovups(at | k7, to) : vmovups(at, to);
    }
  }

  // A compare: lanes of 0 or 1 in `to`, stored as bytes.
  void Compare(const VectorStep& step, const Xbyak::Zmm& to, bool masked, int j) {
    // vcmpps predicates: EQ_OQ, NEQ_UQ (true when unordered), LT_OS, LE_OS, GT_OS, GE_OS.
    static constexpr uint8_t kPredicate[] = {0x00, 0x04, 0x01, 0x02, 0x0e, 0x0d};
    const int which = static_cast<int>(step.op) - static_cast<int>(VectorOp::kEq);
    const Xbyak::Zmm left = Load(step.a, Temp(j, 0), masked, j);
    vcmpps(k6, left, Load(step.b, Temp(j, 1), masked, j), kPredicate[which]);
    vpbroadcastd(to | k6 | T_z, Scalar(kIntOne));
    if (step.store_to >= 0) {
      const Xbyak::Address at = PredicateReference(step.store_to, j);
      masked ? vpmovdb(at | k7, to) : vpmovdb(at, to);
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
  // FMA too: a segment's exp is FastUnaryF32's FMA version. ThreadSanitizer builds run the
  // baseline math (target_clones.h), whose exp rounds differently: no code there.
  // BMI2: the tail's mask is made with shlx (every AVX-512 CPU has it).
  static const bool available = !SEAM_TSAN && __builtin_cpu_supports("avx512f") &&
                                __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2");
  return available;
}

std::shared_ptr<const ChainCode> ChainCode::Compile(const std::vector<ChainSpec>& chains,
                                                    const std::vector<VectorProgram>& segments) {
  if (!ChainCodeAvailable()) return nullptr;
  size_t bytes = 0;
  for (const ChainSpec& chain : chains) {
    if (Qualifies(chain)) bytes += kChainOverheadBytes + chain.steps.size() * kStepBytes;
  }
  for (const VectorProgram& program : segments) {
    if (Valid(program)) bytes += kChainOverheadBytes + SegmentBytes(program);
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
    failed_compiles.fetch_add(1);
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
    code->segments_.assign(segments.size(), nullptr);
    for (size_t i = 0; i < segments.size(); ++i) {
      if (!Valid(segments[i])) continue;
      g.align(16);
      code->segments_[i] = reinterpret_cast<SegmentFunction>(const_cast<uint8_t*>(g.getCurr()));
      g.EmitSegment(segments[i]);
      ++made;
    }
  } catch (const std::exception&) {
    failed_compiles.fetch_add(1);
    return nullptr;
  }
  if (!g.setProtectModeRE(false)) {
    failed_compiles.fetch_add(1);
    return nullptr;
  }
  generated_chains.fetch_add(made);
  return code;
}

#else  // no generated code on this architecture

struct ChainCode::Generator {};
ChainCode::~ChainCode() = default;
bool ChainCodeAvailable() { return false; }
std::shared_ptr<const ChainCode> ChainCode::Compile(const std::vector<ChainSpec>&,
                                                    const std::vector<VectorProgram>&) {
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

int64_t FailedCodeCompiles() { return failed_compiles.load(); }

}  // namespace seam::cpu

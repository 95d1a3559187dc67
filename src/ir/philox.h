// Philox4x32-10, the counter-based generator of Salmon, Moraes, Dror and Shaw ("Parallel
// random numbers: as easy as 1, 2, 3", SC 2011): a 128-bit counter and a 64-bit key give
// 128 random bits (four 32-bit words) through ten rounds of multiply-xor. The IR's
// rng_bit_generator (docs/ir.md "Random numbers and sorting") is built on it; the unit
// test ir_rng_sort_test checks it against the authors' published known-answer vectors.
#ifndef SEAM_IR_PHILOX_H_
#define SEAM_IR_PHILOX_H_

#include <array>
#include <cstdint>

namespace seam::ir {

using PhiloxBlock = std::array<uint32_t, 4>;  // counter or output words, word 0 first
using PhiloxKey = std::array<uint32_t, 2>;

constexpr PhiloxBlock Philox4x32(PhiloxBlock c, PhiloxKey k) {
  constexpr uint64_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {  // the key schedule: a Weyl sequence, bumped between rounds
      k[0] += kWeyl0;
      k[1] += kWeyl1;
    }
    const uint64_t p0 = kMul0 * c[0], p1 = kMul1 * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
  }
  return c;
}

// The IR's operands as Philox inputs: key (s64 scalar) -> {low 32 bits, high 32 bits};
// counter (s64[2] = {lo, hi}, a 128-bit integer lo + 2^64 hi) plus `block`, as four words
// from the least significant.
constexpr PhiloxKey PhiloxKeyOf(int64_t key) {
  const auto u = static_cast<uint64_t>(key);
  return {static_cast<uint32_t>(u), static_cast<uint32_t>(u >> 32)};
}

constexpr PhiloxBlock PhiloxCounterOf(int64_t lo, int64_t hi, uint64_t block) {
  const uint64_t low = static_cast<uint64_t>(lo) + block;
  const uint64_t high = static_cast<uint64_t>(hi) + (low < block ? 1 : 0);  // the carry
  return {static_cast<uint32_t>(low), static_cast<uint32_t>(low >> 32), static_cast<uint32_t>(high),
          static_cast<uint32_t>(high >> 32)};
}

}  // namespace seam::ir

#endif  // SEAM_IR_PHILOX_H_

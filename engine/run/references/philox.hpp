// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC'11): a counter-based generator. Ten rounds of multiply-and-xor map a 128-bit counter and a
// 64-bit key to 128 random bits, so a GPU thread can make the bits of any element from its index
// with no state, and this CPU code makes the same bits. Templates that draw random numbers
// (dropout) use counter = (index, 0, 0, 0) and key = the 64-bit seed.
#pragma once

#include <array>
#include <cstdint>

namespace kx::engine {

inline std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> c, std::array<std::uint32_t, 2> k) {
    for (int round = 0; round < 10; ++round) {
        const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c[0];
        const std::uint64_t p1 = std::uint64_t{0xCD9E8D57u} * c[2];
        c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
             static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
        k[0] += 0x9E3779B9u;
        k[1] += 0xBB67AE85u;
    }
    return c;
}

// The four words for a 64-bit counter and a 64-bit seed, as the kernels call it.
inline std::array<std::uint32_t, 4> philox4x32_10(std::uint64_t counter, std::uint64_t seed) {
    return philox4x32_10({static_cast<std::uint32_t>(counter), static_cast<std::uint32_t>(counter >> 32), 0, 0},
                         {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
}

// Dropout's rule: element `element` (its index plus the run's offset) takes the 16-bit half
// element % 8 of counter element / 8's bits (word (element % 8) / 2, its low half for an even
// element), and is dropped when that half, read as a fraction in [0, 1), falls below p (p as the
// kernel's fp32 value). Sixteen bits resolve p to 2^-16 and let one Philox block serve eight
// elements (FlashAttention's dropout takes 8 bits an element).
inline std::uint32_t dropoutHalf(std::uint64_t seed, std::uint64_t element) {
    const std::uint32_t word = philox4x32_10(element / 8, seed)[(element % 8) / 2];
    return element % 2 == 0 ? word & 0xffffu : word >> 16;
}
inline bool dropoutDrops(std::uint64_t seed, std::uint64_t element, float p) {
    return static_cast<float>(dropoutHalf(seed, element)) * 0x1p-16f < p;
}

}  // namespace kx::engine

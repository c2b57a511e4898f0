// ---- templates/common/philox_dropout.cuh: Philox4x32-10 random bits and dropout of a vector ----
//
// Philox4x32-10 (Salmon et al., SC'11): 10 rounds of multiply-and-xor turn a 128-bit counter
// and a 64-bit key into 128 random bits. Element n of a tensor (its index plus the run's offset)
// uses word n % 4 of the block for counter n / 4: any thread can make any element's bits without
// state, and the CPU reference (engine/run/references/philox.hpp) makes the same ones.
struct Philox {
    unsigned int v[4];
};

__device__ __forceinline__ Philox philox4x32_10(unsigned long long counter, unsigned long long seed) {
    unsigned int c0 = static_cast<unsigned int>(counter), c1 = static_cast<unsigned int>(counter >> 32), c2 = 0, c3 = 0;
    unsigned int k0 = static_cast<unsigned int>(seed), k1 = static_cast<unsigned int>(seed >> 32);
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        const unsigned int lo0 = 0xD2511F53u * c0, hi0 = __umulhi(0xD2511F53u, c0);
        const unsigned int lo1 = 0xCD9E8D57u * c2, hi1 = __umulhi(0xCD9E8D57u, c2);
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return {{c0, c1, c2, c3}};
}

// A uniform float in [0, 1) from a 32-bit word: its top 24 bits, as the CPU reference takes them.
__device__ __forceinline__ float uniform(unsigned int word) { return static_cast<float>(word >> 8) * 0x1p-24f; }

// Dropout of a vector: zeroes element e of `o` (tensor element first + e) when its uniform is
// below p. Element n takes word n % 4 of Philox block n / 4. A vector of a multiple of 4 elements
// spans Vec / 4 blocks when it starts on a multiple of 4, one more otherwise: those blocks are
// made side by side (independent chains, so their rounds overlap), their words laid out in a row
// and shifted left by first % 4 (two conditional shifts, selects rather than indexing), so that
// element e reads word e. Shorter vectors find each element's word, making a block only when an
// element crosses into it.
template <int Vec>
__device__ __forceinline__ void dropOut(float (&o)[Vec], unsigned long long first, unsigned long long seed, float p) {
    if constexpr (Vec % 4 == 0) {
        constexpr int kBlocks = Vec / 4 + 1, kWords = 4 * kBlocks;
        const int skip = static_cast<int>(first % 4);
        unsigned int w[kWords];
#pragma unroll
        for (int q = 0; q < kBlocks; ++q) {
            Philox bits = {};
            if (q + 1 < kBlocks || skip != 0) bits = philox4x32_10(first / 4 + q, seed);
#pragma unroll
            for (int k = 0; k < 4; ++k) w[4 * q + k] = bits.v[k];
        }
        if (skip & 1) {
#pragma unroll
            for (int i = 0; i + 1 < kWords; ++i) w[i] = w[i + 1];
        }
        if (skip & 2) {
#pragma unroll
            for (int i = 0; i + 2 < kWords; ++i) w[i] = w[i + 2];
        }
#pragma unroll
        for (int e = 0; e < Vec; ++e)
            if (uniform(w[e]) < p) o[e] = 0.0f;
    } else {
        unsigned long long bitsGroup = ~0ull;
        Philox bits = {};
#pragma unroll
        for (int e = 0; e < Vec; ++e) {
            const unsigned long long element = first + e;
            if (element / 4 != bitsGroup) bitsGroup = element / 4, bits = philox4x32_10(bitsGroup, seed);
            if (uniform(bits.v[element % 4]) < p) o[e] = 0.0f;
        }
    }
}

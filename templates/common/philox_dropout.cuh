// ---- templates/common/philox_dropout.cuh: Philox4x32-10 random bits and dropout of a vector ----
//
// Philox4x32-10 (Salmon et al., SC'11): 10 rounds of multiply-and-xor turn a 128-bit counter
// and a 64-bit key into 128 random bits. Element n of a tensor (its index plus the run's offset)
// takes the 16-bit half n % 8 of the block for counter n / 8 (word (n % 8) / 2, its low half for
// an even n): any thread can make any element's bits without state, and the CPU reference
// (engine/run/references/philox.hpp) makes the same ones.
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

// a[i] = a[i + Step] when `shift`: a compile-time step, so that every index stays a register.
template <int Step, int N>
__device__ __forceinline__ void shiftLeftIf(unsigned int (&a)[N], bool shift) {
#pragma unroll
    for (int i = 0; i + Step < N; ++i) a[i] = shift ? a[i + Step] : a[i];
}

// Dropout's threshold for probability p: a half h, read as the fraction h 2^-16, is below p
// exactly when the integer h < ceil(p 2^16), so each element costs one integer compare.
__device__ __forceinline__ unsigned int dropThreshold(float p) {
    const float scaled = p * 65536.0f;
    unsigned int below = scaled <= 0.0f ? 0u : scaled >= 65536.0f ? 65536u : static_cast<unsigned int>(scaled);
    if (static_cast<float>(below) < scaled) ++below;
    return below;
}

// Dropout of a vector: zeroes element e of `o` (tensor element first + e) when its 16-bit half,
// read as a fraction in [0, 1), is below p (`below` = dropThreshold(p), made once a thread).
//
// A vector of 2, 4 or 8 elements that starts on a multiple of its length (what vector loads of
// whole rows give) is Vec / 2 whole words of one block: its halves are compared where they lie,
// with no shifting. Any other vector of up to 8 elements takes one block, or two when it
// crosses into the next (longer vectors one more per 8 elements): they are made side by side
// (independent chains, so their rounds overlap), their halves laid out in a row and shifted left
// by first % 8 (three conditional shifts, selects rather than indexing), so that element e
// reads half e. The kernel's instruction count is what limits it once the random bits are
// added, so the aligned case matters: its shifts were five selects an element.
template <int Vec>
__device__ __forceinline__ void dropOut(float (&o)[Vec], unsigned long long first, unsigned long long seed, unsigned int below) {
    const int skip = static_cast<int>(first % 8);
    if constexpr (Vec == 2 || Vec == 4 || Vec == 8) {
        if (skip % Vec == 0) {
            const Philox bits = philox4x32_10(first / 8, seed);
#pragma unroll
            for (int k = 0; k < Vec / 2; ++k) {
                unsigned int w;
                if constexpr (Vec == 8) w = bits.v[k];
                else if constexpr (Vec == 4) w = skip != 0 ? bits.v[2 + k] : bits.v[k];
                else w = skip == 0 ? bits.v[0] : skip == 2 ? bits.v[1] : skip == 4 ? bits.v[2] : bits.v[3];
                if ((w & 0xffffu) < below) o[2 * k] = 0.0f;
                if ((w >> 16) < below) o[2 * k + 1] = 0.0f;
            }
            return;
        }
    }
    constexpr int kBlocks = (Vec + 7) / 8 + 1, kHalves = 8 * kBlocks;
    unsigned int h[kHalves];
#pragma unroll
    for (int q = 0; q < kBlocks; ++q) {
        Philox bits = {};
        if (q == 0 || 8 * q < skip + Vec) bits = philox4x32_10(first / 8 + q, seed);
#pragma unroll
        for (int k = 0; k < 4; ++k) h[8 * q + 2 * k] = bits.v[k] & 0xffffu, h[8 * q + 2 * k + 1] = bits.v[k] >> 16;
    }
    shiftLeftIf<4>(h, skip & 4);
    shiftLeftIf<2>(h, skip & 2);
    shiftLeftIf<1>(h, skip & 1);
#pragma unroll
    for (int e = 0; e < Vec; ++e)
        if (h[e] < below) o[e] = 0.0f;
}

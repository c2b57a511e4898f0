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

// The words of an aligned vector's bits: a vector of 2, 4 or 8 elements that starts on a
// multiple of its length (skip = its first element % 8) is Vec / 2 whole words of one block.
template <int Vec>
__device__ __forceinline__ unsigned int alignedWord(const Philox& bits, int skip, int k) {
    if constexpr (Vec == 8) return bits.v[k];
    else if constexpr (Vec == 4) return skip != 0 ? bits.v[2 + k] : bits.v[k];
    else return skip == 0 ? bits.v[0] : skip == 2 ? bits.v[1] : skip == 4 ? bits.v[2] : bits.v[3];
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
                const unsigned int w = alignedWord<Vec>(bits, skip, k);
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

// [Packed form] The same rule on outputs of a 2-byte type already converted and packed, two
// halves of a word at once: each half's keep flag becomes a 16-bit mask ANDed onto its element,
// five integer instructions for two elements where the split, compare and select above take six
// (and the f16 kernel 5 % faster).
//
// A half h is kept when h >= below. With t = below <= 2^15, (h | 2^15) - t cannot borrow out
// of its half, and its top bit is set exactly when the low 15 bits of h reach t; OR-ing h's own
// top bit in covers h >= 2^15 >= t. A threshold above 2^15 is turned around: h < below exactly
// when ~h >= 2^16 - below, which is the same test on the complement, its answer inverted.
struct DropRule {
    unsigned int flip;   // all ones when the test runs on the complement
    unsigned int lanes;  // t in both halves
};

__device__ __forceinline__ DropRule dropRule(unsigned int below) {
    if (below <= 0x8000u) return {0u, below * 0x10001u};
    return {~0u, (0x10000u - below) * 0x10001u};
}

// The top bit of each half of the result: that half of w is kept.
__device__ __forceinline__ unsigned int keepSigns(unsigned int w, DropRule rule) {
    const unsigned int h = w ^ rule.flip;
    return ((((h | 0x80008000u) - rule.lanes) | h) ^ rule.flip);
}

// Whether dropOutPacked takes a vector: 2, 4 or 8 elements of a 2-byte type, starting on a
// multiple of its length. (For 4-byte elements each mask costs a byte permute of its own, and
// the compare and select on the floats measured 1 % faster.)
template <int Vec, int Bytes>
__device__ __forceinline__ bool dropsPacked(unsigned long long first) {
    if constexpr ((Vec == 2 || Vec == 4 || Vec == 8) && Bytes == 2) return first % Vec == 0;
    else return false;
}

// Bytes of x by selector, a selector nibble of 8 + b giving byte b's top bit in all eight bits
// (PTX prmt; __byte_perm ignores that bit of the nibbles).
template <unsigned int Selector>
__device__ __forceinline__ unsigned int signBytes(unsigned int x) {
    unsigned int y;
    asm("prmt.b32 %0, %1, 0, %2;" : "=r"(y) : "r"(x), "n"(Selector));
    return y;
}

// Dropout of a packed vector (dropsPacked<Vec, Bytes>(first) must hold): `words` are its
// Vec / 2 words of output, two elements each, each element zeroed (all its bits) when dropped.
// The sign-replicating byte selectors spread each half's top bit over its element's bytes.
template <int Vec, int Bytes>
__device__ __forceinline__ void dropOutPacked(unsigned int* words, unsigned long long first, unsigned long long seed, DropRule rule) {
    const int skip = static_cast<int>(first % 8);
    const Philox bits = philox4x32_10(first / 8, seed);
#pragma unroll
    for (int k = 0; k < Vec / 2; ++k) {
        const unsigned int keep = keepSigns(alignedWord<Vec>(bits, skip, k), rule);
        words[k] &= signBytes<0xBB99u>(keep);
    }
}

// ---- templates/common/block_tile.cuh: a block's tile of kBlock x kItems elements (scan, filter) ----

constexpr bool kDirect = ${is_direct} != 0;     // LOAD=direct: no trip through shared memory
constexpr int kBlock = ${BLOCK};                // threads per block
constexpr int kItems = ${ITEMS};                // elements per thread (its register tile)
constexpr unsigned int kDelayNs = ${DELAY};     // look-back: sleep before the first poll
constexpr int kWarps = kBlock / 32;
constexpr int kTile = kBlock * kItems;          // elements per block
// The transpose buffer gets one spare element after every 32, so that thread t reading its
// kItems consecutive elements (index t * kItems + i) does not hit the same bank as its neighbours.
constexpr int kPaddedTile = kTile + kTile / 32;

static_assert(kTile == ${TILE}, "kernel and manifest disagree on the tile");
static_assert(kBlock % 32 == 0 && kWarps <= 32, "the block is whole warps, at most 32 of them");
static_assert(${SMEM_BYTES} == (kDirect ? 0 : kPaddedTile * sizeof(T)), "kernel and manifest disagree on the shared memory");

// The transpose buffer: the block's dynamic shared memory, kPaddedTile elements (none for
// LOAD=direct).
__device__ __forceinline__ T* transposeBuffer() {
    extern __shared__ __align__(16) unsigned char smemBytes[];
    return reinterpret_cast<T*>(smemBytes);
}

// Where transposeBuffer's rows of 32 elements (and one spare) put element i.
__device__ __forceinline__ int padded(int i) { return i + i / 32; }

// Tile `index`: its first element, and how many of its elements exist (1 .. kTile: the last
// tile may be partial).
struct TileSpan {
    long long index, base;
    int valid;
};
__device__ __forceinline__ TileSpan tileSpan(long long index, int n) {
    const long long base = index * kTile;
    const long long left = static_cast<long long>(n) - base;
    return {index, base, left < kTile ? static_cast<int>(left) : kTile};
}

// The look-back kernel's tile: taken from an atomic ticket, so that tile t is handed out only
// after tiles 0 .. t-1 were, to blocks already running (the kernel's comment says why). slot is
// the block's __shared__ copy of the ticket.
__device__ __forceinline__ long long ticketedTile(unsigned int* ticket, unsigned int& slot) {
    if (threadIdx.x == 0) slot = atomicAdd(ticket, 1u);
    __syncthreads();
    return slot;
}

// v[i] = tile element threadIdx.x * kItems + i, or `fill` past the end of the input. smem is the
// kPaddedTile-element transpose buffer (unused when kDirect); warp w uses its elements
// padded(w * 32 * kItems) onwards. Every thread must call it.
template <class V>
__device__ __forceinline__ void loadTile(const V* __restrict__ in, long long base, int valid, V (&v)[kItems], V fill, V* smem) {
    const int tid = static_cast<int>(threadIdx.x);
    if constexpr (kDirect) {
#pragma unroll
        for (int i = 0; i < kItems; ++i) {
            const int j = tid * kItems + i;
            v[i] = j < valid ? in[base + j] : fill;
        }
    } else {
        const int lane = tid % 32, warpBase = (tid / 32) * 32 * kItems;
        // All kItems loads are issued before any is stored, so they are in flight together.
        V striped[kItems];
#pragma unroll
        for (int i = 0; i < kItems; ++i) {
            const int j = warpBase + i * 32 + lane;
            striped[i] = j < valid ? in[base + j] : fill;
        }
#pragma unroll
        for (int i = 0; i < kItems; ++i) smem[padded(warpBase + i * 32 + lane)] = striped[i];
        __syncwarp();
#pragma unroll
        for (int i = 0; i < kItems; ++i) v[i] = smem[padded(tid * kItems + i)];  // tid * kItems = warpBase + lane * kItems
    }
}

// ---- end of templates/common/block_tile.cuh ----

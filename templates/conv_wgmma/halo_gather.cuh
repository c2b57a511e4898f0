// ---- templates/conv_wgmma/halo_gather.cuh: GATHER=halo, the input planes a tile reads at every tap ----
// Part of conv_wgmma.cu (inside its namespace, after the producer): the halo tiles, their copies,
// the shifted descriptors and where their rows go.

// [SECTION] Halo gather
//
// GATHER=halo, stride 1. A tile is 8 rows of kHaloTileW output pixels of one plane (n, d); its
// m64 block b is columns 8b..8b+7, the block's row r the pixel (r / 8, 8b + r % 8). Their windows
// cover an input box of haloW x haloH pixels by Z planes (dilated) from (w0, h0, d) - pad
// (bwd_data: dy's box from (w0, h0, d) + corner, corner = pad - dil (filter - 1), with the filter
// mirrored and transposed by the prepare kernel, which makes backward data a forward convolution
// of dy). A stage is kBK channels of the box: one tiled copy per 8 channels, 16-byte rows in
// [plane][row][column] order (zeros outside the image). For tap (z, y, x), block b's 64 rows are
// the copy shifted by (z dil_d, y dil_h, x dil_w + 8b): 8 runs of 8 consecutive 16-byte rows,
// haloW rows apart, which is wgmma's unswizzled k-major layout (core matrices of 8 rows x 16
// bytes; the next 8 rows, the next image row, haloW x 16 bytes on: the stride byte offset; the
// next 8 channels a copy on: the leading byte offset). Every tap reads the same copy, so each
// input pixel crosses L2 once per tile whose box holds it, not once per tap. B, the filter's taps
// for the tile's columns, either stays in shared memory (every tap and slice, copied again only
// when a block's next tile has other columns or another group), or, for filters too large to
// stay (HALO_FILTER=streamed), comes with the stages: a stage is then one plane z of the box and
// brings that plane's Y x X taps of the slice.

struct HaloTile {
    int n, d, h0, w0;
};
__device__ __forceinline__ HaloTile haloTileOf(const Problem& p, const Unit& u) {
    int tile = u.m0 / kBM;
    HaloTile t;
    t.w0 = tile % p.tilesW * kHaloTileW;
    tile /= p.tilesW;
    t.h0 = tile % p.tilesH * 8;
    tile /= p.tilesH;
    t.d = tile % p.outD, t.n = tile / p.outD;
    return t;
}

// The output pixel of row r (0..63) of m64 block b of the tile, or -1 past the plane's edge.
__device__ __forceinline__ int haloPixel(const Problem& p, const HaloTile& t, int block, int r) {
    const int h = t.h0 + r / 8, w = t.w0 + 8 * block + r % 8;
    if (h >= p.outH || w >= p.outW) return -1;
    return ((t.n * p.outD + t.d) * p.outH + h) * p.outW + w;
}

// The unswizzled k-major descriptor of a block of one tap: 8 rows of 16 bytes from addr, the next
// 8 channels `plane` bytes on (leading byte offset), the next 8 rows `rowBytes` on (stride byte
// offset), swizzle mode 0.
__device__ __forceinline__ unsigned long long haloDescriptor(unsigned addr, int plane, int rowBytes) {
    return static_cast<unsigned long long>((addr & 0x3FFFF) >> 4) | (static_cast<unsigned long long>(plane >> 4) << 16) |
           (static_cast<unsigned long long>(rowBytes >> 4) << 32);
}

// The resident filter: its shared-memory address, its barriers (bar[0] full: the producer's
// copies landed; bar[1] empty: every consumer is done with the previous columns), how often it has
// been copied and for which columns (group * cols + k0).
struct HaloFilter {
    unsigned base;
    unsigned long long* bar;
    int loads, key;
};

// The resident filter's taps for the unit's columns if they changed, then one stage per slice of
// channels and filter plane: kBK / 8 copies of the tile's input plane (and, streamed, the plane's
// taps of the filter for the slice).
__device__ __forceinline__ void produceHaloTile(const Problem& p, const Unit& u, const TensorMap& tmH, const TensorMap& tmB, const Ring& ring,
                                                HaloFilter& filter, int& slice) {
    const int key = u.g * p.cols + u.k0;
    if (!kHaloStream && key != filter.key) {
        if (filter.loads > 0) mbarrierWait(smemAddress(&filter.bar[1]), (filter.loads - 1) & 1);
        const unsigned full = smemAddress(&filter.bar[0]);
        mbarrierArriveExpectBytes(full, p.taps * p.slices * kBTileBytes);
        for (int tap = 0; tap < p.taps; ++tap)
            for (int s = 0; s < p.slices; ++s) tmaLoad4d(filter.base + (tap * p.slices + s) * kBTileBytes, tmB, s * kBK, tap, u.k0, u.g, full);
        filter.key = key, ++filter.loads;
    }
    const HaloTile t = haloTileOf(p, u);
    const unsigned copyBytes = p.haloW * p.haloH * p.haloD * 16, filterBytes = kHaloStream ? p.Y * p.X * kBTileBytes : 0;
    const int w = t.w0 + (kDir == 1 ? p.cornerW : -p.pw), h = t.h0 + (kDir == 1 ? p.cornerH : -p.ph), d = t.d + (kDir == 1 ? p.cornerD : -p.pd);
    for (int kt = 0; kt < u.kTiles; ++kt, ++slice) {
        const int s = kHaloStream ? kt / p.Z : kt, z = kHaloStream ? kt % p.Z : 0;
        const int stage = slice % kStages;
        mbarrierWait(smemAddress(&ring.emptyBar[stage]), ((slice / kStages) & 1) ^ 1);
        const unsigned full = smemAddress(&ring.fullBar[stage]);
        mbarrierArriveExpectBytes(full, kBK / 8 * copyBytes + filterBytes);
        const unsigned box = ring.base + stage * p.haloStage;
        for (int i = 0; i < kBK / 8; ++i)
            tmaLoad5d(box + i * p.haloPlane, tmH, u.g * p.sumC + s * kBK + 8 * i, w, h, d + z * p.dd, t.n, full);
        if (kHaloStream)
            for (int tap = 0; tap < p.Y * p.X; ++tap)
                tmaLoad4d(box + p.haloStage - filterBytes + tap * kBTileBytes, tmB, s * kBK, z * p.Y * p.X + tap, u.k0, u.g, full);
    }
}

// A consumer's wgmma's for the unit's stage kt (slice kt of the channels; streamed, slice kt / Z
// of filter plane kt % Z): every tap of the stage's planes, over the copy shifted by the tap,
// times the tap's filter slice (resident, or the stage's own).
__device__ __forceinline__ void multiplyHaloStage(const Problem& p, unsigned box, unsigned filter, int kt, int consumer, float (&acc)[kMT][kAcc]) {
    const int rowBytes = p.haloW * 16, s = kHaloStream ? kt / p.Z : kt;
    const int zFirst = kHaloStream ? kt % p.Z : 0, zEnd = kHaloStream ? zFirst + 1 : p.Z;
    const unsigned streamed = box + p.haloStage - p.Y * p.X * kBTileBytes;  // HALO_FILTER=streamed: the plane's taps
    for (int z = zFirst; z < zEnd; ++z) {
        const unsigned plane = box + (kHaloStream ? 0 : z * p.dd * p.haloH * p.haloW * 16);
        for (int y = 0; y < p.Y; ++y)
            for (int x = 0; x < p.X; ++x) {
                const int tap = (z * p.Y + y) * p.X + x;
                const unsigned shifted = plane + (y * p.dh * p.haloW + x * p.dw) * 16;
                const unsigned bTap = kHaloStream ? streamed + (y * p.X + x) * kBTileBytes : filter + (tap * p.slices + s) * kBTileBytes;
#pragma unroll
                for (int ks = 0; ks < kKSteps; ++ks) {  // 16 channels: two 8-channel copies
                    const unsigned long long descB = tileDescriptor(bTap + ks * 32);
#pragma unroll
                    for (int mt = 0; mt < kMT; ++mt)
                        wgmmaSS(acc[mt], haloDescriptor(shifted + 2 * ks * p.haloPlane + (consumer * kMT + mt) * 8 * 16, p.haloPlane, rowBytes),
                                descB, 1);
                }
            }
    }
}

// ---- end of templates/conv_wgmma/halo_gather.cuh ----

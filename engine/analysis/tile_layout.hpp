// The tile layout of a config: how a kernel splits its work, as plain numbers for the tile view
// and `kx tiles`. A template declares its layout in the manifest's <visual> element
// (templates/README.md, "Tile view"); nothing here names a template.
//
// GEMM: C in block tiles numbered in the kernel's rasterisation order (GROUP_M swizzle), each
// tile's modelled SM and wave on a device, one block's warp tiles, a warp's thread tiles or MMA
// fragments, the K loop through the pipeline stages, and one stage's shared memory with padding
// and XOR swizzle. Blocks (1-D): block tiles of threads x items x vector over n elements.
//
// SM and wave model: blocks are dispatched in launch order, round-robin over the SMs, and every
// block takes as long as any other, so wave w is blocks [w*C, (w+1)*C) with C = SMs x resident
// blocks per SM (the occupancy calculator's). Real dispatch is not documented and blocks differ
// in length; the model is what wave quantisation arguments use.
#pragma once

#include "analysis/occupancy.hpp"
#include "arch/arch.hpp"
#include "arch/arch_database.hpp"
#include "run/run_report.hpp"
#include "templates/template.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kx::engine {

enum class FragmentKind { Thread, MmaM16N8K16, WgmmaM64NNK16 };

// Blocks of one launch on one device: how many run at once and how many waves they take.
struct WaveModel {
    std::string device;          // "NVIDIA H100 SXM5 80GB"
    std::string deviceId;        // "h100_sxm"
    int smCount = 0;
    int registersPerThread = 0;
    std::string registersSource; // "ptxas" (compiled), "given", "estimate" (the manifest's regs), "unknown"
    OccupancyResult occupancy;   // blocksPerSm and what limits it
    long long blocks = 0;        // launched (the grid; for a persistent launch, after the runner's cap)
    long long gridBlocks = 0;    // the manifest's grid, before a persistent launch's cap
    bool persistent = false;     // one wave of blocks that walk the tiles
    long long capacity = 0;      // blocks resident at once: smCount x blocksPerSm
    long long waves = 0;         // ceil(blocks / capacity)
    long long fullWaves = 0;
    long long tailBlocks = 0;    // blocks in the last wave when it is partial; 0 when every wave is full
    double efficiency = 0;       // blocks / (waves x capacity): 1 when no SM idles in the tail

    // A persistent launch's blocks take the grid's work units (gridBlocks of them) in turns:
    // rounds of `capacity` units, the last part-filled. Otherwise the waves.
    long long rounds() const { return persistent && capacity > 0 ? (gridBlocks + capacity - 1) / capacity : waves; }
    // The share of the block slots of all waves (rounds) that have work: 1 when no SM idles in
    // the last one.
    double busyShare() const {
        const long long r = rounds();
        return r > 0 && capacity > 0 ? static_cast<double>(persistent ? gridBlocks : blocks) / static_cast<double>(r * capacity) : 0;
    }

    // Where launched block b runs: its wave and SM in the model.
    long long waveOf(long long block) const { return capacity > 0 ? block / capacity : 0; }
    int smOf(long long block) const { return capacity > 0 && smCount > 0 ? static_cast<int>(block % capacity % smCount) : 0; }
    bool inTail(long long block) const { return tailBlocks > 0 && waveOf(block) == waves - 1; }
};

// A rectangle of elements: rows [row0, row0 + rows) x columns [col0, col0 + cols).
struct TileRect {
    long long row0 = 0, col0 = 0, rows = 0, cols = 0;
};

// One warp (or warpgroup) of a block and the part of the block tile it computes.
struct WarpTile {
    int index = 0;       // warp index within the block (warpgroup index when threads = 128)
    int warpM = 0, warpN = 0;
    TileRect rect;       // within the block tile; empty for a producer
    bool producer = false;
};

// A small matrix held in registers across a warp: which lane (thread of the warp or warpgroup)
// holds each element, and in which of its registers.
struct FragmentPiece {
    std::string name;    // "C" (the accumulators), "A", "B"
    std::string rowsLabel, colsLabel;  // "m", "n", "k"
    int rows = 0, cols = 0;
    std::vector<int> lane;      // rows x cols, row-major
    std::vector<int> reg;       // the index of the lane's register (element) holding it
    int laneAt(int r, int c) const { return lane[static_cast<std::size_t>(r) * cols + c]; }
    int regAt(int r, int c) const { return reg[static_cast<std::size_t>(r) * cols + c]; }
};

// One operand's shared-memory tile in one stage, in 16-byte chunks: the unit of cp.async and of
// ldmatrix rows, and a quarter of the 32 four-byte banks (a 128-byte line holds 8 chunks).
struct SmemOperand {
    std::string name;          // "A", "B"
    std::string rowsLabel;     // what a row runs over: "m", "n" or "k"
    std::string colsLabel;     // what the contiguous direction is
    int rows = 0;
    int dataChunks = 0;        // 16-byte chunks of data per row
    int padChunks = 0;         // 16-byte chunks of padding after them
    int elemsPerChunk = 0;
    bool swizzled = false;     // chunks XOR-swizzled within 128-byte lines
    long long bytes = 0;       // rows x pitch x 16

    int pitchChunks() const { return dataChunks + padChunks; }
    int totalChunks() const { return rows * pitchChunks(); }
    // Where logical chunk c of row r is stored, in chunks from the tile's start.
    int positionOf(int r, int c) const { return position[static_cast<std::size_t>(r) * dataChunks + c]; }
    // The logical chunk (r * dataChunks + c) stored at chunk position p; -1 for padding.
    int occupantAt(int p) const { return occupant[static_cast<std::size_t>(p)]; }
    // The chunk's bank group, 0..7 (banks 4g .. 4g+3): chunks in the same group of one 8-row
    // ldmatrix or warp access are served one after another.
    static int bankGroup(int position) { return position % 8; }

    std::vector<int> position;  // rows x dataChunks
    std::vector<int> occupant;  // totalChunks()
};

// The K loop: which k-tile each step multiplies and which ones are loading meanwhile.
struct KStep {
    long long kTile = 0;       // the k-tile multiplied at this step
    int stage = 0;             // the shared-memory stage it sits in
    std::vector<long long> loading;  // k-tiles whose loads are in flight during this step
    std::vector<long long> held;     // earlier k-tiles whose stages are still read (asynchronous MMAs in flight)
};

struct GemmLayout {
    // The matrix the kernel computes: C, or C^T when it swaps the operands (C^T = B * A^T, so that
    // a skinny M becomes the MMA's N): then its rows are C's columns, the rows' operand is B and
    // the columns' operand A, and m, n below are the computed matrix's rows and columns.
    bool transposed = false;
    // wgmma with A from registers (ln_linear_wgmma normalises X on its way there): each warp's
    // 16 rows of A as an mma.sync A fragment, B alone read from shared memory.
    bool aFromRegisters = false;
    std::string cName = "C";
    long long m = 0, n = 0, k = 0;
    int blockM = 0, blockN = 0, blockK = 0;
    long long blocksM = 0, blocksN = 0, tiles = 0;
    int groupM = 1;                 // raster group: 1 is row by row
    long long grid = 0;             // blocks launched; a block takes tiles b, b + grid, ...
    int warpM = 0, warpN = 0, warpThreads = 32, producerThreads = 0;
    int warpsM = 0, warpsN = 0;
    std::vector<WarpTile> warps;    // producers first
    FragmentKind fragment = FragmentKind::Thread;
    std::string fragmentLabel;      // "thread tile 8x8", "mma.sync m16n8k16", "wgmma m64n256k16"
    int threadM = 0, threadN = 0, rowChunk = 1, colChunk = 1;  // thread tiles
    int atomM = 0, atomN = 0, atomK = 0;         // MMA shape; the thread tile for SIMT (k = 1)
    int atomsM = 0, atomsN = 0;                  // atoms per warp tile
    std::vector<FragmentPiece> pieces;           // C first
    int stages = 1, lookahead = 0;
    long long kTiles = 0;
    std::vector<KStep> kSteps;      // every k-tile, at most kMaxKSteps
    int vector = 0;                 // elements per global load; 0 when loads are not per thread (TMA)
    int elemBytes = 0;
    // false: every multiply-add reads A and B straight from global memory (the caches serve any
    // reuse); there are no shared-memory tiles, and the K loop steps through k one at a time.
    bool staged = true;
    std::vector<SmemOperand> smem;  // A, B: one stage; empty when not staged
    long long stageBytes = 0;       // A + B of one stage
    long long launchSmemBytes = 0;  // the launch's dynamic shared memory (stages plus any alignment slack)

    // The block tile (tile row, tile column) of raster index id, as the kernel computes it:
    // groups of groupM block rows, numbered down each column of the group, then across.
    void tileOfId(long long id, long long& tileM, long long& tileN) const;
    long long idOfTile(long long tileM, long long tileN) const;  // the inverse
    TileRect tileRect(long long tileM, long long tileN) const;   // clipped to M x N
    long long blockOfId(long long id) const { return grid > 0 ? id % grid : id; }
    long long roundOfId(long long id) const { return grid > 0 ? id / grid : 0; }  // a block's n-th tile
};

struct BlocksLayout {
    long long elements = 0;
    int block = 0, items = 0, vector = 1;
    long long tile = 0;             // elements per block per step: block x items x vector
    long long grid = 0;
    long long steps = 0;            // grid-stride steps of each block: ceil(elements / (grid x tile))
    long long tiles = 0;            // ceil(elements / tile)
    bool loadBlocked = false;       // a thread loads consecutive elements (else warp-striped, coalesced)
    bool holdBlocked = false;       // a thread holds consecutive elements after the load
    bool warpStriped = false;       // striped loads run within each warp's part, not across the block

    struct Owner {
        int thread = 0, item = 0, lane = 0;  // lane: position in the thread's vector
    };
    // Who loads element e (0 .. tile-1) of a block tile, and who holds it after the load.
    Owner loaderOf(long long e) const { return ownerOf(e, loadBlocked); }
    Owner holderOf(long long e) const { return ownerOf(e, holdBlocked); }
    Owner ownerOf(long long e, bool blocked) const;
};

struct TileScene {
    std::string templateId, configName, arch;
    enum class Kind { Gemm, Blocks } kind = Kind::Gemm;
    int threadsPerBlock = 0;
    WaveModel waves;
    GemmLayout gemm;      // kind Gemm
    BlocksLayout blocks;  // kind Blocks

    // Gemm: the modelled wave of the block tile with raster index id (its block's wave, after
    // the waves of the block's earlier tiles when a block computes several).
    long long waveOfTile(long long id) const;
    int smOfTile(long long id) const { return waves.smOf(gemm.blockOfId(id)); }
};

// What the scene is computed from. registers: the ptxas count when compiled; without it the
// manifest's regs estimate is used, else the register limit is left out (registersSource says which).
struct TileRequest {
    const Template* tmpl = nullptr;
    Config config;
    const Arch* arch = nullptr;
    const DeviceSpec* device = nullptr;
    const Arch* deviceArch = nullptr;  // the device's arch: its compute capability must be the arch's (unchecked when null)
    SizeMap sizes;                  // the template's defaults fill the rest
    std::optional<int> registers;
    std::string registersSource = "ptxas";  // what `registers` came from: "ptxas" or "given"
    // The kernel's static shared memory, known after a compile. Before one, a layout whose stages
    // live in static shared memory cannot be checked against it and is taken as declared.
    std::optional<long long> staticSmemBytes;
};

constexpr long long kMaxKSteps = 4096;

// "no tile view for this template" when the manifest has no <visual>.
bool hasTileView(const Template& tmpl);

// Computes the scene. Throws InputError when the template has no tile view, the config is not
// valid for the arch (listing the violations), the arch is not NVIDIA, the device does not match
// the arch's compute capability, a <visual> expression fails, or the geometry is inconsistent
// (a warp tile that does not divide the block tile, ...), naming the manifest line.
TileScene computeTileScene(const TileRequest& request);

// The waves of gridBlocks blocks on smCount SMs holding blocksPerSm each. A persistent launch
// (launchedBlocks > 0) launched that many blocks, which take the grid's units in rounds.
WaveModel gridWaves(int smCount, int blocksPerSm, long long gridBlocks, long long launchedBlocks = 0);

// The waves of a launch on a device, at the blocks per SM the occupancy calculator found (any
// template, with or without a tile view). A persistent launch is capped to the blocks resident at
// once, as kx-runner launches it; gridBlocks keeps the manifest's grid.
WaveModel launchWaves(const DeviceSpec& device, const LaunchGeometry& launch, const OccupancyResult& occupancy);

// The waves of a launch as it ran: the runner's SM count and the driver's blocks per SM (ptxas's
// registers and the launch's shared memory, as the driver counts them), the grid at the run's
// sizes. nullopt for a report without them (runs kept before they were recorded).
std::optional<WaveModel> runWaves(const RunReport& report);

// The waves in words, for a panel: "288 blocks, 264 at once (132 SMs x 2): 2 waves, the last with
// 24 blocks (9% of a wave); 55% of the block slots busy", or for a persistent launch "112 work
// units on 132 persistent blocks (132 SMs x 1): 1 round; 85% of the block slots busy". Brief, for
// a narrow column: "288 blocks in 2 waves of 264, the last 9% full; 55% busy".
std::string wavesSentence(const WaveModel& w, bool brief = false);

// The device a scene defaults to for an arch: the H100 SXM for sm_90, else the first of the same
// compute capability. nullptr when none.
const DeviceSpec* defaultTileDevice(const ArchDatabase& arches, const Arch& arch);

// "fragment" name in JSON and the UI: "thread", "mma_m16n8k16", "wgmma_m64nNk16".
const char* fragmentKindName(FragmentKind kind);

}  // namespace kx::engine

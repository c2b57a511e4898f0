#include "analysis/tile_layout.hpp"

#include "sweep/sweep.hpp"
#include "templates/expression.hpp"
#include "util/enum_names.hpp"
#include "util/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace kx::engine {

namespace {

constexpr int kChunkBytes = 16;  // the unit of cp.async, ldmatrix rows and the swizzle
constexpr int kChunksPerLine = 8;  // 128 bytes: one row of the 32 four-byte banks

// Evaluates a <visual> attribute to a whole number, naming the manifest line when it is not one.
class VisualValues {
public:
    VisualValues(const Template& tmpl, const VisualSpec& spec, VariableMap vars)
        : m_file(tmpl.manifest().manifestFile), m_spec(spec), m_vars(std::move(vars)) {}

    bool has(const char* key) const { return m_spec.exprs.count(key) > 0; }

    long long integer(const char* key) const {
        const auto it = m_spec.exprs.find(key);
        if (it == m_spec.exprs.end()) fail(fmt::format("<visual> has no '{}'", key));
        double v = 0;
        try {
            v = evaluateExpression(it->second, m_vars);
        } catch (const InputError& e) {
            fail(fmt::format("<visual> {}: {}", key, e.what()));
        }
        if (!std::isfinite(v) || v != std::floor(v)) fail(fmt::format("<visual> {}=\"{}\" is {}, not a whole number", key, it->second, v));
        return static_cast<long long>(v);
    }
    long long integer(const char* key, long long fallback) const { return has(key) ? integer(key) : fallback; }
    long long positive(const char* key) const {
        const long long v = integer(key);
        if (v < 1) fail(fmt::format("<visual> {}=\"{}\" is {}; it must be at least 1", key, m_spec.exprs.at(key), v));
        return v;
    }
    long long positive(const char* key, long long fallback) const { return has(key) ? positive(key) : fallback; }

    [[noreturn]] void fail(const std::string& message) const {
        throw InputError(fmt::format("{}:{}: {}", m_file, m_spec.line, message));
    }

private:
    std::string m_file;
    const VisualSpec& m_spec;
    VariableMap m_vars;
};

long long ceilDiv(long long a, long long b) { return b > 0 ? (a + b - 1) / b : 0; }

// As kx-runner launches a persistent kernel: grid-x shrunk to the blocks the device holds at once
// (whole clusters; y and z kept), so that each block walks several tiles. The runner asks the
// driver how many fit; the model takes the occupancy calculator's blocks per SM, which agree for
// single blocks (a cluster may fit fewer, where the GPC's SMs run out first).
void capPersistentGrid(LaunchGeometry& l, long long resident) {
    long long x = std::max(1LL, resident / std::max(1LL, l.grid[1] * l.grid[2]));
    x = std::max(l.cluster[0], x / std::max(1LL, l.cluster[0]) * l.cluster[0]);
    l.grid[0] = std::min(l.grid[0], x);
}

// Blocks, capacity and waves of a grid on a model whose SM count and blocks per SM are filled in;
// a persistent launch (launchedBlocks > 0) launched that many blocks for the grid's work units.
void setGrid(WaveModel& w, long long gridBlocks, long long launchedBlocks) {
    w.persistent = launchedBlocks > 0;
    w.gridBlocks = gridBlocks;
    w.blocks = w.persistent ? launchedBlocks : gridBlocks;
    w.capacity = static_cast<long long>(w.smCount) * w.occupancy.blocksPerSm;
    if (w.capacity > 0) {
        w.waves = ceilDiv(w.blocks, w.capacity);
        w.fullWaves = w.blocks / w.capacity;
        w.tailBlocks = w.blocks % w.capacity;
        w.efficiency = w.waves > 0 ? static_cast<double>(w.blocks) / static_cast<double>(w.waves * w.capacity) : 0;
    }
}

// As above for a launch as the manifest gives it (a persistent one not yet capped).
void fillWaves(WaveModel& w, const LaunchGeometry& launch) { setGrid(w, launch.blocks(), launch.persistent ? launch.blocks() : 0); }

WaveModel waveModel(const TileRequest& req, const VisualValues& values, const LaunchGeometry& launch) {
    WaveModel w;
    w.device = req.device->name;
    w.deviceId = req.device->id;
    w.smCount = req.device->smCount;
    if (req.registers) {
        w.registersPerThread = *req.registers;
        w.registersSource = req.registersSource;
    } else if (values.has("regs")) {
        w.registersPerThread = static_cast<int>(std::clamp<long long>(values.integer("regs"), 0, req.arch->nv.maxRegsPerThread));
        w.registersSource = "estimate";
    } else {
        w.registersSource = "unknown";
    }
    OccupancyInput in;
    in.registersPerThread = w.registersPerThread;
    in.threadsPerBlock = static_cast<int>(launch.threadsPerBlock());
    in.staticSmemBytes = req.staticSmemBytes.value_or(0);  // unknown before a compile
    in.dynamicSmemBytes = launch.dynamicSmemBytes;
    w.occupancy = nvidiaOccupancy(*req.arch, in);
    fillWaves(w, launch);
    return w;
}

// [SECTION] Fragments: which lane holds which element, as the kernels' comments and the PTX ISA
// ("Matrix Fragments for mma.m16n8k16", "wgmma Register Fragments") lay them out.

FragmentPiece piece(std::string name, std::string rowsLabel, std::string colsLabel, int rows, int cols) {
    FragmentPiece p{std::move(name), std::move(rowsLabel), std::move(colsLabel), rows, cols, {}, {}};
    p.lane.resize(static_cast<std::size_t>(rows) * cols);
    p.reg.resize(p.lane.size());
    return p;
}

template <class F>
void fill(FragmentPiece& p, F owner) {
    for (int r = 0; r < p.rows; ++r)
        for (int c = 0; c < p.cols; ++c) {
            const auto [lane, reg] = owner(r, c);
            p.lane[static_cast<std::size_t>(r) * p.cols + c] = lane;
            p.reg[static_cast<std::size_t>(r) * p.cols + c] = reg;
        }
}

void threadFragments(GemmLayout& g, const VisualValues& v) {
    g.threadM = static_cast<int>(v.positive("thread_m"));
    g.threadN = static_cast<int>(v.positive("thread_n"));
    g.rowChunk = static_cast<int>(v.positive("row_chunk", 1));
    g.colChunk = static_cast<int>(v.positive("col_chunk", 1));
    if (g.warpM % g.threadM != 0 || g.warpN % g.threadN != 0 || g.threadM % g.rowChunk != 0 || g.threadN % g.colChunk != 0)
        v.fail(fmt::format("thread tile {}x{} (row chunk {}, column chunk {}) does not divide the {}x{} warp tile", g.threadM, g.threadN,
                           g.rowChunk, g.colChunk, g.warpM, g.warpN));
    const int lanesM = g.warpM / g.threadM, lanesN = g.warpN / g.threadN;
    if (lanesM * lanesN != g.warpThreads)
        v.fail(fmt::format("{}x{} thread tiles make {} lanes, not the warp's {}", lanesM, lanesN, lanesM * lanesN, g.warpThreads));
    g.atomM = g.threadM;
    g.atomN = g.threadN;
    g.atomK = 1;
    g.atomsM = lanesM;
    g.atomsN = lanesN;
    g.fragmentLabel = fmt::format("thread tile {}x{}", g.threadM, g.threadN);
    // A lane's rows come in chunks of rowChunk, lanesM chunks apart, and its columns in chunks
    // of colChunk, lanesN chunks apart: row = (lane / lanesN) * rowChunk + ic * lanesM * rowChunk + e,
    // and the same for columns with lane % lanesN. Chunks of 1 interleave the lanes' rows (or
    // columns); a chunk of the whole thread tile gives each lane one contiguous block.
    FragmentPiece c = piece("C", "m", "n", g.warpM, g.warpN);
    const int rowChunk = g.rowChunk, chunk = g.colChunk;
    fill(c, [&](int r, int col) {
        const int lane = (r / rowChunk) % lanesM * lanesN + (col / chunk) % lanesN;
        const int i = r / (lanesM * rowChunk) * rowChunk + r % rowChunk;
        const int j = col / (lanesN * chunk) * chunk + col % chunk;
        return std::pair{lane, i * g.threadN + j};
    });
    g.pieces.push_back(std::move(c));
}

void mmaFragments(GemmLayout& g, const VisualValues& v) {
    if (g.warpM % 16 != 0 || g.warpN % 8 != 0 || g.warpThreads != 32)
        v.fail(fmt::format("mma.sync m16n8k16 needs a 32-thread warp tile of multiples of 16 x 8, not {}x{}", g.warpM, g.warpN));
    g.atomM = 16;
    g.atomN = 8;
    g.atomK = 16;
    g.atomsM = g.warpM / 16;
    g.atomsN = g.warpN / 8;
    g.fragmentLabel = "mma.sync m16n8k16";
    // Lane groups of four (lane / 4 = "group") share a row; lane % 4 picks a pair of columns.
    FragmentPiece c = piece("C", "m", "n", 16, 8);
    fill(c, [](int r, int col) { return std::pair{(r % 8) * 4 + col / 2, (r / 8) * 2 + col % 2}; });
    FragmentPiece a = piece("A", "m", "k", 16, 16);
    fill(a, [](int r, int k) { return std::pair{(r % 8) * 4 + (k % 8) / 2, ((k / 8) * 2 + r / 8) * 2 + k % 2}; });
    FragmentPiece b = piece("B", "k", "n", 16, 8);
    fill(b, [](int k, int col) { return std::pair{col * 4 + (k % 8) / 2, (k / 8) * 2 + k % 2}; });
    g.pieces.push_back(std::move(c));
    g.pieces.push_back(std::move(a));
    g.pieces.push_back(std::move(b));
}

void wgmmaFragments(GemmLayout& g, const VisualValues& v) {
    if (g.warpM % 64 != 0 || g.warpN % 8 != 0 || g.warpN > 256 || g.warpThreads != 128)
        v.fail(fmt::format("wgmma m64nNk16 needs a 128-thread warpgroup tile of multiples of 64 rows and N of 8..256, not {}x{}",
                           g.warpM, g.warpN));
    g.atomM = 64;
    g.atomN = g.warpN;
    g.atomK = 16;
    g.atomsM = g.warpM / 64;
    g.atomsN = 1;
    g.fragmentLabel = fmt::format("wgmma m64n{}k16", g.warpN);
    // Warp w of the warpgroup owns rows 16w..16w+15, laid out like an m16n8 accumulator in every
    // 8 columns; A and B are read from shared memory through descriptors, unless a_registers
    // says that A comes from registers: then each warp holds its 16 rows of a k-step as an
    // mma.sync A fragment.
    FragmentPiece c = piece("C", "m", "n", 64, g.warpN);
    fill(c, [](int r, int col) {
        return std::pair{(r / 16) * 32 + (r % 8) * 4 + (col % 8) / 2, (col / 8) * 4 + ((r % 16) / 8) * 2 + col % 2};
    });
    g.pieces.push_back(std::move(c));
    if (v.integer("a_registers", 0) != 0) {
        g.aFromRegisters = true;
        FragmentPiece a = piece("A", "m", "k", 64, 16);
        fill(a, [](int r, int k) { return std::pair{(r / 16) * 32 + (r % 8) * 4 + (k % 8) / 2, ((k / 8) * 2 + (r % 16) / 8) * 2 + k % 2}; });
        g.pieces.push_back(std::move(a));
    }
}

// [SECTION] Shared memory

// Where 16-byte chunk c of row r sits, in chunks from the tile's start. Swizzled: chunk
// c ^ (r mod 8) of its row when rows are 128 bytes or more; shorter rows share 128-byte lines,
// and the XOR takes the line's index instead (the gemm_mma kernel's chunkOffset, and the TMA's
// 128-byte swizzle for 128-byte rows).
int chunkPosition(int r, int c, int pitchChunks, bool swizzled) {
    if (!swizzled) return r * pitchChunks + c;
    if (pitchChunks >= kChunksPerLine) return r * pitchChunks + (c ^ (r & 7));
    const int linear = r * pitchChunks + c;
    const int line = linear >> 3;
    return (line << 3) | ((linear & 7) ^ (line & 7));
}

SmemOperand smemOperand(const VisualValues& v, std::string name, std::string rowsLabel, std::string colsLabel, long long rows,
                        long long cols, long long pad, int elemBytes, bool swizzled) {
    SmemOperand s;
    s.name = std::move(name);
    s.rowsLabel = std::move(rowsLabel);
    s.colsLabel = std::move(colsLabel);
    if ((cols * elemBytes) % kChunkBytes != 0 || (pad * elemBytes) % kChunkBytes != 0 || pad < 0)
        v.fail(fmt::format("shared-memory rows of {} ({} elements + {} padding of {} bytes) are not whole 16-byte chunks", s.name, cols,
                           pad, elemBytes));
    s.rows = static_cast<int>(rows);
    s.dataChunks = static_cast<int>(cols * elemBytes / kChunkBytes);
    s.padChunks = static_cast<int>(pad * elemBytes / kChunkBytes);
    s.elemsPerChunk = kChunkBytes / elemBytes;
    s.swizzled = swizzled;
    if (swizzled && s.padChunks != 0) v.fail("a swizzled shared-memory tile has no padding");
    if (swizzled && s.dataChunks < 4) v.fail(fmt::format("the swizzle needs rows of at least 64 bytes; {} has {}", s.name, cols * elemBytes));
    s.bytes = static_cast<long long>(s.rows) * s.pitchChunks() * kChunkBytes;
    s.position.resize(static_cast<std::size_t>(s.rows) * s.dataChunks);
    s.occupant.assign(static_cast<std::size_t>(s.rows) * s.pitchChunks(), -1);
    for (int r = 0; r < s.rows; ++r)
        for (int c = 0; c < s.dataChunks; ++c) {
            const int p = chunkPosition(r, c, s.pitchChunks(), swizzled);
            s.position[static_cast<std::size_t>(r) * s.dataChunks + c] = p;
            s.occupant[static_cast<std::size_t>(p)] = r * s.dataChunks + c;
        }
    return s;
}

// [SECTION] Layouts

GemmLayout gemmLayout(const TileRequest& req, const VisualValues& v, const LaunchGeometry& launch, FragmentKind fragment) {
    GemmLayout g;
    g.m = v.positive("m");
    g.n = v.positive("n");
    g.k = v.positive("k");
    g.blockM = static_cast<int>(v.positive("block_m"));
    g.blockN = static_cast<int>(v.positive("block_n"));
    g.blockK = static_cast<int>(v.positive("block_k"));
    g.blocksM = ceilDiv(g.m, g.blockM);
    g.blocksN = ceilDiv(g.n, g.blockN);
    g.tiles = g.blocksM * g.blocksN;
    g.groupM = static_cast<int>(v.positive("group_m", 1));
    g.grid = launch.blocks();

    g.warpM = static_cast<int>(v.positive("warp_m"));
    g.warpN = static_cast<int>(v.positive("warp_n"));
    g.warpThreads = static_cast<int>(v.positive("warp_threads", 32));
    g.producerThreads = static_cast<int>(v.integer("producer_threads", 0));
    if (g.blockM % g.warpM != 0 || g.blockN % g.warpN != 0)
        v.fail(fmt::format("the {}x{} warp tile does not divide the {}x{} block tile", g.warpM, g.warpN, g.blockM, g.blockN));
    g.warpsM = g.blockM / g.warpM;
    g.warpsN = g.blockN / g.warpN;
    const long long threads = static_cast<long long>(g.warpsM) * g.warpsN * g.warpThreads + g.producerThreads;
    if (threads != launch.threadsPerBlock() || g.producerThreads % g.warpThreads != 0)
        v.fail(fmt::format("{}x{} warps of {} threads and {} producer threads make {} threads; the launch has {}", g.warpsM, g.warpsN,
                           g.warpThreads, g.producerThreads, threads, launch.threadsPerBlock()));
    int index = 0;
    for (int p = 0; p < g.producerThreads / g.warpThreads; ++p) g.warps.push_back({index++, 0, 0, {}, true});
    for (int wm = 0; wm < g.warpsM; ++wm)
        for (int wn = 0; wn < g.warpsN; ++wn)
            g.warps.push_back({index++, wm, wn, {static_cast<long long>(wm) * g.warpM, static_cast<long long>(wn) * g.warpN, g.warpM, g.warpN}, false});

    g.fragment = fragment;
    switch (fragment) {
    case FragmentKind::Thread: threadFragments(g, v); break;
    case FragmentKind::MmaM16N8K16: mmaFragments(g, v); break;
    case FragmentKind::WgmmaM64NNK16: wgmmaFragments(g, v); break;
    }

    g.stages = static_cast<int>(v.positive("stages"));
    g.lookahead = static_cast<int>(v.integer("lookahead", g.stages - 1));
    if (g.lookahead < 0 || g.lookahead >= g.stages)
        v.fail(fmt::format("lookahead {} must lie in 0..{} (stages - 1)", g.lookahead, g.stages - 1));
    g.kTiles = ceilDiv(g.k, g.blockK);
    for (long long t = 0; t < std::min(g.kTiles, kMaxKSteps); ++t) {
        KStep s{t, static_cast<int>(t % g.stages), {}, {}};
        for (long long next = t + 1; next <= t + g.lookahead && next < g.kTiles; ++next) s.loading.push_back(next);
        // Stages neither loading nor multiplied are not free yet: they hold earlier k-tiles.
        for (long long prev = t - 1; prev >= std::max(0LL, t - (g.stages - 1 - g.lookahead)); --prev) s.held.push_back(prev);
        g.kSteps.push_back(std::move(s));
    }

    g.vector = static_cast<int>(v.integer("vector", 0));
    g.elemBytes = static_cast<int>(v.positive("elem_bytes"));
    g.staged = v.integer("shared", 1) != 0;
    if (!g.staged && g.stages != 1) v.fail(fmt::format("a kernel without shared-memory tiles has 1 stage, not {}", g.stages));
    if (g.staged) {
        const bool swizzled = v.integer("swizzle", 0) != 0;
        if (v.integer("a_k_contiguous", 1) != 0)
            g.smem.push_back(smemOperand(v, "A", "m", "k", g.blockM, g.blockK, v.integer("a_pad", 0), g.elemBytes, swizzled));
        else  // A stored k-major, as a convolution's bwd_weight holds dy: rows run along k
            g.smem.push_back(smemOperand(v, "A", "k", "m", g.blockK, g.blockM, v.integer("a_pad", 0), g.elemBytes, swizzled));
        // b_shared="0": B goes from global memory straight to registers (a preshuffled B).
        const bool bShared = v.integer("b_shared", 1) != 0;
        if (bShared && v.integer("b_k_contiguous", 1) != 0)
            g.smem.push_back(smemOperand(v, "B", "n", "k", g.blockN, g.blockK, v.integer("b_pad", 0), g.elemBytes, swizzled));
        else if (bShared)
            g.smem.push_back(smemOperand(v, "B", "k", "n", g.blockK, g.blockN, v.integer("b_pad", 0), g.elemBytes, swizzled));
    }
    for (const SmemOperand& o : g.smem) g.stageBytes += o.bytes;
    g.launchSmemBytes = launch.dynamicSmemBytes;
    if (v.integer("transposed", 0) != 0) {  // C^T = B * A^T: the operands trade places
        g.transposed = true;
        g.cName = "C^T";
        // Named in C's terms: the computed matrix's rows run over C's n, its columns over C's m.
        const auto rename = [&](std::string& name) { name = name == "C" ? g.cName : name == "A" ? "B" : name == "B" ? "A" : name; };
        const auto axis = [](std::string& label) { label = label == "m" ? "n" : label == "n" ? "m" : label; };
        for (FragmentPiece& p : g.pieces) {
            rename(p.name);
            axis(p.rowsLabel);
            axis(p.colsLabel);
        }
        for (SmemOperand& o : g.smem) {
            rename(o.name);
            axis(o.rowsLabel);
            axis(o.colsLabel);
        }
    }
    // Before a compile the static shared memory is unknown: only a launch with dynamic shared
    // memory can be checked then.
    const bool checkable = req.staticSmemBytes.has_value() || launch.dynamicSmemBytes > 0;
    if (checkable && g.stages * g.stageBytes > launch.dynamicSmemBytes + req.staticSmemBytes.value_or(0))
        v.fail(fmt::format("{} stages of {} bytes do not fit the launch's {} bytes of shared memory ({} dynamic)", g.stages, g.stageBytes,
                           launch.dynamicSmemBytes + req.staticSmemBytes.value_or(0), launch.dynamicSmemBytes));
    return g;
}

BlocksLayout blocksLayout(const VisualValues& v, const LaunchGeometry& launch) {
    BlocksLayout b;
    b.elements = v.positive("elements");
    b.block = static_cast<int>(v.positive("block"));
    b.items = static_cast<int>(v.positive("items"));
    b.vector = static_cast<int>(v.positive("vector", 1));
    b.loadBlocked = v.integer("load_blocked", 0) != 0;
    b.holdBlocked = v.integer("hold_blocked", b.loadBlocked ? 1 : 0) != 0;
    b.warpStriped = v.integer("warp_striped", 0) != 0;
    if (b.block != launch.threadsPerBlock())
        v.fail(fmt::format("block=\"{}\" is not the launch's {} threads", b.block, launch.threadsPerBlock()));
    if (b.warpStriped && b.block % 32 != 0) v.fail("warp-striped loads need a block of whole warps");
    b.tile = static_cast<long long>(b.block) * b.items * b.vector;
    b.grid = launch.blocks();
    b.tiles = ceilDiv(b.elements, b.tile);
    b.steps = ceilDiv(b.elements, b.grid * b.tile);
    return b;
}

}  // namespace

void GemmLayout::tileOfId(long long id, long long& tileM, long long& tileN) const {
    // The kernels' own index math: group = id / (G * blocksN); the group's rows start at
    // group * G; a column of the group holds groupRows consecutive ids.
    const long long perGroup = static_cast<long long>(groupM) * blocksN;
    const long long group = id / perGroup;
    const long long firstM = group * groupM;
    const long long groupRows = std::min<long long>(blocksM - firstM, groupM);
    tileM = firstM + id % groupRows;
    tileN = (id % perGroup) / groupRows;
}

long long GemmLayout::idOfTile(long long tileM, long long tileN) const {
    const long long perGroup = static_cast<long long>(groupM) * blocksN;
    const long long group = tileM / groupM;
    const long long firstM = group * groupM;
    const long long groupRows = std::min<long long>(blocksM - firstM, groupM);
    const long long base = group * perGroup;
    // Within column tileN of the group, ids base + tileN * groupRows + j hold rows (base + tileN * groupRows + j) % groupRows.
    const long long start = base + tileN * groupRows;
    const long long j = (((tileM - firstM) - start) % groupRows + groupRows) % groupRows;
    return start + j;
}

TileRect GemmLayout::tileRect(long long tileM, long long tileN) const {
    TileRect r;
    r.row0 = tileM * blockM;
    r.col0 = tileN * blockN;
    r.rows = std::min<long long>(blockM, m - r.row0);
    r.cols = std::min<long long>(blockN, n - r.col0);
    return r;
}

BlocksLayout::Owner BlocksLayout::ownerOf(long long e, bool blocked) const {
    const long long q = e / vector;  // the vector holding e
    Owner o;
    o.lane = static_cast<int>(e % vector);
    if (blocked) {
        o.thread = static_cast<int>(q / items);
        o.item = static_cast<int>(q % items);
    } else if (warpStriped) {
        const long long perWarp = 32LL * items;
        const long long inWarp = q % perWarp;
        o.thread = static_cast<int>(q / perWarp * 32 + inWarp % 32);
        o.item = static_cast<int>(inWarp / 32);
    } else {
        o.thread = static_cast<int>(q % block);
        o.item = static_cast<int>(q / block);
    }
    return o;
}

long long TileScene::waveOfTile(long long id) const {
    const long long block = gemm.blockOfId(id);
    const long long wavesPerRound = waves.capacity > 0 ? ceilDiv(gemm.grid, waves.capacity) : 0;
    return gemm.roundOfId(id) * wavesPerRound + waves.waveOf(block);
}

bool hasTileView(const Template& tmpl) { return tmpl.manifest().visual.has_value(); }

const char* fragmentKindName(FragmentKind kind) {
    return enumName(kind, {"thread", "mma_m16n8k16", "wgmma_m64nNk16"}, "thread");
}

const DeviceSpec* defaultTileDevice(const ArchDatabase& arches, const Arch& arch) {
    const std::optional<DeviceSpec> d = rooflineDeviceFor(arches, arch);
    return d ? arches.findDevice(d->id) : nullptr;
}

WaveModel gridWaves(int smCount, int blocksPerSm, long long gridBlocks, long long launchedBlocks) {
    WaveModel w;
    w.smCount = smCount;
    w.occupancy.blocksPerSm = blocksPerSm;
    setGrid(w, gridBlocks, launchedBlocks);
    return w;
}

WaveModel launchWaves(const DeviceSpec& device, const LaunchGeometry& launch, const OccupancyResult& occupancy) {
    WaveModel w;
    w.device = device.name;
    w.deviceId = device.id;
    w.smCount = device.smCount;
    w.occupancy = occupancy;
    LaunchGeometry capped = launch;
    const long long capacity = static_cast<long long>(w.smCount) * occupancy.blocksPerSm;
    if (launch.persistent && capacity > 0) capPersistentGrid(capped, capacity);
    setGrid(w, launch.blocks(), launch.persistent ? capped.blocks() : 0);
    return w;
}

std::optional<WaveModel> runWaves(const RunReport& r) {
    if (r.smCount <= 0 || r.driverBlocksPerSm <= 0 || r.gridBlocks <= 0) return std::nullopt;
    WaveModel w = gridWaves(r.smCount, r.driverBlocksPerSm, r.gridBlocks, r.persistentBlocks);
    w.device = r.deviceName;
    w.registersPerThread = r.registers;
    w.registersSource = "ptxas";
    return w;
}

std::string wavesSentence(const WaveModel& w, bool brief) {
    if (w.capacity <= 0) return "no block fits on an SM";
    if (brief) {
        const long long r = w.rounds();
        const std::string busy = fmt::format("{:.0f}% busy", 100.0 * w.busyShare());
        if (w.persistent) return fmt::format("{} units in {} round{} of {} blocks; {}", w.gridBlocks, r, r == 1 ? "" : "s", w.blocks, busy);
        const std::string last = w.tailBlocks > 0 && w.waves > 1
                                     ? fmt::format(", the last {:.0f}% full", 100.0 * static_cast<double>(w.tailBlocks) / static_cast<double>(w.capacity))
                                     : std::string();
        return fmt::format("{} blocks in {} wave{} of {}{}; {}", w.blocks, w.waves, w.waves == 1 ? "" : "s", w.capacity, last, busy);
    }
    const std::string busy = fmt::format("{:.0f}% of the block slots busy", 100.0 * w.busyShare());
    const std::string atOnce = fmt::format("({} SMs x {})", w.smCount, w.occupancy.blocksPerSm);
    if (w.persistent) {
        const long long r = w.rounds();
        return fmt::format("{} work units on {} persistent blocks {}: {} round{}; {}", w.gridBlocks, w.blocks, atOnce, r, r == 1 ? "" : "s",
                           busy);
    }
    std::string waves = fmt::format("{} wave{}", w.waves, w.waves == 1 ? "" : "s");
    if (w.tailBlocks > 0 && w.waves > 1)
        waves += fmt::format(", the last with {} block{} ({:.0f}% of a wave)", w.tailBlocks, w.tailBlocks == 1 ? "" : "s",
                             100.0 * static_cast<double>(w.tailBlocks) / static_cast<double>(w.capacity));
    return fmt::format("{} block{}, {} at once {}: {}; {}", w.blocks, w.blocks == 1 ? "" : "s", w.capacity, atOnce, waves, busy);
}

TileScene computeTileScene(const TileRequest& req) {
    if (!req.tmpl || !req.arch || !req.device) throw InputError("a tile view needs a template, an arch and a device");
    const Template& tmpl = *req.tmpl;
    if (!hasTileView(tmpl)) throw InputError("no tile view for this template ('" + tmpl.id() + "' has no <visual> in its manifest)");
    if (req.arch->vendor != Vendor::Nvidia) throw InputError("the tile view models NVIDIA SMs; " + req.arch->name + " is not one");
    if (req.device->smCount < 1) throw InputError("device '" + req.device->id + "' has no SM count");
    if (req.deviceArch && (req.deviceArch->nv.computeMajor != req.arch->nv.computeMajor ||
                           req.deviceArch->nv.computeMinor != req.arch->nv.computeMinor))
        throw InputError(fmt::format("{} is {}, but the arch is {}: pick a device of compute capability {}.{}", req.device->name,
                                     req.device->arch, req.arch->name, req.arch->nv.computeMajor, req.arch->nv.computeMinor));
    const std::vector<Violation> violations = tmpl.validate(req.config, *req.arch);
    if (!violations.empty()) {
        std::string text = fmt::format("{} is not valid for {}:", tmpl.configName(req.config), req.arch->name);
        for (const Violation& v : violations) text += "\n  - " + v.message;
        throw InputError(text);
    }

    TileScene scene;
    scene.templateId = tmpl.id();
    scene.configName = tmpl.configName(req.config);
    scene.arch = req.arch->name;
    SizeMap sizes = tmpl.defaultSizes();
    for (const auto& [k, v] : req.sizes) sizes[k] = v;
    LaunchGeometry launch = tmpl.launch(req.config, *req.arch, sizes);
    scene.threadsPerBlock = static_cast<int>(launch.threadsPerBlock());

    const VisualSpec& spec = *tmpl.manifest().visual;
    const VisualValues values(tmpl, spec, tmpl.variables(req.config, *req.arch, sizes));
    scene.waves = waveModel(req, values, launch);
    if (launch.persistent && scene.waves.capacity > 0) {
        const long long gridBlocks = launch.blocks();
        capPersistentGrid(launch, scene.waves.capacity);
        scene.waves = waveModel(req, values, launch);
        scene.waves.gridBlocks = gridBlocks;
    }
    if (spec.kind == "gemm") {
        scene.kind = TileScene::Kind::Gemm;
        const FragmentKind fragment = spec.fragment == "mma_m16n8k16"     ? FragmentKind::MmaM16N8K16
                                      : spec.fragment == "wgmma_m64nNk16" ? FragmentKind::WgmmaM64NNK16
                                                                          : FragmentKind::Thread;
        scene.gemm = gemmLayout(req, values, launch, fragment);
    } else {
        scene.kind = TileScene::Kind::Blocks;
        scene.blocks = blocksLayout(values, launch);
    }
    return scene;
}

}  // namespace kx::engine

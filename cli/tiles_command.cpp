// kx tiles: the tile layout of a config (analysis/tile_layout.hpp) as text or JSON.
#include "command_options.hpp"
#include "commands.hpp"

#include "analysis/split_k_hint.hpp"
#include "analysis/tile_layout.hpp"
#include "util/data_paths.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <iostream>

namespace kx::cli {
using namespace kx::engine;
using nlohmann::json;

namespace {

// Tiles listed one by one in JSON up to this many; the raster formula covers the rest.
constexpr long long kMaxListedTiles = 65536;

json rectJson(const TileRect& r) { return {{"row0", r.row0}, {"col0", r.col0}, {"rows", r.rows}, {"cols", r.cols}}; }

json wavesJson(const WaveModel& w) {
    std::vector<std::string> limiters;
    for (OccupancyLimiter l : w.occupancy.limiters) limiters.push_back(limiterName(l));
    return {{"device", w.device},
            {"device_id", w.deviceId},
            {"sm_count", w.smCount},
            {"registers_per_thread", w.registersPerThread},
            {"registers_source", w.registersSource},
            {"blocks_per_sm", w.occupancy.blocksPerSm},
            {"occupancy", w.occupancy.occupancy},
            {"limited_by", limiters},
            {"blocks", w.blocks},
            {"grid_blocks", w.gridBlocks},
            {"persistent", w.persistent},
            {"capacity", w.capacity},
            {"waves", w.waves},
            {"full_waves", w.fullWaves},
            {"tail_blocks", w.tailBlocks},
            {"efficiency", w.efficiency},
            {"rounds", w.rounds()},
            {"busy_share", w.busyShare()}};
}

json pieceJson(const FragmentPiece& p) {
    json lanes = json::array(), regs = json::array();
    for (int r = 0; r < p.rows; ++r) {
        json laneRow = json::array(), regRow = json::array();
        for (int c = 0; c < p.cols; ++c) {
            laneRow.push_back(p.laneAt(r, c));
            regRow.push_back(p.regAt(r, c));
        }
        lanes.push_back(std::move(laneRow));
        regs.push_back(std::move(regRow));
    }
    return {{"name", p.name}, {"rows", p.rows}, {"cols", p.cols}, {"rows_are", p.rowsLabel}, {"cols_are", p.colsLabel},
            {"lane", lanes}, {"register", regs}};
}

json smemJson(const SmemOperand& s) {
    json position = json::array();
    for (int r = 0; r < s.rows; ++r) {
        json row = json::array();
        for (int c = 0; c < s.dataChunks; ++c) row.push_back(s.positionOf(r, c));
        position.push_back(std::move(row));
    }
    return {{"operand", s.name}, {"rows", s.rows}, {"rows_are", s.rowsLabel}, {"contiguous", s.colsLabel},
            {"data_chunks", s.dataChunks}, {"pad_chunks", s.padChunks}, {"elements_per_chunk", s.elemsPerChunk},
            {"swizzled", s.swizzled}, {"bytes", s.bytes}, {"chunk_position", position}};
}

json gemmJson(const TileScene& scene) {
    const GemmLayout& g = scene.gemm;
    json tiles = json::array();
    for (long long id = 0; id < std::min(g.tiles, kMaxListedTiles); ++id) {
        long long tm = 0, tn = 0;
        g.tileOfId(id, tm, tn);
        tiles.push_back({{"id", id}, {"tile_m", tm}, {"tile_n", tn}, {"block", g.blockOfId(id)}, {"sm", scene.smOfTile(id)},
                         {"wave", scene.waveOfTile(id)}, {"rect", rectJson(g.tileRect(tm, tn))}});
    }
    json warps = json::array();
    for (const WarpTile& w : g.warps)
        warps.push_back({{"index", w.index}, {"producer", w.producer}, {"warp_m", w.warpM}, {"warp_n", w.warpN}, {"rect", rectJson(w.rect)}});
    json pieces = json::array();
    for (const FragmentPiece& p : g.pieces) pieces.push_back(pieceJson(p));
    json steps = json::array();
    for (const KStep& s : g.kSteps) steps.push_back({{"k_tile", s.kTile}, {"stage", s.stage}, {"loading", s.loading}});
    json smem = json::array();
    for (const SmemOperand& s : g.smem) smem.push_back(smemJson(s));
    return {{"problem", {{"M", g.m}, {"N", g.n}, {"K", g.k}}},
            {"block_tile", {{"m", g.blockM}, {"n", g.blockN}, {"k", g.blockK}}},
            {"grid", {{"blocks_m", g.blocksM}, {"blocks_n", g.blocksN}, {"tiles", g.tiles}, {"launched_blocks", g.grid}, {"group_m", g.groupM}}},
            {"tiles", tiles},
            {"tiles_truncated", g.tiles > kMaxListedTiles},
            {"warps", {{"warps_m", g.warpsM}, {"warps_n", g.warpsN}, {"warp_m", g.warpM}, {"warp_n", g.warpN},
                       {"threads_per_warp", g.warpThreads}, {"producer_threads", g.producerThreads}, {"list", warps}}},
            {"fragment", {{"kind", fragmentKindName(g.fragment)}, {"label", g.fragmentLabel}, {"atom", {g.atomM, g.atomN, g.atomK}},
                          {"atoms_m", g.atomsM}, {"atoms_n", g.atomsN}, {"pieces", pieces}}},
            {"k_loop", {{"k_tiles", g.kTiles}, {"stages", g.stages}, {"lookahead", g.lookahead}, {"steps", steps},
                        {"steps_truncated", g.kTiles > static_cast<long long>(g.kSteps.size())}}},
            {"shared_memory", {{"staged", g.staged}, {"element_bytes", g.elemBytes}, {"vector", g.vector}, {"stage_bytes", g.stageBytes},
                               {"launch_dynamic_bytes", g.launchSmemBytes}, {"operands", smem}}}};
}

json blocksJson(const TileScene& scene) {
    const BlocksLayout& b = scene.blocks;
    auto order = [&](bool blocked) { return blocked ? "blocked" : b.warpStriped ? "warp_striped" : "striped"; };
    return {{"elements", b.elements}, {"block", b.block}, {"items", b.items}, {"vector", b.vector}, {"tile", b.tile},
            {"tiles", b.tiles}, {"grid", b.grid}, {"steps", b.steps}, {"load_order", order(b.loadBlocked)},
            {"hold_order", order(b.holdBlocked)}};
}

std::string percent(double f) { return fmt::format("{:.1f}%", 100.0 * f); }

void printWaves(const WaveModel& w) {
    std::string limiters;
    for (OccupancyLimiter l : w.occupancy.limiters) limiters += (limiters.empty() ? "" : ", ") + std::string(limiterName(l));
    const std::string regs = w.registersSource == "unknown" ? std::string("registers unknown, left out")
                                                             : fmt::format("{} registers/thread, {}", w.registersPerThread, w.registersSource);
    fmt::print("  per SM      {} block(s) at once (limited by {}; {})\n", w.occupancy.blocksPerSm, limiters.empty() ? "-" : limiters, regs);
    if (w.tailBlocks > 0)
        fmt::print("  waves       {} of {} blocks: {} full, then a tail of {} ({} of the SMs' slots busy); {} overall\n", w.waves,
                   w.capacity, w.fullWaves, w.tailBlocks, percent(static_cast<double>(w.tailBlocks) / static_cast<double>(w.capacity)),
                   percent(w.efficiency));
    else
        fmt::print("  waves       {} full wave(s) of {} blocks, no tail\n", w.waves, w.capacity);
    if (w.persistent && w.gridBlocks > w.blocks)
        fmt::print("  persistent  {} blocks launched instead of the grid's {}, each walking its tiles in turns: {} round(s), {} of the "
                   "block slots busy\n",
                   w.blocks, w.gridBlocks, w.rounds(), percent(w.busyShare()));
}

// One stage's operand tiles and the stages' total.
void printSharedMemory(const GemmLayout& g) {
    std::string operands;
    for (const SmemOperand& s : g.smem)
        operands += fmt::format("{}{} {} x {} ({} B{})", operands.empty() ? "" : ", ", s.name, s.rows, s.dataChunks * s.elemsPerChunk, s.bytes,
                                s.swizzled ? ", swizzled" : s.padChunks > 0 ? fmt::format(", {} pad", s.padChunks * s.elemsPerChunk) : "");
    fmt::print("  smem        per stage {} = {} B; {} stage(s) = {} B (launch: {} B)\n", operands, g.stageBytes, g.stages, g.stages * g.stageBytes,
               g.launchSmemBytes);
}

void printGemm(const TileScene& scene) {
    const GemmLayout& g = scene.gemm;
    fmt::print("  C           {} x {} in {} x {} block tiles: {} x {} = {} tiles, {}\n", g.m, g.n, g.blockM, g.blockN, g.blocksM, g.blocksN,
               g.tiles, g.groupM > 1 ? fmt::format("numbered down groups of {} block rows", g.groupM) : std::string("numbered row by row"));
    printWaves(scene.waves);
    fmt::print("  block       {} threads: {} x {} {} of {} x {}{}\n", scene.threadsPerBlock, g.warpsM, g.warpsN,
               g.warpThreads == 128 ? "warpgroups" : "warps", g.warpM, g.warpN,
               g.producerThreads > 0 ? fmt::format(", plus {} producer threads", g.producerThreads) : std::string());
    if (g.fragment == FragmentKind::Thread)
        fmt::print("  warp        {} x {} lanes, each holding its {} x {} thread tile ({} accumulators)\n", g.atomsM, g.atomsN, g.threadM, g.threadN,
                   g.threadM * g.threadN);
    else
        fmt::print("  warp        {} x {} {} tiles of {} x {} x {}\n", g.atomsM, g.atomsN, g.fragmentLabel, g.atomM, g.atomN, g.atomK);
    if (!g.staged) {
        fmt::print("  K loop      {} in steps of {}, every multiply-add reading A and B from global memory\n", g.k, g.blockK);
        fmt::print("  smem        none: no shared-memory tiles; the caches serve any reuse\n");
    } else {
        fmt::print("  K loop      {} in {} k-tiles of {}, {} stage(s), {} load(s) in flight while one is multiplied\n", g.k, g.kTiles,
                   g.blockK, g.stages, g.lookahead);
        printSharedMemory(g);
    }
    std::string first;
    for (long long id = 0; id < std::min<long long>(g.tiles, 10); ++id) {
        long long tm = 0, tn = 0;
        g.tileOfId(id, tm, tn);
        first += fmt::format("{}{}:({},{})", first.empty() ? "" : " ", id, tm, tn);
    }
    fmt::print("  order       {}{}\n", first, g.tiles > 10 ? " ..." : "");
}

void printBlocks(const TileScene& scene) {
    const BlocksLayout& b = scene.blocks;
    fmt::print("  array       {} elements in tiles of {} threads x {} items x {}-wide vectors = {}: {} tiles\n", b.elements, b.block, b.items,
               b.vector, b.tile, b.tiles);
    fmt::print("  grid        {} blocks, {} grid-stride step(s) each\n", b.grid, b.steps);
    printWaves(scene.waves);
    auto order = [&](bool blocked) {
        return blocked ? fmt::format("blocked (thread t has elements t*{} ..)", b.items * b.vector)
               : b.warpStriped ? std::string("striped within each warp (coalesced)")
                               : std::string("striped across the block (coalesced)");
    };
    fmt::print("  loads       {}\n", order(b.loadBlocked));
    if (b.holdBlocked != b.loadBlocked) fmt::print("  held        {}, exchanged through shared memory\n", order(b.holdBlocked));
}

}  // namespace

int tiles(const Context& ctx, const TilesArgs& args) {
    const auto tmpl = ctx.templates.find(args.variant.templateId);
    if (!tmpl) throw InputError("unknown template '" + args.variant.templateId + "' (see 'kx templates')");
    if (!hasTileView(*tmpl)) throw InputError("no tile view for this template ('" + tmpl->id() + "' has no <visual> in its manifest)");
    const Arch* arch = ctx.arches.findArch(args.variant.arch);
    if (!arch) throw InputError("unknown arch '" + args.variant.arch + "' (see 'kx arches')");
    if (arch->vendor != Vendor::Nvidia) throw InputError("the tile view models NVIDIA SMs; " + arch->name + " is not one");

    TileRequest req;
    req.tmpl = tmpl.get();
    req.config = variantConfig(*tmpl, args.variant, arch->name);
    req.arch = arch;
    req.sizes = variantSizes(*tmpl, args.variant, args.sizes, arch->name);
    if (args.device.empty()) {
        req.device = defaultTileDevice(ctx.arches, *arch);
        if (!req.device) throw InputError("no device of " + arch->name + "'s compute capability in assets/devices: name one with --device");
    } else {
        req.device = ctx.arches.findDevice(args.device);
        if (!req.device) {
            std::string known;
            for (const DeviceSpec& d : ctx.arches.devices()) known += (known.empty() ? "" : ", ") + d.id;
            throw InputError("unknown device '" + args.device + "' (devices: " + known + ")");
        }
    }
    req.deviceArch = ctx.arches.findArch(req.device->arch);

    // Registers decide how many blocks share an SM: given, else ptxas's count, else the estimate.
    const PreparedVariant prepared = prepareVariant(*tmpl, req.config, *arch);
    requireValid(prepared, *arch);
    if (args.regs >= 0) {
        req.registers = args.regs;
        req.registersSource = "given";
    } else if (!args.noCompile && arch->compilable) {
        Compiler compiler(cacheRoot() / "nvrtc");
        const CompileResult result = compiler.compile(prepared.request);
        if (!result.ok) {
            std::cerr << "kx: " << prepared.name << " failed to compile for " << arch->name << ":\n" << result.log;
            return 1;
        }
        const LaunchGeometry launch = tmpl->launch(req.config, *arch, req.sizes);
        if (const KernelResources* k = kernelNamed(result.kernels, launch.kernel)) {
            req.registers = k->registers;
            req.registersSource = "ptxas";
            req.staticSmemBytes = k->sharedBytes;
        }
    }
    const TileScene scene = computeTileScene(req);
    // A Split-K count that fills the slots the config leaves idle, where the template has one.
    const std::optional<SplitKHint> hint = splitKHint(*tmpl, req.config, *arch, req.sizes, *req.device, scene.waves.occupancy);

    if (args.json) {
        json doc = {{"template", scene.templateId}, {"variant", scene.configName}, {"arch", scene.arch},
                    {"kind", scene.kind == TileScene::Kind::Gemm ? "gemm" : "blocks"}, {"threads_per_block", scene.threadsPerBlock},
                    {"sizes", req.sizes}, {"waves", wavesJson(scene.waves)}};
        if (hint) doc["split_k_hint"] = {{"SPLITK", hint->splitK}, {"waves", wavesJson(hint->waves)}};
        doc[scene.kind == TileScene::Kind::Gemm ? "gemm" : "blocks"] =
            scene.kind == TileScene::Kind::Gemm ? gemmJson(scene) : blocksJson(scene);
        std::cout << doc.dump(2) << "\n";
        return 0;
    }
    fmt::print("{} on {}, {} ({} SMs)\n", scene.configName, scene.arch, scene.waves.device, scene.waves.smCount);
    if (scene.kind == TileScene::Kind::Gemm) printGemm(scene);
    else printBlocks(scene);
    if (hint) fmt::print("  split-K     {}\n", splitKHintSentence(*hint));
    fmt::print("  (SM and wave model: blocks dispatched in order, round-robin over the SMs, all equally long)\n");
    if (const std::string note = presetSizesNote(*tmpl, args.variant, req.sizes, arch->name); !note.empty()) fmt::print("  ({})\n", note);
    return 0;
}

// [SECTION] Command line

void addTilesCommand(CLI::App& app, CommandTable& table) {
    auto [tilesCmd, args] = table.addCommand<TilesArgs>(
        app, "tiles", "Tile layout of a config: block tiles in raster order, SMs and waves on a device, warps, fragments, K loop, shared memory", tiles);
    addVariantAndFlagOptions(tilesCmd, *args);
    tilesCmd->add_option("--regs", args->regs, "Registers per thread for the occupancy (default: ptxas's, from an NVRTC compile)")
        ->check(CLI::Range(0, 255));
    tilesCmd->add_option("--device", args->device, "Device of the SM count (assets/devices id; default: the arch's)");
    tilesCmd->add_flag("--no-compile", args->noCompile, "Use the manifest's register estimate instead of compiling");
    tilesCmd->add_flag("--json", args->json, "The whole scene as JSON");
}

}  // namespace kx::cli

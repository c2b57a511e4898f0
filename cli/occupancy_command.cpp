#include "command_options.hpp"
#include "commands.hpp"

#include "analysis/amd_occupancy.hpp"
#include "analysis/occupancy.hpp"
#include "analysis/occupancy_csv.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <climits>
#include <fstream>
#include <iostream>

namespace kx::cli {
using namespace kx::engine;

namespace {

const Arch& findArch(const Context& ctx, const std::string& name, const std::string& where) {
    const Arch* arch = ctx.arches.findArch(name);
    if (!arch) throw InputError(where + "unknown arch '" + name + "'");
    return *arch;
}

std::string limitText(int limit) { return limit == kAmdNoLimit ? std::string("-") : std::to_string(limit); }

// The limiting resources' names, as a JSON list.
template <class Limiter>
nlohmann::json namesJson(const std::vector<Limiter>& limiters, const char* (*name)(Limiter)) {
    nlohmann::json list = nlohmann::json::array();
    for (Limiter l : limiters) list.push_back(name(l));
    return list;
}

// A per-resource limit, null where the resource does not limit (the calculator's noLimit value).
nlohmann::json limitJson(int value, int noLimit) { return value == noLimit ? nlohmann::json(nullptr) : nlohmann::json(value); }

// AMD: VGPRs from --regs, LDS from the two smem options; our own calculator (amd_occupancy.hpp).
int amdOccupancyReport(const Arch& arch, const OccupancyArgs& args) {
    if (args.carveout != -1) throw InputError("--carveout is an NVIDIA setting; " + arch.name + " has no shared-memory carveout");
    AmdOccupancyInput input;
    input.vgprsPerThread = args.regs;
    input.sgprsPerWave = args.sgprs;
    input.workgroupSize = args.block;
    input.ldsBytesPerWorkgroup = args.staticSmem + args.dynSmem;
    const AmdOccupancyResult r = amdOccupancy(arch, input);
    if (args.json) {
        const nlohmann::json limiters = namesJson(r.limiters, amdLimiterName);
        auto limit = [](int v) { return limitJson(v, kAmdNoLimit); };
        const nlohmann::json doc = {
            {"arch", arch.name}, {"vendor", "amd"}, {"workgroup_size", input.workgroupSize}, {"vgprs_per_thread", input.vgprsPerThread},
            {"sgprs_per_wave", input.sgprsPerWave}, {"lds_bytes", input.ldsBytesPerWorkgroup}, {"workgroups_per_cu", r.workgroupsPerCu},
            {"waves_per_simd", r.wavesPerSimd}, {"max_waves_per_simd", r.maxWavesPerSimd}, {"waves_per_cu", r.wavesPerCu},
            {"occupancy", r.occupancy}, {"limited_by", limiters},
            {"workgroup_limits", {{"vgprs", limit(r.workgroupLimitVgprs)}, {"sgprs", limit(r.workgroupLimitSgprs)}, {"lds", limit(r.workgroupLimitLds)},
                                  {"wave_slots", limit(r.workgroupLimitWaves)}, {"workgroup_slots", limit(r.workgroupLimitSlots)}}},
            {"explanation", explainAmdOccupancy(r, input, arch)}};
        std::cout << doc.dump(2) << "\n";
        return 0;
    }
    fmt::print("{}: {} threads/workgroup, {} VGPRs/thread, {} SGPRs/wave, {} + {} bytes LDS\n", arch.name,
               input.workgroupSize, input.vgprsPerThread,
               input.sgprsPerWave > 0 ? std::to_string(input.sgprsPerWave) : std::string("unknown"), args.staticSmem,
               args.dynSmem);
    fmt::print("  workgroups per CU  {}\n", r.workgroupsPerCu);
    fmt::print("  waves per SIMD     {} of {} ({} waves per CU)\n", fmt::format("{:g}", r.wavesPerSimd),
               r.maxWavesPerSimd, r.wavesPerCu);
    fmt::print("  occupancy          {:.1f}%\n", 100.0 * r.occupancy);
    std::string limiters;
    for (AmdOccupancyLimiter l : r.limiters) limiters += (limiters.empty() ? "" : ", ") + std::string(amdLimiterName(l));
    fmt::print("  limited by         {}\n", limiters.empty() ? "nothing" : limiters);
    fmt::print("  per-resource       workgroups per CU: VGPRs {}, SGPRs {}, LDS {}, wave slots {}, workgroup slots {}\n",
               limitText(r.workgroupLimitVgprs), limitText(r.workgroupLimitSgprs), limitText(r.workgroupLimitLds),
               limitText(r.workgroupLimitWaves), limitText(r.workgroupLimitSlots));
    fmt::print("  {}\n", explainAmdOccupancy(r, input, arch));
    return 0;
}

}  // namespace

int occupancy(const Context& ctx, const OccupancyArgs& args) {
    if (!args.csvFile.empty() && args.json) throw InputError("--json is for one launch (--arch, --regs, --block); --csv writes CSV");
    if (!args.csvFile.empty()) {
        std::ifstream file;
        std::istream* in = &std::cin;
        if (args.csvFile != "-") {
            file.open(args.csvFile);
            if (!file) throw InputError("cannot read '" + args.csvFile + "'");
            in = &file;
        }
        std::cout << occupancyCsv(*in, ctx.arches);
        return 0;
    }

    // Out-of-range values are refused by the option parser (main.cpp); these are the missing ones.
    std::string missing;
    if (args.arch.empty()) missing += " --arch";
    if (args.regs < 0) missing += " --regs";
    if (args.block <= 0) missing += " --block";
    if (!missing.empty()) throw InputError("occupancy needs --arch, --regs and --block (or --csv FILE); missing:" + missing);
    const Arch& arch = findArch(ctx, args.arch, "");
    if (arch.vendor == Vendor::Amd) return amdOccupancyReport(arch, args);
    if (args.sgprs != 0) throw InputError("--sgprs applies to AMD arches only; " + arch.name + " is NVIDIA");
    OccupancyInput input{args.regs, args.block, args.staticSmem, args.dynSmem, args.carveout};
    const OccupancyResult r = nvidiaOccupancy(arch, input);
    if (args.json) {
        const nlohmann::json limiters = namesJson(r.limiters, limiterName);
        auto limit = [](int v) { return limitJson(v, INT32_MAX); };
        const nlohmann::json doc = {
            {"arch", arch.name}, {"vendor", "nvidia"}, {"threads_per_block", input.threadsPerBlock},
            {"registers_per_thread", input.registersPerThread}, {"static_smem_bytes", input.staticSmemBytes},
            {"dynamic_smem_bytes", input.dynamicSmemBytes}, {"carveout", input.carveoutPercent}, {"blocks_per_sm", r.blocksPerSm},
            {"active_warps_per_sm", r.activeWarpsPerSm}, {"max_warps_per_sm", r.maxWarpsPerSm}, {"occupancy", r.occupancy},
            {"limited_by", limiters},
            {"block_limits", {{"warps", r.blockLimitWarps}, {"registers", limit(r.blockLimitRegisters)},
                              {"shared_memory", limit(r.blockLimitSharedMemory)}, {"blocks", r.blockLimitBlocks}}},
            {"explanation", explainOccupancy(r, input)}};
        std::cout << doc.dump(2) << "\n";
        return 0;
    }
    fmt::print("{}: {} threads/block, {} registers/thread, {} + {} bytes shared memory, carveout {}\n", arch.name,
               input.threadsPerBlock, input.registersPerThread, input.staticSmemBytes, input.dynamicSmemBytes,
               input.carveoutPercent < 0 ? std::string("none") : std::to_string(input.carveoutPercent) + "%");
    fmt::print("  blocks per SM    {}\n", r.blocksPerSm);
    fmt::print("  active warps     {} of {}\n", r.activeWarpsPerSm, r.maxWarpsPerSm);
    fmt::print("  occupancy        {:.1f}%\n", 100.0 * r.occupancy);
    std::string limiters;
    for (OccupancyLimiter l : r.limiters) limiters += (limiters.empty() ? "" : ", ") + std::string(limiterName(l));
    fmt::print("  limited by       {}\n", limiters.empty() ? "nothing" : limiters);
    fmt::print("  per-resource     warps {}, registers {}, shared memory {}, blocks {}\n", r.blockLimitWarps,
               r.blockLimitRegisters == INT32_MAX ? std::string("-") : std::to_string(r.blockLimitRegisters),
               r.blockLimitSharedMemory == INT32_MAX ? std::string("-") : std::to_string(r.blockLimitSharedMemory),
               r.blockLimitBlocks);
    fmt::print("  {}\n", explainOccupancy(r, input));
    return 0;
}

// [SECTION] Command line

void addOccupancyCommand(CLI::App& app, CommandTable& table) {
    auto [occupancy, occ] = table.addCommand<OccupancyArgs>(
        app, "occupancy", "Theoretical occupancy for a launch (NVIDIA: CUDA's own calculator; AMD: VGPRs, SGPRs, LDS, waves), or for CSV rows",
        cli::occupancy);
    occupancy->add_option("--arch", occ->arch, "Arch, e.g. sm_90 or gfx942");
    occupancy->add_option("--regs", occ->regs, "Registers per thread (VGPRs on AMD)")->check(CLI::Range(0, 65535));
    occupancy->add_option("--sgprs", occ->sgprs, "AMD: SGPRs per wave as the compiler reports them (0 = unknown, no limit)");
    occupancy->add_option("--block", occ->block, "Threads per block")->check(CLI::Range(1, 1048576));
    occupancy->add_option("--static-smem", occ->staticSmem, "Static shared memory (LDS on AMD) per block, bytes");
    occupancy->add_option("--dyn-smem", occ->dynSmem, "Dynamic shared memory per block, bytes");
    occupancy->add_option("--carveout", occ->carveout, "Preferred shared-memory carveout: -1 none, else 0..100 (%)");
    occupancy->add_option("--csv", occ->csvFile,
                          "CSV with header arch,regs,static_smem,block,dyn_smem,carveout ('-' = stdin); prints the rows with blocks_per_sm");
    occupancy->add_flag("--json", occ->json, "One launch's result as JSON");
}

}  // namespace kx::cli

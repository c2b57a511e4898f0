#include "commands.hpp"

#include "analysis/amd_occupancy.hpp"
#include "analysis/occupancy.hpp"
#include "util/error.hpp"

#include <fmt/core.h>

#include <charconv>
#include <fstream>
#include <iostream>
#include <sstream>

namespace kx::cli {
using namespace kx::engine;

namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

long long parseField(const std::string& text, int row, const std::string& column) {
    long long v = 0;
    const std::string t = trim(text);
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || ptr != t.data() + t.size())
        throw InputError("row " + std::to_string(row) + ", column " + column + ": '" + t + "' is not an integer");
    return v;
}

const Arch& findArch(const Context& ctx, const std::string& name, const std::string& where) {
    const Arch* arch = ctx.arches.findArch(name);
    if (!arch) throw InputError(where + "unknown arch '" + name + "'");
    return *arch;
}

std::string limitText(int limit) { return limit == kAmdNoLimit ? std::string("-") : std::to_string(limit); }

// AMD: VGPRs from --regs, LDS from the two smem options; our own calculator (amd_occupancy.hpp).
int amdOccupancyReport(const Arch& arch, const OccupancyArgs& args) {
    if (args.carveout != -1) throw InputError("--carveout is an NVIDIA setting; " + arch.name + " has no shared-memory carveout");
    AmdOccupancyInput input;
    input.vgprsPerThread = args.regs;
    input.sgprsPerWave = args.sgprs;
    input.workgroupSize = args.block;
    input.ldsBytesPerWorkgroup = args.staticSmem + args.dynSmem;
    const AmdOccupancyResult r = amdOccupancy(arch, input);
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
    if (!args.csvFile.empty()) {
        std::ifstream file;
        std::istream* in = &std::cin;
        if (args.csvFile != "-") {
            file.open(args.csvFile);
            if (!file) throw InputError("cannot read '" + args.csvFile + "'");
            in = &file;
        }
        static const char* kColumns[] = {"arch", "regs", "static_smem", "block", "dyn_smem", "carveout"};
        std::string line;
        if (!std::getline(*in, line)) throw InputError("the CSV is empty: expected header arch,regs,static_smem,block,dyn_smem,carveout");
        if (trim(line) != "arch,regs,static_smem,block,dyn_smem,carveout")
            throw InputError("row 1: header must be 'arch,regs,static_smem,block,dyn_smem,carveout', got '" + trim(line) + "'");
        // Compute every row before printing any, so a bad row leaves no partial output.
        std::string out = "arch,regs,static_smem,block,dyn_smem,carveout,blocks_per_sm\n";
        int row = 1;
        while (std::getline(*in, line)) {
            ++row;
            if (trim(line).empty()) continue;
            std::vector<std::string> fields;
            std::stringstream parts(line);
            std::string f;
            while (std::getline(parts, f, ',')) fields.push_back(trim(f));
            if (fields.size() != 6)
                throw InputError("row " + std::to_string(row) + ": expected 6 columns, found " + std::to_string(fields.size()));
            const std::string where = "row " + std::to_string(row) + ", column arch: ";
            const Arch& arch = findArch(ctx, fields[0], where);
            // The CSV's columns (carveout, blocks_per_sm) are NVIDIA's; AMD launches go through
            // --arch gfx... one at a time.
            if (arch.vendor != Vendor::Nvidia)
                throw InputError("row " + std::to_string(row) + ": " + arch.name +
                                 " is an AMD arch; the CSV mode computes NVIDIA occupancy only (use kx occupancy --arch " +
                                 arch.name + " --regs R --block B for AMD)");
            OccupancyInput input;
            input.registersPerThread = static_cast<int>(parseField(fields[1], row, kColumns[1]));
            input.staticSmemBytes = parseField(fields[2], row, kColumns[2]);
            input.threadsPerBlock = static_cast<int>(parseField(fields[3], row, kColumns[3]));
            input.dynamicSmemBytes = parseField(fields[4], row, kColumns[4]);
            input.carveoutPercent = static_cast<int>(parseField(fields[5], row, kColumns[5]));
            OccupancyResult r;
            try {
                r = nvidiaOccupancy(arch, input);
            } catch (const InputError& e) {
                throw InputError("row " + std::to_string(row) + ": " + e.what());
            }
            out += fmt::format("{},{},{},{},{},{},{}\n", fields[0], input.registersPerThread, input.staticSmemBytes,
                               input.threadsPerBlock, input.dynamicSmemBytes, input.carveoutPercent, r.blocksPerSm);
        }
        std::cout << out;
        return 0;
    }

    if (args.arch.empty() || args.regs < 0 || args.block <= 0)
        throw InputError("occupancy needs --arch, --regs and --block (or --csv FILE)");
    const Arch& arch = findArch(ctx, args.arch, "");
    if (arch.vendor == Vendor::Amd) return amdOccupancyReport(arch, args);
    if (args.sgprs != 0) throw InputError("--sgprs applies to AMD arches only; " + arch.name + " is NVIDIA");
    OccupancyInput input{args.regs, args.block, args.staticSmem, args.dynSmem, args.carveout};
    const OccupancyResult r = nvidiaOccupancy(arch, input);
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

}  // namespace kx::cli

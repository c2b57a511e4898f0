// kx compile for AMD arches: the template's HIP source through clang 19 to AMD ISA, the code
// object, or the resources (VGPRs, AGPRs, SGPRs, LDS, scratch, spills, wave size) with the
// occupancy, the calculator's beside the compiler's own.
#include "commands.hpp"

#include "analysis/amd_instruction_mix.hpp"
#include "analysis/amd_kernel_occupancy.hpp"
#include "compile/hip_compiler.hpp"
#include "compile/variant_build.hpp"
#include "util/data_paths.hpp"
#include "util/error.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <utility>

namespace kx::cli {
using namespace kx::engine;
namespace fs = std::filesystem;

namespace {

// Validated, compiled HIP for the arch; throws InputError on a bad variant or a missing clang.
// Returns nullopt (after printing clang's log) when the source does not compile.
std::optional<std::pair<PreparedVariant, HipCompileResult>> compileHip(const Template& tmpl, const Arch& arch, const Config& config) {
    if (!tmpl.hasLanguage("hip"))
        throw InputError("template '" + tmpl.id() + "' has no HIP source, so it cannot be compiled for " + arch.name);
    PreparedVariant prepared = prepareVariant(tmpl, config, arch);
    if (!prepared.violations.empty()) requireValid(prepared, arch);
    if (!findHipClang()) throw InputError(hipClangMissingMessage());
    HipCompiler compiler(cacheRoot() / "hip");
    HipCompileResult result = compiler.compile(hipRequest(prepared.request));
    if (!result.ok) {
        std::cerr << "kx: " << prepared.name << " failed to compile for " << arch.name << ":\n" << result.log;
        if (!result.log.empty() && result.log.back() != '\n') std::cerr << "\n";
        return std::nullopt;
    }
    return std::make_pair(std::move(prepared), std::move(result));
}

std::string widthText(const WidthCounts& w) {
    std::string text;
    for (auto it = w.rbegin(); it != w.rend(); ++it)
        text += fmt::format("{}{} x{}", text.empty() ? "" : ", ", widthLabel(it->first), it->second);
    return text.empty() ? "-" : text;
}

}  // namespace

int amdInstructionMix(const CompileArgs& args, const Template& tmpl, const Arch& arch, const Config& config) {
    auto compiled = compileHip(tmpl, arch, config);
    if (!compiled) return 1;
    const auto& [prepared, result] = *compiled;
    const AmdInstructionMix mix = analyzeAmdIsa(result.isa);
    std::string text;
    if (args.json) {
        auto countsJson = [](const AmdMixCounts& c) {
            nlohmann::json categories = nlohmann::json::object();
            for (int i = 0; i < kAmdInstrCategoryCount; ++i)
                categories[amdCategoryKey(static_cast<AmdInstrCategory>(i))] = c.byCategory[static_cast<std::size_t>(i)];
            auto widths = [](const WidthCounts& w) {
                nlohmann::json j = nlohmann::json::object();
                for (const auto& [bits, n] : w) j[std::to_string(bits)] = n;
                return j;
            };
            return nlohmann::json{{"total", c.total}, {"categories", categories},
                                  {"widths_bits", {{"global_loads", widths(c.globalLoads)}, {"global_stores", widths(c.globalStores)},
                                                   {"lds_reads", widths(c.ldsReads)}, {"lds_writes", widths(c.ldsWrites)}}}};
        };
        nlohmann::json kernels = nlohmann::json::array();
        for (const AmdKernelMix& k : mix.kernels) {
            nlohmann::json kj = countsJson(k.counts);
            kj["name"] = k.name;
            kernels.push_back(kj);
        }
        nlohmann::json isa = countsJson(mix.counts);
        isa["kernels"] = kernels;
        isa["warnings"] = mix.warnings;
        const nlohmann::json doc = {{"variant", prepared.name}, {"arch", arch.name}, {"compiler", result.compilerVersion},
                                    {"counts", "static: each instruction in the listing once, not executed counts"}, {"isa", isa}};
        text = doc.dump(2) + "\n";
    } else {
        text = fmt::format("{} for {} ({}): static instruction mix of the AMD ISA (each instruction in the listing once)\n",
                           prepared.name, arch.name, result.compilerVersion);
        if (mix.kernels.size() > 1) text += fmt::format("{} kernels; counts are their sum\n", mix.kernels.size());
        text += fmt::format("{:<24} {:>7}\n", "CATEGORY", "ISA");
        for (int i = 0; i < kAmdInstrCategoryCount; ++i) {
            const auto c = static_cast<AmdInstrCategory>(i);
            if (mix[c] != 0) text += fmt::format("{:<24} {:>7}\n", amdCategoryLabel(c), mix[c]);
        }
        text += fmt::format("{:<24} {:>7}\n", "TOTAL", mix.total());
        text += "\nWIDTHS (bits per lane per instruction)\n";
        text += fmt::format("  {:<16} {}\n", "global loads", widthText(mix.counts.globalLoads));
        text += fmt::format("  {:<16} {}\n", "global stores", widthText(mix.counts.globalStores));
        text += fmt::format("  {:<16} {}\n", "LDS reads", widthText(mix.counts.ldsReads));
        text += fmt::format("  {:<16} {}\n", "LDS writes", widthText(mix.counts.ldsWrites));
        if (!mix.warnings.empty()) text += "\nWARNINGS\n";
        for (const std::string& w : mix.warnings) text += "  " + w + "\n";
    }
    writeOutput(args.outputFile, text);
    return 0;
}

int compileAmd(const Context&, const CompileArgs& args, const Template& tmpl, const Arch& arch, const Config& config) {
    if (args.emit != "isa" && args.emit != "hsaco" && args.emit != "resources")
        throw InputError("--emit must be isa, hsaco or resources for " + arch.name + " (ptx, cubin and sass are NVIDIA's)");
    auto compiled = compileHip(tmpl, arch, config);
    if (!compiled) return 1;
    const auto& [prepared, result] = *compiled;
    if (args.emit == "isa") {
        writeOutput(args.outputFile, result.isa);
        return 0;
    }
    if (args.emit == "hsaco") {
        if (args.outputFile.empty() || args.outputFile == "-") throw InputError("--emit hsaco needs -o FILE (it is binary)");
        writeOutput(args.outputFile, result.codeObject);
        return 0;
    }

    const SizeMap sizes = tmpl.defaultSizes();
    const std::vector<LaunchStep> steps = tmpl.launches(config, arch, sizes);
    std::string text;
    nlohmann::json kernels = nlohmann::json::array();
    if (!args.json)
        text = fmt::format("{} for {} ({}{})\n", prepared.name, arch.name, result.compilerVersion,
                           result.fromCache ? ", cached" : fmt::format(", {:.0f} ms", result.compileMs));
    for (const AmdKernelResources& k : result.kernels) {
        // The launch of this kernel, for its workgroup size and dynamic LDS (the first when none is named so).
        const LaunchStep* step = steps.empty() ? nullptr : &steps.front();
        for (const LaunchStep& s : steps)
            if (s.kernel == k.function) step = &s;
        const int workgroup = step ? static_cast<int>(step->geometry.threadsPerBlock()) : k.maxFlatWorkgroupSize;
        const long long dynamicLds = step ? step->geometry.dynamicSmemBytes : 0;
        std::optional<AmdKernelOccupancy> occ;
        std::string occError;
        try {
            occ = amdKernelOccupancy(arch, k, workgroup, dynamicLds);
        } catch (const InputError& e) {
            occError = e.what();
        }
        if (args.json) {
            nlohmann::json j = {{"function", k.function}, {"vgprs", k.vgprs}, {"agprs", k.agprs}, {"total_vgprs", k.totalVgprs},
                                {"sgprs", k.sgprs}, {"lds_bytes", k.ldsBytes}, {"dynamic_lds_bytes", dynamicLds},
                                {"scratch_bytes", k.scratchBytes}, {"dynamic_stack", k.dynamicStack},
                                {"vgpr_spills", k.vgprSpills}, {"sgpr_spills", k.sgprSpills}, {"wavefront_size", k.wavefrontSize},
                                {"max_flat_workgroup_size", k.maxFlatWorkgroupSize}, {"workgroup_size", workgroup},
                                {"kernarg_bytes", k.kernargBytes}, {"code_bytes", k.codeBytes},
                                {"compiler_occupancy_waves_per_simd", k.compilerOccupancy}};
            if (occ) {
                j["occupancy"] = {{"workgroups_per_cu", occ->result.workgroupsPerCu}, {"waves_per_simd", occ->result.wavesPerSimd},
                                  {"max_waves_per_simd", occ->result.maxWavesPerSimd}, {"occupancy", occ->result.occupancy},
                                  {"compiler_formula_reproduced", occ->reproducedWavesPerSimd},
                                  {"agrees_with_compiler", occ->agreesWithCompiler}, {"explanation", occ->explanation}};
                if (!occ->difference.empty()) j["occupancy"]["difference"] = occ->difference;
            } else {
                j["occupancy_error"] = occError;
            }
            kernels.push_back(j);
            continue;
        }
        text += fmt::format("  kernel           {}\n", k.function);
        text += fmt::format("  VGPRs            {} per lane{}\n", k.vgprs,
                            k.agprs ? fmt::format(" + {} AGPRs = {} unified", k.agprs, k.totalVgprs) : std::string());
        text += fmt::format("  SGPRs            {} per wave\n", k.sgprs);
        text += fmt::format("  LDS              {} bytes static + {} bytes dynamic\n", k.ldsBytes, dynamicLds);
        text += fmt::format("  scratch          {} bytes per lane{}{}\n", k.scratchBytes, k.dynamicStack ? " (dynamic stack)" : "",
                            k.scratchBytes ? "  << SCRATCH" : "");
        text += fmt::format("  spills           {} VGPRs, {} SGPRs{}\n", k.vgprSpills, k.sgprSpills,
                            k.vgprSpills || k.sgprSpills ? "  << SPILLS" : "");
        text += fmt::format("  wave size        {}\n", k.wavefrontSize);
        text += fmt::format("  workgroup        {} threads (kernel bound {})\n", workgroup, k.maxFlatWorkgroupSize);
        text += fmt::format("  code             {} bytes\n", k.codeBytes);
        if (occ) {
            text += fmt::format("  compiler         {} waves per SIMD (clang's occupancy; {} from the arch data by LLVM's formula{})\n",
                                k.compilerOccupancy, occ->reproducedWavesPerSimd, occ->agreesWithCompiler ? ", agrees" : ", DIFFERS");
            text += fmt::format("  occupancy        {:.1f}% ({:g} of {} waves per SIMD, {} workgroups per CU)\n",
                                occ->result.occupancy * 100, occ->result.wavesPerSimd, occ->result.maxWavesPerSimd,
                                occ->result.workgroupsPerCu);
            if (!occ->difference.empty()) text += "  vs compiler      " + occ->difference + "\n";
            text += "  why              " + occ->explanation + "\n";
        } else {
            text += "  occupancy        cannot launch: " + occError + "\n";
        }
    }
    if (args.json) {
        const nlohmann::json doc = {{"variant", prepared.name}, {"arch", arch.name}, {"language", "hip"},
                                    {"compiler", result.compilerVersion}, {"compile_ms", result.compileMs},
                                    {"from_cache", result.fromCache}, {"kernels", kernels}};
        text = doc.dump(2) + "\n";
    }
    writeOutput(args.outputFile, text);
    return 0;
}

}  // namespace kx::cli

// kx mix: the static instruction mix of a config, from its PTX and, when nvdisasm or cuobjdump
// is found, from its SASS side by side. Counts are per instruction in the listing, not executed.
#include "command_options.hpp"
#include "commands.hpp"

#include "analysis/instruction_mix.hpp"
#include "compile/compiler.hpp"
#include "compile/variant_build.hpp"
#include "util/data_paths.hpp"
#include "util/error.hpp"
#include "util/output_file.hpp"

#include <CLI/CLI.hpp>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <optional>

namespace kx::cli {
using namespace kx::engine;

namespace {

// "128-bit x4, 32-bit x32" (widest first); "-" when empty.
std::string widths(const WidthCounts& w) {
    std::string text;
    for (auto it = w.rbegin(); it != w.rend(); ++it)
        text += fmt::format("{}{} x{}", text.empty() ? "" : ", ", widthLabel(it->first), it->second);
    return text.empty() ? "-" : text;
}

nlohmann::json widthsJson(const WidthCounts& w) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [bits, n] : w) j[std::to_string(bits)] = n;
    return j;
}

nlohmann::json countsJson(const MixCounts& c) {
    nlohmann::json categories = nlohmann::json::object();
    for (int i = 0; i < kInstrCategoryCount; ++i) categories[categoryKey(static_cast<InstrCategory>(i))] = c.byCategory[static_cast<std::size_t>(i)];
    return {{"total", c.total},
            {"categories", categories},
            {"widths_bits",
             {{"global_loads", widthsJson(c.globalLoads)},
              {"global_stores", widthsJson(c.globalStores)},
              {"async_copies", widthsJson(c.asyncCopies)},
              {"shared_loads", widthsJson(c.sharedLoads)},
              {"shared_stores", widthsJson(c.sharedStores)}}}};
}

nlohmann::json mixJson(const InstructionMix& mix) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const KernelMix& k : mix.kernels) {
        nlohmann::json kj = countsJson(k.counts);
        kj["name"] = k.name;
        kj["entry"] = k.entry;
        kernels.push_back(kj);
    }
    nlohmann::json j = countsJson(mix.counts);
    j["kernels"] = kernels;
    j["has_local_memory"] = mix.hasLocalMemory;
    j["warnings"] = mix.warnings;
    return j;
}

}  // namespace

int instructionMix(const Context& ctx, const CompileArgs& args) {
    auto tmpl = ctx.templates.find(args.variant.templateId);
    if (!tmpl) throw InputError("unknown template '" + args.variant.templateId + "' (see 'kx templates')");
    const Arch* arch = ctx.arches.findArch(args.variant.arch);
    if (!arch) throw InputError("unknown arch '" + args.variant.arch + "' (see 'kx arches')");
    if (arch->vendor == Vendor::Amd) return amdInstructionMix(args, *tmpl, *arch, variantConfig(*tmpl, args.variant, arch->name));
    if (!arch->compilable)
        throw InputError(arch->name + " is for analysis only: this NVRTC (" + nvrtcVersionString() + ") cannot compile for it");
    const Config config = variantConfig(*tmpl, args.variant, arch->name);
    const PreparedVariant prepared = prepareVariant(*tmpl, config, *arch);
    requireValid(prepared, *arch);

    Compiler compiler(cacheRoot() / "nvrtc");
    const CompileResult result = compiler.compile(prepared.request);
    if (!result.ok) {
        std::cerr << "kx: " << prepared.name << " failed to compile for " << arch->name << ":\n" << result.log;
        return 1;
    }
    const InstructionMix ptx = analyzePtx(result.ptx);
    std::optional<InstructionMix> sass;
    std::string sassError;
    if (auto listing = disassembleCubin(result.cubin, &sassError)) sass = analyzeSass(*listing);

    std::string text;
    if (args.json) {
        nlohmann::json doc = {{"variant", prepared.name}, {"arch", arch->name}, {"compiler", result.compilerVersion},
                              {"counts", "static: each instruction in the listing once, not executed counts"},
                              {"ptx", mixJson(ptx)}, {"sass", sass ? mixJson(*sass) : nlohmann::json()}};
        if (!sass) doc["sass_unavailable"] = sassError;
        text = doc.dump(2) + "\n";
    } else {
        text = fmt::format("{} for {} ({}): static instruction mix (each instruction in the listing once)\n",
                           prepared.name, arch->name, result.compilerVersion);
        if (ptx.kernels.size() > 1) text += fmt::format("{} kernels; counts are their sum\n", ptx.kernels.size());
        text += sass ? fmt::format("{:<24} {:>7} {:>7}\n", "CATEGORY", "PTX", "SASS") : fmt::format("{:<24} {:>7}\n", "CATEGORY", "PTX");
        for (int i = 0; i < kInstrCategoryCount; ++i) {
            const auto c = static_cast<InstrCategory>(i);
            if (ptx[c] == 0 && (!sass || (*sass)[c] == 0)) continue;  // compact: empty categories left out
            text += sass ? fmt::format("{:<24} {:>7} {:>7}\n", categoryLabel(c), ptx[c], (*sass)[c])
                         : fmt::format("{:<24} {:>7}\n", categoryLabel(c), ptx[c]);
        }
        text += sass ? fmt::format("{:<24} {:>7} {:>7}\n", "TOTAL", ptx.total(), sass->total())
                     : fmt::format("{:<24} {:>7}\n", "TOTAL", ptx.total());
        text += "\nWIDTHS (bits per thread per instruction)\n";
        const struct {
            const char* label;
            WidthCounts MixCounts::*field;
        } rows[] = {{"global loads", &MixCounts::globalLoads},   {"global stores", &MixCounts::globalStores},
                    {"global->shared", &MixCounts::asyncCopies}, {"shared loads", &MixCounts::sharedLoads},
                    {"shared stores", &MixCounts::sharedStores}};
        for (const auto& row : rows) {
            const WidthCounts& p = ptx.counts.*row.field;
            if (p.empty() && (!sass || (sass->counts.*row.field).empty())) continue;
            text += fmt::format("  {:<16} PTX  {}\n", row.label, widths(p));
            if (sass) text += fmt::format("  {:<16} SASS {}\n", "", widths(sass->counts.*row.field));
        }
        // SASS first: local memory from spills shows only after ptxas.
        std::vector<std::string> warnings;
        if (sass)
            for (const std::string& w : sass->warnings) warnings.push_back("SASS: " + w);
        for (const std::string& w : ptx.warnings) warnings.push_back("PTX: " + w);
        if (!warnings.empty()) text += "\nWARNINGS\n";
        for (const std::string& w : warnings) text += "  " + w + "\n";
        if (!sass) text += "\n(no SASS column: " + sassError + ")\n";
    }

    if (args.outputFile.empty() || args.outputFile == "-") {
        writeStandardOutput(text);
    } else {
        writeOutputFile(args.outputFile, text);  // OutputError before "wrote" when the write fails
        std::cerr << "wrote " << args.outputFile << "\n";
    }
    return 0;
}

// [SECTION] Command line

void addMixCommand(CLI::App& app, CommandTable& table) {
    auto args = std::make_shared<CompileArgs>();
    CLI::App* mix = app.add_subcommand(
        "mix", "Static instruction mix by category with load/store widths, from the PTX (and the SASS when nvdisasm or cuobjdump is found)");
    addVariantAndFlagOptions(mix, args->variant);
    mix->add_option("-o,--output", args->outputFile, "Output file (default stdout)");
    mix->add_flag("--json", args->json, "JSON output");
    table.add(mix, [args](Context& ctx) { return instructionMix(ctx, *args); });
}

}  // namespace kx::cli

#include "command_options.hpp"
#include "commands.hpp"

#include "sweep/preselected.hpp"

#include "analysis/line_map.hpp"
#include "compile/compiler.hpp"
#include "compile/variant_build.hpp"
#include "util/data_paths.hpp"
#include "util/error.hpp"
#include "util/output_file.hpp"

#include <CLI/CLI.hpp>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

namespace kx::cli {
using namespace kx::engine;
namespace fs = std::filesystem;

namespace {

// The preset's set of one config for the arch; none without --preset.
std::optional<PreselectedSet> presetSet(const Template& tmpl, const VariantArgs& args, const std::string& archName) {
    if (args.preset.empty()) return std::nullopt;
    const std::vector<PreselectedSet> sets = loadPreselected(tmpl);
    const PreselectedSet& set = findPreselected(sets, tmpl, args.preset, archName);
    if (set.configs.size() != 1)
        throw InputError("'" + args.preset + "' of " + tmpl.id() + " for " + archName + " holds " + std::to_string(set.configs.size()) +
                         " configs; a preset is a set of one (kx sweep --preselected " + args.preset + " times them all)");
    return set;
}

}  // namespace

Config variantConfig(const Template& tmpl, const VariantArgs& args, const std::string& archName) {
    Config base = tmpl.defaultConfig();
    if (const auto set = presetSet(tmpl, args, archName)) base = preselectedConfigs(*set, base).front();
    Config config = tmpl.withValues(base, parseAssignments(args.sets, "--set"));
    // Each item sets only the flags it names: "--flag maxrregcount=64 --flag fast_math".
    for (const std::string& item : args.flags) config.flags = withFlags(config.flags, item);
    return config;
}

SizeMap variantSizes(const Template& tmpl, const VariantArgs& args, const std::vector<std::string>& sizeItems, const std::string& archName) {
    const auto set = presetSet(tmpl, args, archName);
    return preselectedSizes(tmpl, set ? &*set : nullptr, parseAssignments(sizeItems, "--size"));
}

std::string presetSizesNote(const Template& tmpl, const VariantArgs& args, const SizeMap& sizes, const std::string& archName) {
    const auto set = presetSet(tmpl, args, archName);
    if (!set || set->sizes.empty()) return "";
    const SizeMap tuned = preselectedSizes(tmpl, &*set, {});
    std::string differ;
    for (const auto& [name, value] : tuned)
        if (sizes.count(name) && sizes.at(name) != value) differ += (differ.empty() ? "" : ", ") + name;
    if (differ.empty()) return "";
    return "preset " + set->name + " was tuned at " + preselectedSizesText(*set) + "; these sizes differ in " + differ;
}

void checkVariantArgs(const Template& tmpl, const VariantArgs& args) {
    if (!args.preset.empty()) {
        const std::vector<PreselectedSet> sets = loadPreselected(tmpl);
        if (std::none_of(sets.begin(), sets.end(), [&](const PreselectedSet& set) { return set.name == args.preset; })) {
            // A set may be defined once per group of arches; each name is listed once.
            std::vector<std::string> seen;
            std::string names;
            for (const PreselectedSet& set : sets) {
                if (std::find(seen.begin(), seen.end(), set.name) != seen.end()) continue;
                seen.push_back(set.name);
                names += (names.empty() ? "" : ", ") + set.name;
            }
            throw InputError("no preselected set '" + args.preset + "' of " + tmpl.id() + (sets.empty() ? std::string(" (it has none)") : "; its sets: " + names));
        }
    }
    (void)tmpl.withValues(tmpl.defaultConfig(), parseAssignments(args.sets, "--set"));
}

ResolvedVariant resolveVariant(const Context& ctx, const VariantArgs& args) {
    ResolvedVariant r;
    r.tmpl = ctx.templates.find(args.templateId);
    if (!r.tmpl) {
        std::string known;
        for (const auto& t : ctx.templates.templates()) known += (known.empty() ? "" : ", ") + t->id();
        throw InputError("unknown template '" + args.templateId + "' (templates: " + known + ")");
    }
    r.arch = ctx.arches.findArch(args.arch);
    if (!r.arch) throw InputError("unknown arch '" + args.arch + "' (see 'kx arches')");
    r.config = variantConfig(*r.tmpl, args, r.arch->name);
    return r;
}

void writeOutput(const std::string& file, const std::string& bytes) {
    if (file.empty() || file == "-") {
        writeStandardOutput(bytes);
        if (!bytes.empty() && bytes.back() != '\n') writeStandardOutput("\n");
        return;
    }
    writeOutputFile(file, bytes);
}

void requireValid(const PreparedVariant& prepared, const Arch& arch) {
    const auto& violations = prepared.violations;
    if (violations.empty()) return;
    std::string text = fmt::format("{} is not valid for {} ({} constraint{} violated):", prepared.name, arch.name,
                                   violations.size(), violations.size() == 1 ? "" : "s");
    for (const Violation& v : violations) text += "\n  - " + v.message;
    throw InputError(text);
}

std::map<std::string, std::string> parseAssignments(const std::vector<std::string>& items, const char* what) {
    std::map<std::string, std::string> out;
    for (const std::string& item : items) {
        std::stringstream parts(item);
        std::string part;
        while (std::getline(parts, part, ',')) {
            const auto eq = part.find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == part.size())
                throw InputError(std::string(what) + " expects KEY=VALUE, got '" + part + "'");
            out[part.substr(0, eq)] = part.substr(eq + 1);
        }
    }
    return out;
}

int listTemplates(const Context& ctx, bool json) {
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& t : ctx.templates.templates()) {
            nlohmann::json params = nlohmann::json::array();
            for (const ParamSpec& p : t->manifest().params) params.push_back({{"name", p.name}, {"default", p.defaultValue}, {"help", p.help}});
            const bool user = ctx.templates.isUser(t->id());
            list.push_back({{"id", t->id()}, {"title", t->manifest().title}, {"category", t->manifest().category},
                            {"languages", t->manifest().languages}, {"default_config", t->configName(t->defaultConfig())},
                            {"parameters", params}, {"origin", user ? "user" : "shipped"}, {"folder", t->manifest().folder}});
        }
        std::cout << list.dump(2) << "\n";
        return 0;
    }
    std::size_t idWidth = 8;
    for (const auto& t : ctx.templates.templates()) idWidth = std::max(idWidth, t->id().size());
    fmt::print("{:<{}} {:<16} {:<9} {}\n", "TEMPLATE", idWidth, "CATEGORY", "LANGUAGES", "TITLE");
    for (const auto& category : ctx.templates.byCategory())
        for (const auto& t : category.templates)
            fmt::print("{:<{}} {:<16} {:<9} {}{}\n", t->id(), idWidth, category.name,
                       fmt::format("{}", fmt::join(t->manifest().languages, ",")), t->manifest().title,
                       ctx.templates.isUser(t->id()) ? "  (user: " + t->manifest().folder + ")" : "");
    return 0;
}

int listArches(const Context& ctx, bool json) {
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (const Arch& a : ctx.arches.arches())
            list.push_back({{"name", a.name}, {"family", a.family}, {"vendor", a.vendor == Vendor::Nvidia ? "nvidia" : "amd"},
                            {"compilable", a.compilable}, {"warp_size", a.warpSize}, {"variables", a.expressionVariables()}});
        std::cout << list.dump(2) << "\n";
        return 0;
    }
    fmt::print("{:<9} {:<10} {:<7} {:<9} {:>10} {:>12} {:>12}\n", "ARCH", "FAMILY", "VENDOR", "USE", "REGS/SM",
               "SMEM/SM", "SMEM/BLOCK");
    for (const Arch& a : ctx.arches.arches()) {
        const bool nv = a.vendor == Vendor::Nvidia;
        fmt::print("{:<9} {:<10} {:<7} {:<9} {:>10} {:>12} {:>12}\n", a.name, a.family, nv ? "nvidia" : "amd",
                   a.compilable ? "compile" : "analysis", nv ? a.nv.regsPerSm : a.amd.vgprsPerSimd * a.amd.simdsPerCu,
                   nv ? a.nv.smemPerSm : a.amd.ldsPerCu, nv ? a.nv.smemPerBlockOptin : a.amd.maxLdsPerWorkgroup);
    }
    return 0;
}

namespace {

// "direction=bwd_weight, BM=128, ..., flags maxrregcount=128": what a preset lays over the config.
std::string presetValuesText(const PreselectedConfig& config) {
    std::string text;
    for (const auto& [name, value] : config.values) text += (text.empty() ? "" : ", ") + name + "=" + value;
    if (!config.flags.empty()) text += (text.empty() ? "flags " : ", flags ") + config.flags;
    return text;
}

}  // namespace

int listPresets(const Context& ctx, const std::string& templateId, const std::string& archName, bool json) {
    const auto tmpl = ctx.templates.find(templateId);
    if (!tmpl) throw InputError("unknown template '" + templateId + "' (see 'kx templates')");
    const Arch* arch = archName.empty() ? nullptr : ctx.arches.findArch(archName);
    if (!archName.empty() && !arch) throw InputError("unknown arch '" + archName + "' (see 'kx arches')");
    std::vector<PreselectedSet> sets = loadPreselected(*tmpl);
    std::erase_if(sets, [&](const PreselectedSet& s) { return arch && !s.coversArch(arch->name); });
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (const PreselectedSet& s : sets) {
            nlohmann::json sizes = nlohmann::json::object();
            for (const auto& [name, value] : s.sizes) sizes[name] = std::stoll(value);  // checked integers
            nlohmann::json configs = nlohmann::json::array();
            for (const PreselectedConfig& c : s.configs) configs.push_back({{"values", c.values}, {"flags", c.flags}});
            list.push_back({{"name", s.name}, {"arches", s.arches}, {"configs", s.configs.size()}, {"preset", s.configs.size() == 1},
                            {"sizes", sizes}, {"help", s.help}, {"values", configs}, {"file", s.file}, {"line", s.line}});
        }
        std::cout << list.dump(2) << "\n";
        return 0;
    }
    if (sets.empty()) {
        fmt::print("{} has no preselected sets{} (templates/{}/preselected.xml)\n", tmpl->id(), arch ? " for " + arch->name : "", tmpl->id());
        return 0;
    }
    fmt::print("{:<24} {:<8} {:<22} {}\n", "NAME", "CONFIGS", "ARCHES", "PROBLEM");
    for (const PreselectedSet& s : sets) {
        std::string arches = fmt::format("{}", fmt::join(s.arches, ","));
        if (arches.size() > 22) arches = arches.substr(0, 19) + "...";
        const std::string kind = s.configs.size() == 1 ? "preset" : std::to_string(s.configs.size());
        fmt::print("{:<24} {:<8} {:<22} {}\n", s.name, kind, arches, s.sizes.empty() ? "the template's default sizes" : preselectedSizesText(s));
        if (!s.help.empty()) fmt::print("    {}\n", s.help);
        if (s.configs.size() == 1) fmt::print("    sets {}\n", presetValuesText(s.configs.front()));
    }
    fmt::print("A preset (a set of one config): kx run {} --arch ARCH --preset NAME, at its problem unless --size says otherwise.\n"
               "A set of several: kx sweep {} --arch ARCH --preselected NAME.\n", tmpl->id(), tmpl->id());
    return 0;
}

int generate(const Context& ctx, const GenerateArgs& args) {
    const ResolvedVariant v = resolveVariant(ctx, args.variant);
    // Without --lang the language follows the arch's vendor, as compile's does.
    const std::string lang = !args.lang.empty() ? args.lang : v.arch->vendor == Vendor::Amd ? "hip" : "cuda";
    const auto& langs = v.tmpl->manifest().languages;
    if (std::find(langs.begin(), langs.end(), lang) == langs.end())
        throw InputError("template '" + v.tmpl->id() + "' has no " + lang + " source" +
                         (args.lang.empty() ? " (the language of " + v.arch->name + ")" : ""));
    if (lang == "cuda" && v.arch->vendor != Vendor::Nvidia)
        throw InputError("CUDA source needs an NVIDIA arch; " + v.arch->name + " is AMD (use --lang hip)");
    if (lang == "hip" && v.arch->vendor != Vendor::Amd)
        throw InputError("HIP source is rendered for AMD arches (gfx90a, gfx942); " + v.arch->name + " is NVIDIA (use --lang cuda)");
    const PreparedVariant prepared = prepareVariant(*v.tmpl, v.config, *v.arch);
    if (!prepared.violations.empty()) requireValid(prepared, *v.arch);
    std::string file = args.outputFile;
    if (!args.outputDir.empty()) {
        std::error_code ec;
        fs::create_directories(args.outputDir, ec);
        file = (fs::path(args.outputDir) / (prepared.name + (lang == "hip" ? ".hip" : ".cu"))).string();
    }
    writeOutput(file, prepared.source);
    if (!file.empty() && file != "-") std::cerr << "wrote " << file << "\n";
    return 0;
}

namespace {

// The resources' line on what became of a --maxrregcount cap for `function`.
std::string registerCapLine(const CompileResult& result, const std::string& function, int cap) {
    const KernelResources* k = kernelNamed(result.kernels, function);
    if (k == nullptr) return {};
    switch (registerCapOutcome(result.log, function, k->registers, cap)) {
    case RegisterCapOutcome::Applied: return fmt::format("  register cap     {} applied by ptxas\n", cap);
    case RegisterCapOutcome::Within: return fmt::format("  register cap     {} kept: the kernel, which has __launch_bounds__, uses {}\n", cap, k->registers);
    case RegisterCapOutcome::Ignored: break;
    }
    return fmt::format("  register cap     {} ignored by ptxas: the kernel's __launch_bounds__ take precedence ({} registers)\n", cap,
                       k->registers);
}

}  // namespace

int compile(const Context& ctx, const CompileArgs& args) {
    const ResolvedVariant v = resolveVariant(ctx, args.variant);
    if (args.lang == "cuda" && v.arch->vendor == Vendor::Amd)
        throw InputError("CUDA compiles need an NVIDIA arch; " + v.arch->name + " is AMD (use --lang hip)");
    if (args.lang == "hip" && v.arch->vendor != Vendor::Amd)
        throw InputError("HIP compiles for AMD arches (gfx90a, gfx942); " + v.arch->name + " is NVIDIA (use --lang cuda)");
    if (v.arch->vendor == Vendor::Amd) return compileAmd(ctx, args, *v.tmpl, *v.arch, v.config);
    if (!v.arch->compilable)
        throw InputError(v.arch->name + " is for analysis only: this NVRTC (" + nvrtcVersionString() + ") cannot compile for it");
    if (args.emit != "ptx" && args.emit != "cubin" && args.emit != "sass" && args.emit != "resources" && args.emit != "map")
        throw InputError("--emit must be ptx, cubin, sass, map or resources (isa is for AMD arches)");
    const PreparedVariant prepared = prepareVariant(*v.tmpl, v.config, *v.arch);
    if (!prepared.violations.empty()) requireValid(prepared, *v.arch);

    Compiler compiler(cacheRoot() / "nvrtc");
    const CompileResult result = compiler.compile(prepared.request);
    if (!result.ok) {
        std::cerr << "kx: " << prepared.name << " failed to compile for " << v.arch->name << ":\n" << result.log;
        return 1;
    }
    if (args.emit == "ptx") {
        writeOutput(args.outputFile, result.ptx);
    } else if (args.emit == "cubin") {
        if (args.outputFile.empty() || args.outputFile == "-") throw InputError("--emit cubin needs -o FILE (it is binary)");
        writeOutput(args.outputFile, result.cubin);
    } else if (args.emit == "sass") {
        std::string error;
        auto sass = disassembleCubin(result.cubin, &error);
        if (!sass) throw InputError(error);
        writeOutput(args.outputFile, *sass);
    } else if (args.emit == "map") {
        // Source line -> PTX lines -> SASS lines; without a disassembler, the PTX side alone.
        std::string error;
        const auto sass = disassembleListing(result.cubin, prepared.request.fileName, &error);
        if (!sass) std::cerr << "kx: no SASS lines in the map: " << error << "\n";
        const LineMap map = buildLineMap(result.ptx, sass ? &*sass : nullptr, prepared.request.fileName);
        writeOutput(args.outputFile, args.json ? lineMapJson(map, prepared.source, result.ptx, sass ? &*sass : nullptr, prepared.request.fileName)
                                               : lineMapText(map, prepared.source, result.ptx, sass ? &*sass : nullptr));
    } else {
        const SizeMap sizes = v.tmpl->defaultSizes();
        const LaunchGeometry primary = v.tmpl->launch(v.config, *v.arch, sizes);
        const std::vector<LaunchStep> steps = v.tmpl->launches(v.config, *v.arch, sizes);
        // Each kernel's own launch (block and dynamic shared memory differ between a template's
        // kernels); the primary's for a kernel that no launch names.
        const auto launchOf = [&](const std::string& function) -> const LaunchGeometry& {
            for (const LaunchStep& s : steps)
                if (s.kernel == function) return s.geometry;
            return primary;
        };
        std::string text;
        if (args.json) {
            nlohmann::json kernels = nlohmann::json::array();
            for (const KernelResources& k : result.kernels) {
                const LaunchGeometry& launch = launchOf(k.function);
                kernels.push_back({{"function", k.function}, {"registers", k.registers}, {"static_smem_bytes", k.sharedBytes},
                                   {"dynamic_smem_bytes", launch.dynamicSmemBytes}, {"constant_bytes", k.constantBytes},
                                   {"stack_frame_bytes", k.stackFrameBytes}, {"spill_store_bytes", k.spillStoreBytes},
                                   {"spill_load_bytes", k.spillLoadBytes}, {"barriers", k.barriers},
                                   {"threads_per_block", launch.threadsPerBlock()}});
            }
            nlohmann::json doc = {{"variant", prepared.name}, {"arch", v.arch->name}, {"compiler", result.compilerVersion},
                                  {"compile_ms", result.compileMs}, {"from_cache", result.fromCache}, {"kernels", kernels},
                                  {"flags", v.config.flags.canonical()}};
            if (const KernelResources* k = kernelNamed(result.kernels, prepared.name); k && v.config.flags.maxRegisters > 0)
                doc["register_cap_applied"] = registerCapOutcome(result.log, prepared.name, k->registers, v.config.flags.maxRegisters) !=
                                              RegisterCapOutcome::Ignored;
            text = doc.dump(2) + "\n";
        } else {
            text = fmt::format("{} for {} ({}{})\n", prepared.name, v.arch->name, result.compilerVersion,
                               result.fromCache ? ", cached" : fmt::format(", {:.0f} ms", result.compileMs));
            for (const KernelResources& k : result.kernels) {
                const LaunchGeometry& launch = launchOf(k.function);
                if (result.kernels.size() > 1) text += fmt::format("  {}\n", k.function);
                text += fmt::format("  registers        {} per thread\n", k.registers);
                text += fmt::format("  shared memory    {} bytes static + {} bytes dynamic\n", k.sharedBytes, launch.dynamicSmemBytes);
                text += fmt::format("  threads/block    {}\n", launch.threadsPerBlock());
                text += fmt::format("  stack frame      {} bytes\n", k.stackFrameBytes);
                text += fmt::format("  spill stores     {} bytes{}\n", k.spillStoreBytes, k.spillStoreBytes ? "  << SPILLS" : "");
                text += fmt::format("  spill loads      {} bytes{}\n", k.spillLoadBytes, k.spillLoadBytes ? "  << SPILLS" : "");
                text += fmt::format("  barriers         {}\n", k.barriers);
                text += fmt::format("  constant memory  {} bytes\n", k.constantBytes);
            }
            if (!v.config.flags.isDefault()) text += fmt::format("  flags            {}\n", v.config.flags.canonical());
            if (v.config.flags.maxRegisters > 0) text += registerCapLine(result, prepared.name, v.config.flags.maxRegisters);
        }
        writeOutput(args.outputFile, text);
    }
    return 0;
}

// [SECTION] Command line

void addListCommands(CLI::App& app, CommandTable& table) {
    auto json = std::make_shared<bool>(false);
    CLI::App* templates = app.add_subcommand("templates", "List the templates");
    templates->add_flag("--json", *json, "JSON output");
    table.add(templates, [json](Context& ctx) { return listTemplates(ctx, *json); });
    CLI::App* arches = app.add_subcommand("arches", "List the architectures");
    arches->add_flag("--json", *json, "JSON output");
    table.add(arches, [json](Context& ctx) { return listArches(ctx, *json); });
    auto presetTemplate = std::make_shared<std::string>();
    auto presetArch = std::make_shared<std::string>();
    CLI::App* presets = app.add_subcommand("presets", "List a template's tuned presets and preselected sets, with the problem each was tuned for");
    presets->add_option("template", *presetTemplate, "Template id (see kx templates)")->required();
    presets->add_option("--arch", *presetArch, "Only the sets for this arch (sm_90, ...)");
    presets->add_flag("--json", *json, "JSON output");
    table.add(presets, [json, presetTemplate, presetArch](Context& ctx) { return listPresets(ctx, *presetTemplate, *presetArch, *json); });
}

void addGenerateCommand(CLI::App& app, CommandTable& table) {
    auto gen = std::make_shared<GenerateArgs>();
    auto batch = std::make_shared<GenerateBatchArgs>();
    CLI::App* generate = app.add_subcommand("generate", "Write a template's source for a config");
    addVariantAndFlagOptions(generate, gen->variant);
    generate->add_option("--lang", gen->lang, "cuda or hip (default: the arch's; HIP on gfx90a, gfx942)")->check(CLI::IsMember({"cuda", "hip"}));
    auto* genOut = generate->add_option("-o,--output", gen->outputFile, "Output file (default stdout)");
    generate->add_option("--output-dir", gen->outputDir, "Write DIR/<variant name>.cu")->excludes(genOut);
    generate->get_option("--arch")->required(false);  // a batch names --gpu-target instead
    generate->add_option("--gpu-target", batch->gpuTargets, "Batch: arches to generate for, e.g. sm_80,sm_90 (one folder each)")->delimiter(',');
    generate->add_option("--datatype", batch->datatypes, "Batch: dtype values, e.g. f16,bf16")->delimiter(',');
    generate->add_option("--layout", batch->layouts, "Batch: layout values, e.g. rcr,rrr")->delimiter(',');
    generate->add_option("--variants", batch->variants, "Batch: more parameters to vary, as kx sweep --vary (repeatable)");
    generate->add_option("--preselected", batch->preselected, "Batch: a set of the template's preselected.xml");
    generate->add_option("-j,--jobs", batch->jobs, "Batch: compile threads for --cubin")->check(CLI::Range(1, 1024));
    generate->add_flag("--cubin", batch->cubin, "Batch: compile each config to DIR/<arch>/<name>.cubin too");
    table.add(generate, [gen, batch](Context& ctx) {
        if (batch->requested()) return generateBatch(ctx, *gen, *batch);
        if (gen->variant.arch.empty()) throw InputError("generate needs --arch (or --gpu-target for a batch)");
        return cli::generate(ctx, *gen);
    });
}

void addCompileCommand(CLI::App& app, CommandTable& table) {
    auto comp = std::make_shared<CompileArgs>();
    CLI::App* compile = app.add_subcommand("compile", "Compile a config with NVRTC (PTX, CUBIN, SASS) or, for AMD, clang 19 (ISA, code object); or print its resources");
    addVariantAndFlagOptions(compile, comp->variant);
    compile->add_option("--emit", comp->emit, "ptx, cubin, sass, map (source line -> PTX -> SASS lines) or resources; AMD arches: isa, hsaco or resources")->required();
    compile->add_option("--lang", comp->lang, "cuda or hip (default: the arch's; HIP on gfx90a, gfx942)")->check(CLI::IsMember({"cuda", "hip"}));
    compile->add_option("-o,--output", comp->outputFile, "Output file (default stdout)");
    compile->add_flag("--json", comp->json, "Resources or the line map as JSON");
    table.add(compile, [comp](Context& ctx) { return cli::compile(ctx, *comp); });
}

}  // namespace kx::cli

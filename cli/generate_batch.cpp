// kx generate in batch (CK's unified_gemm_codegen): every config of a space for every target
// arch written to DIR/<arch>/, optionally compiled to CUBIN in parallel, with DIR/index.json.
#include "commands.hpp"

#include "jobs/job_queue.hpp"
#include "sweep/preselected.hpp"
#include "sweep/space.hpp"
#include "sweep/sweep.hpp"
#include "util/data_paths.hpp"
#include "util/error.hpp"
#include "util/output_file.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <thread>

namespace kx::cli {
using namespace kx::engine;
namespace fs = std::filesystem;

namespace {

// A config's file under DIR/<arch>/: its name comes from the manifest's name pattern, which the
// loader limits to letters, digits and '_'; checked again here so no name can lead out of dir.
void writeFile(const fs::path& file, const std::string& bytes) {
    const std::string name = file.filename().string();
    if (name.empty() || name.find("..") != std::string::npos) throw InputError("refusing to write '" + file.string() + "'");
    writeOutputFile(file, bytes);
}

// "--datatype f16,bf16" as a --vary of the template's parameter `param`.
std::string varyOf(const Template& tmpl, const std::string& param, const std::vector<std::string>& values, const char* option) {
    if (!tmpl.manifest().findParam(param)) throw InputError(std::string(option) + ": " + tmpl.id() + " has no parameter '" + param + "'");
    std::string text = param + "=";
    for (std::size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + values[i];
    return text;
}

// The --gpu-target arches, checked: NVIDIA ones, compilable when CUBINs are asked for.
std::vector<const Arch*> targetArches(const Context& ctx, const std::vector<std::string>& targets, bool cubin) {
    if (targets.empty()) throw InputError("name the arches to generate for: --gpu-target sm_80,sm_90");
    std::vector<const Arch*> arches;
    for (const std::string& t : targets) {
        const Arch* a = ctx.arches.findArch(t);
        if (!a) throw InputError("--gpu-target: unknown arch '" + t + "' (see 'kx arches')");
        if (a->vendor != Vendor::Nvidia) throw InputError("--gpu-target " + t + ": CUDA source needs an NVIDIA arch");
        if (cubin && !a->compilable) throw InputError("--cubin: " + t + " is for analysis only, this NVRTC cannot compile for it");
        arches.push_back(a);
    }
    return arches;
}

// Compiles the sweep's configs in parallel with progress on stderr, or (without CUBINs) only
// checks and renders each one.
void compileOrRender(Sweep& sweep, Compiler& compiler, bool cubin, const std::string& archName) {
    if (!cubin) {
        // Rendering only: cancelled before compiling, the sweep still checks and renders each config.
        sweep.cancel();
        sweep.run(compiler, nullptr);
        return;
    }
    JobQueue worker(1);
    std::atomic<bool> done{false};
    worker.submit("compile", [&](Job&) {
        sweep.run(compiler, nullptr);
        done.store(true);
    });
    SweepProgress progress(false, "generate " + archName);
    while (!done.load()) {
        progress.update(sweep.counts());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    progress.update(sweep.counts(), true);
}

struct BatchCounts {
    int written = 0, skipped = 0, failed = 0;
};

// Writes a config's source (and CUBIN) under dir and returns its entry of index.json; a config
// that breaks constraints is listed as skipped, with no file.
nlohmann::json writePoint(const SweepPoint& p, const Arch& arch, const fs::path& dir, const std::string& outputDir, bool cubin,
                          BatchCounts& counts) {
    nlohmann::json entry = {{"arch", arch.name}, {"name", p.name}, {"config", p.config.values}, {"flags", p.config.flags.canonical()}};
    if (p.status == PointStatus::Pruned && !p.violations.empty()) {
        entry["status"] = "skipped";
        entry["reason"] = p.reason;
        ++counts.skipped;
        return entry;
    }
    const fs::path source = dir / (p.name + ".cu");
    writeFile(source, p.source);
    ++counts.written;
    entry["source"] = fs::relative(source, outputDir).string();
    entry["status"] = "written";
    if (!cubin) return entry;
    if (p.compiled && p.compiled->ok && !p.compiled->cubin.empty()) {
        const fs::path file = dir / (p.name + ".cubin");
        writeFile(file, p.compiled->cubin);
        entry["cubin"] = fs::relative(file, outputDir).string();
        if (p.resources)
            entry["resources"] = {{"registers", p.resources->registers}, {"spill_bytes", p.resources->spillBytes()},
                                  {"static_smem_bytes", p.resources->staticSmemBytes},
                                  {"dynamic_smem_bytes", p.resources->dynamicSmemBytes},
                                  {"threads_per_block", p.resources->threadsPerBlock}};
        if (p.resources && p.resources->spillBytes() > 0) entry["reason"] = p.reason;
    } else {
        entry["status"] = "compile_failed";
        entry["reason"] = p.reason;
        ++counts.failed;
    }
    return entry;
}

}  // namespace

int generateBatch(const Context& ctx, const GenerateArgs& args, const GenerateBatchArgs& batch) {
    auto tmpl = ctx.templates.find(args.variant.templateId);
    if (!tmpl) throw InputError("unknown template '" + args.variant.templateId + "' (see 'kx templates')");
    if (args.outputDir.empty()) throw InputError("a batch (--gpu-target, --datatype, ...) writes files: give --output-dir DIR");
    // Batches write CUDA; without --lang that is what they write (an AMD target is refused below).
    if (!args.lang.empty() && args.lang != "cuda") throw InputError("batch generation writes CUDA (--lang cuda)");
    std::vector<std::string> targets = batch.gpuTargets;
    if (targets.empty() && !args.variant.arch.empty()) targets.push_back(args.variant.arch);
    const std::vector<const Arch*> arches = targetArches(ctx, targets, batch.cubin);
    Config base = tmpl->withValues(tmpl->defaultConfig(), parseAssignments(args.variant.sets, "--set"));
    for (const std::string& item : args.variant.flags) base.flags = withFlags(base.flags, item);
    std::vector<std::string> varies = batch.variants;
    if (!batch.datatypes.empty()) varies.push_back(varyOf(*tmpl, "dtype", batch.datatypes, "--datatype"));
    if (!batch.layouts.empty()) varies.push_back(varyOf(*tmpl, "layout", batch.layouts, "--layout"));
    const auto sets = batch.preselected.empty() ? std::vector<PreselectedSet>{} : loadPreselected(*tmpl);

    nlohmann::json index = {{"template", tmpl->id()}, {"compiler", batch.cubin ? nvrtcVersionString() : ""}, {"targets", targets}};
    index["files"] = nlohmann::json::array();
    BatchCounts counts;
    Compiler compiler(cacheRoot() / "nvrtc");
    for (const Arch* arch : arches) {
        std::vector<Config> bases = {base};
        if (!batch.preselected.empty()) bases = preselectedConfigs(findPreselected(sets, *tmpl, batch.preselected, arch->name), base);
        const std::vector<Config> configs = spaceConfigs(makeSpace(*tmpl, bases, varies));
        const fs::path dir = fs::path(args.outputDir) / arch->name;
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (!fs::is_directory(dir)) throw InputError("cannot create " + dir.string());

        // A compile-only sweep does the rendering, the constraint checks and the parallel compiles.
        SweepOptions options;
        options.compileThreads = batch.jobs;
        options.maxSpillBytes = -1;  // spilling code is still code: generate it, report the spills
        Sweep sweep(tmpl, *arch, configs, options);
        compileOrRender(sweep, compiler, batch.cubin, arch->name);
        for (const SweepPoint& p : sweep.points()) index["files"].push_back(writePoint(p, *arch, dir, args.outputDir, batch.cubin, counts));
    }
    const fs::path indexFile = fs::path(args.outputDir) / "index.json";
    writeFile(indexFile, index.dump(2) + "\n");
    flushStandardOutput();
    const int written = counts.written, skipped = counts.skipped, failed = counts.failed;
    fmt::print("wrote {} source{}{} for {} ({} arch{}) in {}; {} config{} skipped for breaking constraints{}; index: {}\n", written,
               written == 1 ? "" : "s", batch.cubin ? fmt::format(" and {} cubin{}", written - failed, written - failed == 1 ? "" : "s") : "",
               tmpl->id(), arches.size(), arches.size() == 1 ? "" : "es", args.outputDir, skipped, skipped == 1 ? "" : "s",
               failed ? fmt::format("; {} failed to compile", failed) : "", indexFile.string());
    return failed > 0 ? 1 : 0;
}

}  // namespace kx::cli

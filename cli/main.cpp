// kx: the engine's command-line face. Exit codes: 0 success, 1 the compiler or the GPU failed,
// 2 bad input (with a one-line reason on stderr).
#include "commands.hpp"

#include "util/data_paths.hpp"
#include "util/error.hpp"
#include "util/output_file.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

using namespace kx;

int main(int argc, char** argv) {
    engine::failExitWhenStandardOutputIsLost("kx");  // `kx ... > /dev/full` must not exit 0
    CLI::App app{"kx - generate, compile and analyse GPU kernels from templates"};
    app.require_subcommand(1);
    std::string dataDir;
    app.add_option("--data-dir", dataDir, "Folder holding templates/ and assets/ (default: found next to kx)");
    std::vector<std::string> templateDirs;
    app.add_option("--templates", templateDirs,
                   "More templates: a template's folder, or a folder of them (repeatable). The user's own "
                   "($XDG_DATA_HOME/kernel-explorer/templates) are always loaded");
    bool json = false;

    auto addVariant = [](CLI::App* cmd, cli::VariantArgs& v) {
        cmd->add_option("template", v.templateId, "Template id (see 'kx templates')")->required();
        cmd->add_option("--arch", v.arch, "Target architecture, e.g. sm_90 (see 'kx arches')")->required();
        cmd->add_option("--set", v.sets, "Parameter value KEY=VALUE (repeatable, or comma-separated)");
        cmd->add_option("--preset", v.preset, "Start from a tuned preset: a set of templates/<id>/preselected.xml with one config for the arch");
    };
    auto addFlags = [](CLI::App* cmd, cli::VariantArgs& v) {
        cmd->add_option("--flag", v.flags,
                        "Compiler flag: maxrregcount=N (0 or 16..255), fast_math, ptxas_opt=0..3, extra_vectorization "
                        "(KEY or KEY=VALUE; repeatable, or comma-separated)");
    };

    CLI::App* templates = app.add_subcommand("templates", "List the templates");
    templates->add_flag("--json", json, "JSON output");
    CLI::App* arches = app.add_subcommand("arches", "List the architectures");
    arches->add_flag("--json", json, "JSON output");

    cli::GenerateArgs gen;
    CLI::App* generate = app.add_subcommand("generate", "Write a template's source for a config");
    addVariant(generate, gen.variant);
    addFlags(generate, gen.variant);
    generate->add_option("--lang", gen.lang, "cuda or hip (default: the arch's; HIP on gfx90a, gfx942)")->check(CLI::IsMember({"cuda", "hip"}));
    auto* genOut = generate->add_option("-o,--output", gen.outputFile, "Output file (default stdout)");
    generate->add_option("--output-dir", gen.outputDir, "Write DIR/<variant name>.cu")->excludes(genOut);
    cli::GenerateBatchArgs genBatch;
    generate->get_option("--arch")->required(false);  // a batch names --gpu-target instead
    generate->add_option("--gpu-target", genBatch.gpuTargets, "Batch: arches to generate for, e.g. sm_80,sm_90 (one folder each)")->delimiter(',');
    generate->add_option("--datatype", genBatch.datatypes, "Batch: dtype values, e.g. f16,bf16")->delimiter(',');
    generate->add_option("--layout", genBatch.layouts, "Batch: layout values, e.g. rcr,rrr")->delimiter(',');
    generate->add_option("--variants", genBatch.variants, "Batch: more parameters to vary, as kx sweep --vary (repeatable)");
    generate->add_option("--preselected", genBatch.preselected, "Batch: a set of the template's preselected.xml");
    generate->add_option("-j,--jobs", genBatch.jobs, "Batch: compile threads for --cubin")->check(CLI::Range(1, 1024));
    generate->add_flag("--cubin", genBatch.cubin, "Batch: compile each config to DIR/<arch>/<name>.cubin too");

    cli::CompileArgs comp;
    CLI::App* compile = app.add_subcommand("compile", "Compile a config with NVRTC (PTX, CUBIN, SASS) or, for AMD, clang 19 (ISA, code object); or print its resources");
    addVariant(compile, comp.variant);
    addFlags(compile, comp.variant);
    compile->add_option("--emit", comp.emit, "ptx, cubin, sass, map (source line -> PTX -> SASS lines) or resources; AMD arches: isa, hsaco or resources")->required();
    compile->add_option("--lang", comp.lang, "cuda or hip (default: the arch's; HIP on gfx90a, gfx942)")->check(CLI::IsMember({"cuda", "hip"}));
    compile->add_option("-o,--output", comp.outputFile, "Output file (default stdout)");
    compile->add_flag("--json", comp.json, "Resources or the line map as JSON");

    cli::CompileArgs mixArgs;
    CLI::App* mix = app.add_subcommand(
        "mix", "Static instruction mix by category with load/store widths, from the PTX (and the SASS when nvdisasm or cuobjdump is found)");
    addVariant(mix, mixArgs.variant);
    addFlags(mix, mixArgs.variant);
    mix->add_option("-o,--output", mixArgs.outputFile, "Output file (default stdout)");
    mix->add_flag("--json", mixArgs.json, "JSON output");

    cli::OccupancyArgs occ;
    CLI::App* occupancy = app.add_subcommand("occupancy", "Theoretical occupancy for a launch (NVIDIA: CUDA's own calculator; AMD: VGPRs, SGPRs, LDS, waves), or for CSV rows");
    occupancy->add_option("--arch", occ.arch, "Arch, e.g. sm_90 or gfx942");
    occupancy->add_option("--regs", occ.regs, "Registers per thread (VGPRs on AMD)")->check(CLI::Range(0, 65535));
    occupancy->add_option("--block", occ.block, "Threads per block")->check(CLI::Range(1, 1048576));
    occupancy->add_option("--static-smem", occ.staticSmem, "Static shared memory (LDS on AMD) per block, bytes");
    occupancy->add_option("--dyn-smem", occ.dynSmem, "Dynamic shared memory per block, bytes");
    occupancy->add_option("--carveout", occ.carveout, "Preferred shared-memory carveout: -1 none, else 0..100 (%)");
    occupancy->add_flag("--json", occ.json, "One launch's result as JSON");
    occupancy->add_option("--sgprs", occ.sgprs, "AMD: SGPRs per wave as the compiler reports them (0 = unknown, no limit)");
    occupancy->add_option("--csv", occ.csvFile,
                          "CSV with header arch,regs,static_smem,block,dyn_smem,carveout ('-' = stdin); prints the rows with blocks_per_sm");

    cli::RunArgs runArgs;
    CLI::App* runCmd = app.add_subcommand("run", "Run a config on the GPU: correctness against float64, timing, baseline (needs an NVIDIA driver)");
    addVariant(runCmd, runArgs.variant);
    addFlags(runCmd, runArgs.variant);
    runCmd->add_option("--size", runArgs.sizes, "Problem size KEY=VALUE (repeatable, or comma-separated)");
    runCmd->add_option("--device", runArgs.device, "GPU index");
    runCmd->add_option("--reps", runArgs.reps, "Timed repetitions (median, min, max)")->check(CLI::Range(1, 100000));
    runCmd->add_option("--warmup", runArgs.warmup, "Untimed launches first")->check(CLI::Range(0, 100000));
    runCmd->add_option("--timeout", runArgs.timeout, "Seconds before a hung kernel's runner is killed")->check(CLI::Range(0.1, 86400.0));
    runCmd->add_option("--seed", runArgs.seed, "Seed of the random inputs");
    runCmd->add_flag("--no-baseline", runArgs.noBaseline, "Skip cuBLAS / copy baseline");
    runCmd->add_flag("--json", runArgs.json, "JSON report");
    runCmd->add_flag("--pc-sampling", runArgs.pcSampling, "Sample program counters with CUPTI in extra runs after the timed ones: the hottest instructions and their stall reasons");
    runCmd->add_option("--pc-runs", runArgs.pcRuns, "Runs sampled with --pc-sampling")->check(CLI::Range(1, 100000));
    runCmd->add_option("--pc-period", runArgs.pcPeriod, "Sampling interval 2^N cycles, N in 5..31 (default: CUPTI's)")->check(CLI::Range(5, 31));
    runCmd->add_option("--pc-top", runArgs.pcTop, "Instructions listed with --pc-sampling")->check(CLI::Range(1, 100000));
    runCmd->add_option("--session", runArgs.session, "Record the run (variant, source, PTX, resources, report) in this session file; created when absent");

    cli::SessionArgs sess;
    CLI::App* sessionCmd = app.add_subcommand("session", "Session files (.kxs): variants, artifacts, runs and notes in one SQLite file");
    sessionCmd->require_subcommand(1);
    CLI::App* sessionNew = sessionCmd->add_subcommand("new", "Create an empty session (never overwrites)");
    sessionNew->add_option("file", sess.file, "Session file (.kxs)")->required();
    CLI::App* sessionList = sessionCmd->add_subcommand("list", "List the variants with their run counts and best times");
    sessionList->add_option("file", sess.file, "Session file (.kxs)")->required();
    CLI::App* sessionShow = sessionCmd->add_subcommand("show", "Show variants in detail: config, notes, artifacts, resources, runs");
    sessionShow->add_option("file", sess.file, "Session file (.kxs)")->required();
    sessionShow->add_option("--variant", sess.variant, "Only this variant");
    CLI::App* sessionNote = sessionCmd->add_subcommand("note", "Set a variant's notes (what it is for, why it is fast or slow)");
    sessionNote->add_option("file", sess.file, "Session file (.kxs)")->required();
    sessionNote->add_option("variant", sess.variant, "Variant name (see 'kx session list')")->required();
    sessionNote->add_option("text", sess.notes, "The notes; \"\" clears them")->required();
    CLI::App* sessionExport = sessionCmd->add_subcommand("export", "Export the session as JSON (everything but artifact bytes) or CSV (one row per run)");
    sessionExport->add_option("file", sess.file, "Session file (.kxs)")->required();
    sessionExport->add_option("--format", sess.format, "json or csv")->check(CLI::IsMember({"json", "csv"}));
    sessionExport->add_option("-o,--output", sess.output, "Output file (default stdout)");
    CLI::App* sessionMerge = sessionCmd->add_subcommand("merge", "Merge sessions into one (idempotent; same template, arch and config make one variant)");
    sessionMerge->add_option("out", sess.file, "Session file written (created when absent)")->required();
    sessionMerge->add_option("in", sess.inputs, "Sessions merged into it")->required();

    cli::SweepArgs sw;
    CLI::App* sweepCmd = app.add_subcommand("sweep", "Compile (and run on every GPU given) a space of a template's configs; every outcome is kept");
    addVariant(sweepCmd, sw.variant);
    sweepCmd->add_option("--vary", sw.varies, "Parameter to vary: P (all allowed values), P=v1,v2 or P=lo..hi (repeatable)");
    sweepCmd->add_option("--preselected", sw.preselected, "A named set of templates/<id>/preselected.xml");
    sweepCmd->add_option("--configs", sw.configsFile, "File of configs, one KEY=VALUE,... line each");
    sweepCmd->add_option("--sample", sw.sample, "Draw this many configs of the space at random");
    sweepCmd->add_option("--seed", sw.seed, "Seed of --sample");
    sweepCmd->add_flag("--valid-only", sw.validOnly, "Leave out configs that break constraints (counted on stderr), then draw --sample");
    sweepCmd->add_option("--size", sw.sizes, "Problem size KEY=VALUE (repeatable, or comma-separated)");
    sweepCmd->add_option("--session", sw.session, "Record every config's outcome in this session file; created when absent");
    sweepCmd->add_option("--name", sw.name, "The sweep's name in the session");
    sweepCmd->add_option("--sweep-id", sw.sweepId, "The sweep's id (shards of one sweep share it and merge into one)");
    auto* sweepCsv = sweepCmd->add_option("--csv", sw.csv, "Write one CSV row per config to FILE ('-': stdout)");
    sweepCmd->add_flag("--json", sw.json, "Every config's result as JSON on stdout")->excludes(sweepCsv);
    sweepCmd->add_option("-j,--jobs", sw.jobs, "Compile threads (default: one per hardware thread)")->check(CLI::Range(1, 1024));
    sweepCmd->add_option("--devices", sw.devices, "GPUs to run on: 0,1 or all (default 0)");
    sweepCmd->add_flag("--compile-only", sw.compileOnly, "Compile and predict only (what runs without a GPU)");
    sweepCmd->add_option("--reps", sw.reps, "Timed repetitions per config")->check(CLI::Range(1, 100000));
    sweepCmd->add_option("--warmup", sw.warmup, "Untimed launches first")->check(CLI::Range(0, 100000));
    sweepCmd->add_option("--timeout", sw.timeout, "Seconds before a hung kernel's runner is killed")->check(CLI::Range(0.1, 86400.0));
    sweepCmd->add_flag("--no-baseline", sw.noBaseline, "Skip the baselines (cuBLAS, CUB, copy)");
    auto* allowSpills = sweepCmd->add_flag("--allow-spills", sw.allowSpills, "Run configs that spill registers (default: pruned)");
    sweepCmd->add_option("--max-spill-bytes", sw.maxSpillBytes, "Prune configs spilling more bytes (default 0)")->excludes(allowSpills);
    sweepCmd->add_option("--max-regs", sw.maxRegs, "Prune configs using more registers per thread")->check(CLI::Range(1, 255));
    sweepCmd->add_option("--roofline-device", sw.rooflineDevice, "Device of the predicted roofline (default: the arch's; see assets/devices)");
    sweepCmd->add_option("--autotune", sw.autotune, "Re-time the K fastest in rounds with more repetitions; keep the winner as a preset")
        ->check(CLI::Range(1, 1000));
    sweepCmd->add_option("--autotune-rounds", sw.autotuneRounds, "Rounds per autotune candidate")->check(CLI::Range(1, 100));
    sweepCmd->add_option("--autotune-reps", sw.autotuneReps, "Repetitions per autotune round")->check(CLI::Range(1, 100000));
    sweepCmd->add_option("--save-preset", sw.presetName, "Name of the autotune winner's preset in the session");
    sweepCmd->add_option("--emit-slurm", sw.emitSlurm, "Write a Slurm job array (script and shard lists) to DIR instead of sweeping");
    sweepCmd->add_option("--shards", sw.shards, "Array tasks of --emit-slurm")->check(CLI::Range(1, 100000));
    sweepCmd->add_option("--slurm-time", sw.slurmTime, "Time limit of each array task (#SBATCH --time)");

    cli::CalibrateArgs cal;
    CLI::App* calibrateCmd = app.add_subcommand("calibrate", "Measure the GPU's copy bandwidth and cuBLAS GEMM throughput per dtype");
    calibrateCmd->add_option("--device", cal.device, "GPU index");
    calibrateCmd->add_option("--gemm-size", cal.gemmSize, "GEMM size (cube)")->check(CLI::Range(256, 32768));
    calibrateCmd->add_option("--reps", cal.reps, "Timed repetitions")->check(CLI::Range(1, 10000));
    calibrateCmd->add_flag("--json", cal.json, "JSON output");

    cli::TutorialArgs tut;
    CLI::App* tutorialCmd = app.add_subcommand("tutorial", "Guided tutorials: list them, read one, check a session against its checkpoints");
    tutorialCmd->require_subcommand(1);
    CLI::App* tutorialList = tutorialCmd->add_subcommand("list", "List the tutorials in learning order");
    tutorialList->add_option("--session", tut.session, "Show the progress kept in this session file");
    CLI::App* tutorialShow = tutorialCmd->add_subcommand("show", "Print a tutorial: its steps, actions, checkpoints and recorded runs");
    tutorialShow->add_option("name", tut.name, "Tutorial id (see 'kx tutorial list')")->required();
    CLI::App* tutorialCheck = tutorialCmd->add_subcommand("check", "Judge a session's variants and runs against a tutorial's checkpoints (exit 0 when all pass)");
    tutorialCheck->add_option("name", tut.name, "Tutorial id (see 'kx tutorial list')")->required();
    tutorialCheck->add_option("--session", tut.session, "Session file (.kxs)")->required();

    cli::TilesArgs tilesArgs;
    CLI::App* tilesCmd = app.add_subcommand("tiles", "Tile layout of a config: block tiles in raster order, SMs and waves on a device, warps, fragments, K loop, shared memory");
    addVariant(tilesCmd, tilesArgs.variant);
    addFlags(tilesCmd, tilesArgs.variant);
    tilesCmd->add_option("--size", tilesArgs.sizes, "Problem size KEY=VALUE (repeatable, or comma-separated)");
    tilesCmd->add_option("--device", tilesArgs.device, "Device of the SM count (assets/devices id; default: the arch's)");
    tilesCmd->add_option("--regs", tilesArgs.regs, "Registers per thread for the occupancy (default: ptxas's, from an NVRTC compile)")
        ->check(CLI::Range(0, 255));
    tilesCmd->add_flag("--no-compile", tilesArgs.noCompile, "Use the manifest's register estimate instead of compiling");
    tilesCmd->add_flag("--json", tilesArgs.json, "The whole scene as JSON");

    cli::RooflineArgs roofArgs;
    CLI::App* rooflineCmd = app.add_subcommand("roofline", "The roofline the app draws: device, ceilings the kernel can use, the predicted point from the traffic model");
    addVariant(rooflineCmd, roofArgs.variant);
    addFlags(rooflineCmd, roofArgs.variant);
    rooflineCmd->add_option("--size", roofArgs.sizes, "Problem size KEY=VALUE (repeatable, or comma-separated)");
    rooflineCmd->add_option("--device", roofArgs.device, "Device id or name (see assets/devices; default: one of the arch's family)");
    rooflineCmd->add_flag("--all-roofs", roofArgs.allRoofs, "Also the compute roofs the kernel cannot use");
    rooflineCmd->add_flag("--no-measured", roofArgs.noMeasured, "Leave out the ceilings measured by kx calibrate");
    auto* roofCsv = rooflineCmd->add_flag("--csv", roofArgs.csv, "Ceilings, ridges and points as CSV");
    rooflineCmd->add_flag("--json", roofArgs.json, "The whole scene as JSON")->excludes(roofCsv);

    cli::ShareArgs shareArgs;
    CLI::App* shareCmd = app.add_subcommand("share", "Print a variant's share string (a user template's files go with it); kx open reads it");
    addVariant(shareCmd, shareArgs.variant);
    addFlags(shareCmd, shareArgs.variant);
    shareCmd->add_option("--size", shareArgs.sizes, "Problem size KEY=VALUE (repeatable, or comma-separated)");

    cli::OpenArgs openArgs;
    CLI::App* openCmd = app.add_subcommand("open", "Open a share string: write the user template it carries, print the variant and the commands that reproduce it");
    openCmd->add_option("string", openArgs.text, "The share string (kx1:...)")->required();
    openCmd->add_option("--emit", openArgs.emit, "Also generate or compile it: source, ptx, cubin, sass, map or resources")
        ->check(CLI::IsMember({"source", "ptx", "cubin", "sass", "map", "resources"}));
    openCmd->add_option("-o,--output", openArgs.outputFile, "Output file of --emit (default stdout)");
    openCmd->add_flag("--json", openArgs.json, "JSON output");

    // Name an unknown command plainly instead of CLI11's "A subcommand is required".
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        if (word == "--data-dir" || word == "--templates") { ++i; continue; }
        if (word.rfind("-", 0) == 0) continue;
        std::string known;
        bool found = false;
        for (const CLI::App* sub : app.get_subcommands({})) {
            known += (known.empty() ? "" : ", ") + sub->get_name();
            found = found || sub->get_name() == word;
        }
        if (!found) {
            std::cerr << "kx: unknown command '" << word << "' (commands: " << known << ")\n";
            return 2;
        }
        break;
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "kx: " << e.what() << "\n";
        return 2;
    }

    try {
        const std::filesystem::path root = dataDir.empty() ? engine::dataRoot() : std::filesystem::path(dataDir);
        // The shipped templates, the user's own, then each --templates folder.
        std::vector<std::filesystem::path> userDirs = {engine::userTemplatesRoot()};
        for (const std::string& dir : templateDirs) {
            std::error_code ec;
            if (!std::filesystem::is_directory(dir, ec)) throw engine::InputError("--templates " + dir + ": no such folder");
            userDirs.emplace_back(dir);
        }
        cli::Context ctx{engine::ArchDatabase::loadFromDataRoot(root), engine::TemplateLibrary::load(root / "templates", userDirs)};
        for (const auto& e : ctx.arches.errors()) std::cerr << "kx: warning: " << e.toString() << "\n";
        for (const auto& e : ctx.templates.errors()) std::cerr << "kx: warning: " << e.toString() << "\n";

        if (*templates) return cli::listTemplates(ctx, json);
        if (*arches) return cli::listArches(ctx, json);
        if (*generate && !genBatch.requested() && gen.variant.arch.empty())
            throw engine::InputError("generate needs --arch (or --gpu-target for a batch)");
        if (*generate) return genBatch.requested() ? cli::generateBatch(ctx, gen, genBatch) : cli::generate(ctx, gen);
        if (*compile) return cli::compile(ctx, comp);
        if (*mix) return cli::instructionMix(ctx, mixArgs);
        if (*occupancy) return cli::occupancy(ctx, occ);
        if (*runCmd) return cli::run(ctx, runArgs);
        if (*calibrateCmd) return cli::calibrate(ctx, cal);
        if (*sessionNew) return cli::sessionNew(sess);
        if (*sessionList) return cli::sessionList(sess);
        if (*sessionShow) return cli::sessionShow(sess);
        if (*sessionExport) return cli::sessionExport(sess);
        if (*sessionNote) return cli::sessionNote(sess);
        if (*sessionMerge) return cli::sessionMerge(sess);
        if (*sweepCmd) return cli::sweep(ctx, sw);
        if (*tilesCmd) return cli::tiles(ctx, tilesArgs);
        if (*rooflineCmd) return cli::roofline(ctx, roofArgs);
        if (*shareCmd) return cli::share(ctx, shareArgs);
        if (*openCmd) return cli::openShareString(ctx, openArgs);
        tut.dataRoot = root;
        if (*tutorialList) return cli::tutorialList(tut);
        if (*tutorialShow) return cli::tutorialShow(ctx, tut);
        if (*tutorialCheck) return cli::tutorialCheck(ctx, tut);
    } catch (const engine::InputError& e) {
        std::cerr << "kx: " << e.what() << "\n";
        return 2;
    } catch (const engine::OutputError& e) {
        std::cerr << "kx: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "kx: internal error: " << e.what() << "\n";
        return 1;
    }
    return 2;
}

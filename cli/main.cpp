// kx: the engine's command-line face. Exit codes: 0 success, 1 the compiler or the GPU failed,
// 2 bad input (with a one-line reason on stderr).
#include "commands.hpp"

#include "util/data_paths.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

using namespace kx;

int main(int argc, char** argv) {
    CLI::App app{"kx - generate, compile and analyse GPU kernels from templates"};
    app.require_subcommand(1);
    std::string dataDir;
    app.add_option("--data-dir", dataDir, "Folder holding templates/ and assets/ (default: found next to kx)");
    bool json = false;

    auto addVariant = [](CLI::App* cmd, cli::VariantArgs& v) {
        cmd->add_option("template", v.templateId, "Template id (see 'kx templates')")->required();
        cmd->add_option("--arch", v.arch, "Target architecture, e.g. sm_90 (see 'kx arches')")->required();
        cmd->add_option("--set", v.sets, "Parameter value KEY=VALUE (repeatable, or comma-separated)");
    };

    CLI::App* templates = app.add_subcommand("templates", "List the templates");
    templates->add_flag("--json", json, "JSON output");
    CLI::App* arches = app.add_subcommand("arches", "List the architectures");
    arches->add_flag("--json", json, "JSON output");

    cli::GenerateArgs gen;
    CLI::App* generate = app.add_subcommand("generate", "Write a template's source for a config");
    addVariant(generate, gen.variant);
    generate->add_option("--lang", gen.lang, "cuda or hip")->check(CLI::IsMember({"cuda", "hip"}));
    auto* genOut = generate->add_option("-o,--output", gen.outputFile, "Output file (default stdout)");
    generate->add_option("--output-dir", gen.outputDir, "Write DIR/<variant name>.cu")->excludes(genOut);

    cli::CompileArgs comp;
    CLI::App* compile = app.add_subcommand("compile", "Compile a config with NVRTC and print PTX, CUBIN, SASS or resources");
    addVariant(compile, comp.variant);
    compile->add_option("--emit", comp.emit, "ptx, cubin, sass or resources")->required();
    compile->add_option("-o,--output", comp.outputFile, "Output file (default stdout)");
    compile->add_flag("--json", comp.json, "Resources as JSON");

    cli::CompileArgs mixArgs;
    CLI::App* mix = app.add_subcommand(
        "mix", "Static instruction mix by category with load/store widths, from the PTX (and the SASS when nvdisasm or cuobjdump is found)");
    addVariant(mix, mixArgs.variant);
    mix->add_option("-o,--output", mixArgs.outputFile, "Output file (default stdout)");
    mix->add_flag("--json", mixArgs.json, "JSON output");

    cli::OccupancyArgs occ;
    CLI::App* occupancy = app.add_subcommand("occupancy", "Theoretical occupancy for a launch (NVIDIA: CUDA's own calculator; AMD: VGPRs, SGPRs, LDS, waves), or for CSV rows");
    occupancy->add_option("--arch", occ.arch, "Arch, e.g. sm_90 or gfx942");
    occupancy->add_option("--regs", occ.regs, "Registers per thread (VGPRs on AMD)");
    occupancy->add_option("--block", occ.block, "Threads per block");
    occupancy->add_option("--static-smem", occ.staticSmem, "Static shared memory (LDS on AMD) per block, bytes");
    occupancy->add_option("--dyn-smem", occ.dynSmem, "Dynamic shared memory per block, bytes");
    occupancy->add_option("--carveout", occ.carveout, "Preferred shared-memory carveout: -1 none, else 0..100 (%)");
    occupancy->add_option("--sgprs", occ.sgprs, "AMD: SGPRs per wave as the compiler reports them (0 = unknown, no limit)");
    occupancy->add_option("--csv", occ.csvFile,
                          "CSV with header arch,regs,static_smem,block,dyn_smem,carveout ('-' = stdin); prints the rows with blocks_per_sm");

    cli::RunArgs runArgs;
    CLI::App* runCmd = app.add_subcommand("run", "Run a config on the GPU: correctness against float64, timing, baseline (needs an NVIDIA driver)");
    addVariant(runCmd, runArgs.variant);
    runCmd->add_option("--size", runArgs.sizes, "Problem size KEY=VALUE (repeatable, or comma-separated)");
    runCmd->add_option("--device", runArgs.device, "GPU index");
    runCmd->add_option("--reps", runArgs.reps, "Timed repetitions (median, min, max)")->check(CLI::Range(1, 100000));
    runCmd->add_option("--warmup", runArgs.warmup, "Untimed launches first")->check(CLI::Range(0, 100000));
    runCmd->add_option("--timeout", runArgs.timeout, "Seconds before a hung kernel's runner is killed")->check(CLI::Range(0.1, 86400.0));
    runCmd->add_option("--seed", runArgs.seed, "Seed of the random inputs");
    runCmd->add_flag("--no-baseline", runArgs.noBaseline, "Skip cuBLAS / copy baseline");
    runCmd->add_flag("--json", runArgs.json, "JSON report");
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

    cli::CalibrateArgs cal;
    CLI::App* calibrateCmd = app.add_subcommand("calibrate", "Measure the GPU's copy bandwidth and cuBLAS GEMM throughput per dtype");
    calibrateCmd->add_option("--device", cal.device, "GPU index");
    calibrateCmd->add_option("--gemm-size", cal.gemmSize, "GEMM size (cube)")->check(CLI::Range(256, 32768));
    calibrateCmd->add_option("--reps", cal.reps, "Timed repetitions")->check(CLI::Range(1, 10000));
    calibrateCmd->add_flag("--json", cal.json, "JSON output");

    // Name an unknown command plainly instead of CLI11's "A subcommand is required".
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        if (word == "--data-dir") { ++i; continue; }
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
        cli::Context ctx{engine::ArchDatabase::loadFromDataRoot(root), engine::TemplateLibrary::load(root / "templates")};
        for (const auto& e : ctx.arches.errors()) std::cerr << "kx: warning: " << e.toString() << "\n";
        for (const auto& e : ctx.templates.errors()) std::cerr << "kx: warning: " << e.toString() << "\n";

        if (*templates) return cli::listTemplates(ctx, json);
        if (*arches) return cli::listArches(ctx, json);
        if (*generate) return cli::generate(ctx, gen);
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
    } catch (const engine::InputError& e) {
        std::cerr << "kx: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "kx: internal error: " << e.what() << "\n";
        return 1;
    }
    return 2;
}

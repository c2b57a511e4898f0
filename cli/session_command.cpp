// kx session new|list|show|export|merge, and the recording of `kx run --session`.
#include "command_options.hpp"
#include "commands.hpp"

#include "run/calibration.hpp"
#include "run/run_report_json.hpp"
#include "store/schema.hpp"
#include "store/session_record.hpp"
#include "store/session_store.hpp"
#include "util/error.hpp"
#include "util/output_file.hpp"

#include <CLI/CLI.hpp>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <fstream>
#include <iostream>

namespace kx::cli {
using namespace kx::engine;

namespace {

std::string fmtMs(const std::optional<double>& ms) { return ms ? fmt::format("{:.4f}", *ms) : "-"; }

void printResources(const std::string& json) {
    std::vector<KernelResources> kernels;
    try {
        kernels = parseResourcesJson(json);
    } catch (const InputError&) {
        fmt::print("    (unreadable resource report)\n");
        return;
    }
    for (const KernelResources& k : kernels)
        fmt::print("    {}: {} registers, {} B shared, {} B stack, spills {} B stored / {} B loaded, {} barriers\n", k.function,
                   k.registers, k.sharedBytes, k.stackFrameBytes, k.spillStoreBytes, k.spillLoadBytes, k.barriers);
}

void printVariant(const SessionStore& store, const SessionVariant& v) {
    fmt::print("{} (id {})\n", v.name, v.id);
    fmt::print("  template   {}   arch {}\n", v.config.templateId, v.arch);
    fmt::print("  config     {}\n", v.config.canonical());
    if (!v.notes.empty()) fmt::print("  notes      {}\n", v.notes);
    fmt::print("  created    {}   updated {}\n", v.createdAt, v.updatedAt);
    const auto artifacts = store.artifactsOf(v.id);
    for (const ArtifactInfo& a : artifacts) fmt::print("  {:<10} {} bytes  {}\n", artifactKindName(a.kind), a.size, a.hash);
    if (const auto resources = store.artifactOf(v.id, ArtifactKind::Resources)) {
        fmt::print("  resources\n");
        printResources(*resources);
    }
    const auto runs = store.runsOf(v.id);
    fmt::print("  runs       {}\n", runs.size());
    for (const StoredRun& run : runs) {
        const RunReport& r = run.report;
        std::string sizes;
        for (const auto& [k, value] : r.sizes) sizes += (sizes.empty() ? "" : ",") + k + "=" + std::to_string(value);
        std::string line = fmt::format("    #{} {} {} [{}]  ", run.id, run.createdAt, run.device, sizes);
        if (!r.ok) {
            line += "failed: " + r.error;
        } else {
            line += fmt::format("{} {:.4f} ms  {:.2f} TFLOP/s  {:.1f} GB/s", verdictText(r.correctness.verdict()), r.medianMs, r.tflops, r.gbps);
            if (r.pctOfRoof) line += fmt::format("  {:.1f}% of the {}", *r.pctOfRoof, r.roofName);
            if (r.pctOfComputeCeiling) line += fmt::format("  {:.1f}% of {}", *r.pctOfComputeCeiling, r.computeCeilingName);
            if (r.pctOfCopyBandwidth) line += fmt::format("  {:.1f}% of copy bandwidth", *r.pctOfCopyBandwidth);
            if (const auto* b = r.primaryBaseline(); b && b->speedup > 0) line += fmt::format("  {:.2f}x {}", b->speedup, b->name);
            if (!run.calibrationJson.empty()) line += "  (calibrated)";
        }
        fmt::print("{}\n", line);
    }
}

// kx session new, list, show, export, note and merge.

int sessionNew(const SessionArgs& args) {
    const SessionStore store = SessionStore::create(args.file);
    fmt::print("created {} (schema {})\n", args.file, store.schemaVersion());
    return 0;
}

int sessionList(const SessionArgs& args) {
    const SessionStore store = SessionStore::open(args.file);
    const auto summaries = store.summaries();
    if (summaries.empty()) {
        fmt::print("{}: no variants yet\n", args.file);
        return 0;
    }
    std::size_t width = 7;
    for (const auto& s : summaries) width = std::max(width, s.variant.name.size());
    fmt::print("{:<{}}  {:<10} {:<8} {:>5}  {:>10}\n", "VARIANT", width, "TEMPLATE", "ARCH", "RUNS", "BEST MS");
    for (const auto& s : summaries)
        fmt::print("{:<{}}  {:<10} {:<8} {:>5}  {:>10}\n", s.variant.name, width, s.variant.config.templateId, s.variant.arch, s.runCount,
                   fmtMs(s.bestMs));
    return 0;
}

int sessionShow(const SessionArgs& args) {
    const SessionStore store = SessionStore::open(args.file);
    if (!args.variant.empty()) {
        const auto v = store.findVariant(args.variant);
        if (!v) throw InputError("the session " + args.file + " has no variant named '" + args.variant + "' (see 'kx session list')");
        printVariant(store, *v);
        return 0;
    }
    const auto variants = store.variants();
    fmt::print("{}: schema {}, {} variant{}{}\n", args.file, store.schemaVersion(), variants.size(), variants.size() == 1 ? "" : "s",
               store.readOnly() ? " (read-only)" : "");
    for (const auto& v : variants) {
        fmt::print("\n");
        printVariant(store, v);
    }
    return 0;
}

int sessionExport(const SessionArgs& args) {
    const SessionStore store = SessionStore::open(args.file);
    const std::string text = args.format == "csv" ? store.exportCsv()
                                                  : store.exportJson().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (args.output.empty() || args.output == "-") {
        writeStandardOutput(text);
        return 0;
    }
    writeOutputFile(args.output, text);
    return 0;
}

int sessionNote(const SessionArgs& args) {
    SessionStore store = SessionStore::open(args.file);
    const auto v = store.findVariant(args.variant);
    if (!v) throw InputError("the session " + args.file + " has no variant named '" + args.variant + "' (see 'kx session list')");
    store.setNotes(v->id, args.notes);
    return 0;
}

// kx session merge OUT IN...: each IN merged into OUT (created when absent) by
// SessionStore::mergeFrom's rules; merging the same file again adds nothing.
int sessionMerge(const SessionArgs& args) {
    if (args.inputs.empty()) throw InputError("kx session merge OUT IN...: name at least one session to merge");
    std::error_code ec;
    SessionStore out = std::filesystem::exists(args.file, ec) ? SessionStore::open(args.file) : SessionStore::create(args.file);
    for (const std::string& in : args.inputs) {
        const SessionStore source = SessionStore::open(in);
        const MergeStats s = out.mergeFrom(source);
        fmt::print("{}: {} variant{} added, {} already there; {} run{} added, {} already there; {} sweep point{} added, {} kept\n", in,
                   s.variantsAdded, s.variantsAdded == 1 ? "" : "s", s.variantsMerged, s.runsAdded, s.runsAdded == 1 ? "" : "s",
                   s.runsSkipped, s.pointsAdded, s.pointsAdded == 1 ? "" : "s", s.pointsKept);
    }
    fmt::print("{}: {} variants, {} sweep{}\n", args.file, out.variants().size(), out.sweeps().size(), out.sweeps().size() == 1 ? "" : "s");
    return 0;
}

}  // namespace

// [SECTION] Recording kx run --session

void checkSessionTarget(const std::string& file) {
    std::error_code ec;
    if (std::filesystem::exists(file, ec)) {
        if (SessionStore::open(file).readOnly()) throw InputError(file + " is read-only: the run could not be recorded there");
        return;
    }
    const std::filesystem::path parent = std::filesystem::absolute(file).parent_path();
    if (!std::filesystem::is_directory(parent, ec) || ::access(parent.c_str(), W_OK) != 0)
        throw InputError("cannot create the session " + file + ": its folder does not exist or is not writable");
}

std::string recordRun(const std::string& file, const std::string& variantName, const std::string& arch, const Config& config,
                      const std::string& source, const CompileResult& compiled, const RunReport& report) {
    std::error_code ec;
    // The SASS listing is made before the file is opened: the transaction stays short.
    std::string sass;
    if (!compiled.cubin.empty()) {
        std::string why;
        sass = disassembleCubin(compiled.cubin, &why).value_or("");
    }
    SessionStore store = std::filesystem::exists(file, ec) ? SessionStore::open(file) : SessionStore::create(file);
    std::string recorded;
    store.transaction([&] {
        const std::int64_t id = recordVariant(store, variantName, arch, config, artifactsOf(source, compiled, sass));
        const std::int64_t run = store.addRun(id, report, calibrationJsonFor(report.deviceName));
        recorded = store.variant(id)->name + " (run " + std::to_string(run) + ")";
    });
    return recorded;
}

// [SECTION] Command line

void addSessionCommand(CLI::App& app, CommandTable& table) {
    auto sess = std::make_shared<SessionArgs>();
    auto action = [&table, sess](CLI::App* command, int (*fn)(const SessionArgs&)) {
        table.add(command, [sess, fn](Context&) { return fn(*sess); });
    };
    CLI::App* sessionCmd = app.add_subcommand("session", "Session files (.kxs): variants, artifacts, runs and notes in one SQLite file");
    sessionCmd->require_subcommand(1);
    CLI::App* sessionNew = sessionCmd->add_subcommand("new", "Create an empty session (never overwrites)");
    sessionNew->add_option("file", sess->file, "Session file (.kxs)")->required();
    action(sessionNew, cli::sessionNew);
    CLI::App* sessionList = sessionCmd->add_subcommand("list", "List the variants with their run counts and best times");
    sessionList->add_option("file", sess->file, "Session file (.kxs)")->required();
    action(sessionList, cli::sessionList);
    CLI::App* sessionShow = sessionCmd->add_subcommand("show", "Show variants in detail: config, notes, artifacts, resources, runs");
    sessionShow->add_option("file", sess->file, "Session file (.kxs)")->required();
    sessionShow->add_option("--variant", sess->variant, "Only this variant");
    action(sessionShow, cli::sessionShow);
    CLI::App* sessionNote = sessionCmd->add_subcommand("note", "Set a variant's notes (what it is for, why it is fast or slow)");
    sessionNote->add_option("file", sess->file, "Session file (.kxs)")->required();
    sessionNote->add_option("variant", sess->variant, "Variant name (see 'kx session list')")->required();
    sessionNote->add_option("text", sess->notes, "The notes; \"\" clears them")->required();
    action(sessionNote, cli::sessionNote);
    CLI::App* sessionExport = sessionCmd->add_subcommand("export", "Export the session as JSON (everything but artifact bytes) or CSV (one row per run)");
    sessionExport->add_option("file", sess->file, "Session file (.kxs)")->required();
    sessionExport->add_option("--format", sess->format, "json or csv")->check(CLI::IsMember({"json", "csv"}));
    sessionExport->add_option("-o,--output", sess->output, "Output file (default stdout)");
    action(sessionExport, cli::sessionExport);
    CLI::App* sessionMerge = sessionCmd->add_subcommand("merge", "Merge sessions into one (idempotent; same template, arch and config make one variant)");
    sessionMerge->add_option("out", sess->file, "Session file written (created when absent)")->required();
    sessionMerge->add_option("in", sess->inputs, "Sessions merged into it")->required();
    action(sessionMerge, cli::sessionMerge);
}

}  // namespace kx::cli

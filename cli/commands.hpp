// The `kx` subcommands. Each returns the process exit code; bad input throws InputError (exit 2).
#pragma once

#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "compile/compiler.hpp"
#include "run/variant_run.hpp"
#include "sweep/sweep.hpp"
#include "templates/template_library.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kx::cli {

struct Context {
    engine::ArchDatabase arches;
    engine::TemplateLibrary templates;
    std::filesystem::path dataRoot;  // holds templates/, assets/ and tutorials/
};

// "--set" values: each item "K=V" or "K1=V1,K2=V2".
std::map<std::string, std::string> parseAssignments(const std::vector<std::string>& items, const char* what);

// The bytes to `file`, or to standard output for "" and "-" (ended with a newline there when they
// lack one). Throws OutputError when they could not all be written (util/output_file.hpp).
void writeOutput(const std::string& file, const std::string& bytes);

// Throws InputError listing every violated constraint ("NAME is not valid for ARCH (N constraints
// violated):" and one "  - reason" line each) unless the variant is valid.
void requireValid(const engine::PreparedVariant& prepared, const engine::Arch& arch);

struct VariantArgs {
    std::string templateId;
    std::string arch;
    std::vector<std::string> sets;
    std::string preset;   // a set of templates/<id>/preselected.xml holding one config for the arch
    std::vector<std::string> flags;  // --flag items: "maxrregcount=64", "fast_math", "a=1,b=2"
};

// A variant and the problem sizes it runs at (--size name=value items).
struct SizedVariantArgs {
    VariantArgs variant;
    std::vector<std::string> sizes;
};

// The config a command starts from: the template's defaults, or the preset's config for archName
// (a preselected set of that name covering the arch and holding exactly one config), with the
// --set values and --flag compiler flags over it. Throws InputError naming the template's presets
// for the arch, or a flag that is unknown or out of range.
engine::Config variantConfig(const engine::Template& tmpl, const VariantArgs& args, const std::string& archName);
// The problem sizes a command runs at: the template's defaults, the preset's (a preselected set
// may name the problem it was tuned for), then the --size items. Throws InputError as
// variantConfig does, or on a size the template does not take.
engine::SizeMap variantSizes(const engine::Template& tmpl, const VariantArgs& args, const std::vector<std::string>& sizeItems,
                             const std::string& archName);
// "preset NAME was tuned at M=16, N=8192, K=8192; these sizes differ in N, K" when --preset names
// a set that carries its problem and `sizes` are not that problem; empty otherwise.
std::string presetSizesNote(const engine::Template& tmpl, const VariantArgs& args, const engine::SizeMap& sizes,
                            const std::string& archName);
// What variantConfig can check before the arch is known (`--arch native` asks the GPU): that the
// template has a preselected set of that name for some arch, and that every --set names a
// parameter with an allowed value. Throws InputError saying which.
void checkVariantArgs(const engine::Template& tmpl, const VariantArgs& args);

// Lists the templates; user templates (TemplateLibrary::isUser) are marked with their folders.
int listTemplates(const Context& ctx, bool json);

struct ResolvedVariant {
    std::shared_ptr<const engine::Template> tmpl;
    const engine::Arch* arch = nullptr;
    engine::Config config;
};
// The template, arch and config (variantConfig) a command's VariantArgs name. Throws InputError
// listing the templates for an unknown template, and for an unknown arch.
ResolvedVariant resolveVariant(const Context& ctx, const VariantArgs& args);
int listArches(const Context& ctx, bool json);
// kx presets TEMPLATE [--arch A] [--json]: the template's preselected sets (those for the arch),
// each with its arches, whether it is a preset (one config), the problem it was tuned for and its help.
int listPresets(const Context& ctx, const std::string& templateId, const std::string& archName, bool json);

struct GenerateArgs {
    VariantArgs variant;
    std::string lang;  // "cuda", "hip" or empty: the arch's (HIP on AMD arches, CUDA on NVIDIA ones)
    std::string outputFile;
    std::string outputDir;
};
int generate(const Context& ctx, const GenerateArgs& args);

// kx generate TEMPLATE --output-dir DIR --gpu-target sm_80,sm_90 [--datatype f16,bf16]
// [--layout rcr,rrr] [--variants P=v1,v2]... [--preselected NAME] [-j N] [--cubin]: every config of
// the space for every target written as DIR/<arch>/<name>.cu (and .cubin), configs that break a
// constraint on a target listed with the reason, and DIR/index.json describing all of it.
struct GenerateBatchArgs {
    std::vector<std::string> gpuTargets;  // "sm_80,sm_90" items
    std::vector<std::string> datatypes;   // values of the template's dtype parameter
    std::vector<std::string> layouts;     // values of its layout parameter
    std::vector<std::string> variants;    // more parameters to vary, as `kx sweep --vary`
    std::string preselected;
    int jobs = 0;
    bool cubin = false;
    bool requested() const { return !gpuTargets.empty() || !datatypes.empty() || !layouts.empty() || !variants.empty() || !preselected.empty() || cubin; }
};
int generateBatch(const Context& ctx, const GenerateArgs& args, const GenerateBatchArgs& batch);

struct CompileArgs {
    VariantArgs variant;
    std::string emit = "resources";  // ptx, cubin, sass, resources; AMD: isa, hsaco, resources
    std::string lang;                // "cuda", "hip" or empty: the arch's (HIP on AMD arches)
    std::string outputFile;
    bool json = false;
};
int compile(const Context& ctx, const CompileArgs& args);
// The AMD half of compile (cli/amd_compile_command.cpp): HIP through clang to ISA, code object
// or resources with the occupancy, for a resolved template, AMD arch and config.
int compileAmd(const Context& ctx, const CompileArgs& args, const engine::Template& tmpl, const engine::Arch& arch,
               const engine::Config& config);
// kx mix for AMD arches: the static mix of the HIP compile's ISA (MFMA, VALU, SALU, LDS, memory, waits).
int amdInstructionMix(const CompileArgs& args, const engine::Template& tmpl, const engine::Arch& arch, const engine::Config& config);

// Static instruction mix of a config (PTX; SASS too when nvdisasm/cuobjdump is found). Uses variant, outputFile, json.
int instructionMix(const Context& ctx, const CompileArgs& args);

struct OccupancyArgs {
    std::string arch;
    int regs = -1;
    int block = 0;
    long long staticSmem = 0;
    long long dynSmem = 0;
    int carveout = -1;
    int sgprs = 0;        // AMD only: SGPRs per wave as the compiler reports them; 0 = not given
    std::string csvFile;  // "-" reads stdin
    bool json = false;    // one launch's result as JSON (not with csvFile)
};
int occupancy(const Context& ctx, const OccupancyArgs& args);

struct RunArgs : SizedVariantArgs {  // arch "native": the GPU's own
    int device = 0;
    int reps = 20;
    int warmup = 5;
    int rounds = 5;
    double timeout = 10;
    unsigned long long seed = 1;
    bool noBaseline = false;
    bool json = false;
    std::string session;          // record the run in this session file (created when absent)
    bool pcSampling = false;      // sample program counters (CUPTI) in extra runs after the timed ones
    bool counters = false;        // count DRAM, L2 and L1 bytes with the hardware counters (CUPTI)
    int pcRuns = 10;
    int pcPeriod = 0;             // log2 cycles between samples; 0: CUPTI's default
    int pcTop = 12;               // instructions listed
};
int run(const Context& ctx, const RunArgs& args);

struct CalibrateArgs {
    int device = 0;
    int gemmSize = 8192;
    int reps = 20;
    bool json = false;
};
int calibrate(const Context& ctx, const CalibrateArgs& args);

// kx session new|list|show|export|note|merge FILE. Every one throws InputError (exit 2) on a file that is
// missing, not a session, damaged or from a newer version; `new` on an existing file.
struct SessionArgs {
    std::string file;
    std::string variant;          // show: only this variant; note: the variant
    std::string notes;            // note: the text
    std::string format = "json";  // export: "json" (everything but artifact bytes) or "csv" (one row per run)
    std::string output;           // export: file to write (default stdout)
    std::vector<std::string> inputs;  // merge: the sessions merged into `file`
};

// kx sweep: see README.md "Sweeps". Exit 0 when the sweep finished (pruned and failed configs
// are results, not errors), 130 when Ctrl-C stopped it (what finished is kept), 1 when the
// session could not be written, 2 on bad input.
struct SweepArgs {
    VariantArgs variant;                 // --set, --flag: the base config; arch "native": the first GPU's
    std::vector<std::string> varies;     // "BM=64,128", "BM", "STAGES=2..4", "maxrregcount=0,64"
    std::string preselected;             // a set of templates/<id>/preselected.xml
    std::string configsFile;             // a config list (engine/sweep/slurm.hpp's format)
    unsigned long long sample = 0;       // draw this many configs of the space (0: all)
    unsigned long long seed = 1;         // of the draw
    bool validOnly = false;              // leave out (and count) configs that break constraints, before the draw
    std::vector<std::string> sizes;
    std::string session;
    std::string name;                    // the sweep's name in the session
    std::string sweepId;                 // the sweep's uid (shards of one sweep share it)
    std::string csv;                     // write CSV here ("-": stdout)
    bool json = false;
    int jobs = 0;                        // compile threads (0: one per hardware thread)
    std::string devices = "0";           // "all" or "0,1"
    bool compileOnly = false;
    int reps = 20;
    int warmup = 5;
    double timeout = 10;
    bool noBaseline = false;
    long long maxSpillBytes = 0;         // prune configs that spill more
    bool allowSpills = false;            // never prune for spills
    int maxRegs = 0;                     // prune configs over this many registers per thread
    std::string rooflineDevice;          // assets/devices id of the predicted roofline
    int autotune = 0;                    // re-time the top K
    int autotuneRounds = 5;
    int autotuneReps = 100;
    std::string presetName;              // the winner's preset name
    std::string emitSlurm;               // write a Slurm job array here instead of sweeping
    int shards = 4;
    std::string slurmTime = "01:00:00";
};
// Writes the sweep's configs as a Slurm job array in args.emitSlurm (engine/sweep/slurm.hpp), each
// shard sweeping at `sizes`, and prints how to submit and merge it.
int emitSlurm(const SweepArgs& args, const engine::SizeMap& sizes, const std::string& uid, const std::string& name,
              const std::vector<engine::Config>& configs);
int sweep(const Context& ctx, const SweepArgs& args);

// A sweep's progress on stderr: a bar redrawn on a terminal, a plain line per tenth otherwise.
class SweepProgress {
public:
    SweepProgress(bool quiet, std::string what);
    void update(const engine::SweepCounts& counts, bool final = false);

private:
    bool m_tty;
    bool m_quiet;
    std::string m_what;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_lastLine{};
    int m_lastTenth = -1;
};

// kx tutorial list | show NAME | check NAME --session FILE (tutorials/ under dataRoot). check
// returns 0 when every checkpoint passes, 1 otherwise (a checkpoint needing a GPU run that the
// session lacks does not pass); an unknown tutorial or a bad session throws InputError.
struct TutorialArgs {
    std::filesystem::path dataRoot;
    std::string name;
    std::string session;          // list: show progress from it; check: the session judged
};
int tutorialList(const TutorialArgs& args);
int tutorialShow(const Context& ctx, const TutorialArgs& args);
int tutorialCheck(const Context& ctx, const TutorialArgs& args);

// kx tiles: the tile layout of a config (block tiles in raster order, waves on a device, warp
// tiles, fragments, K loop, shared-memory stages; README.md "Tile visualizer"). Registers for the
// occupancy: --regs, else ptxas's count from an NVRTC compile, else the manifest's estimate.
struct TilesArgs : SizedVariantArgs {
    std::string device;      // assets/devices id; default: the arch's (the H100 SXM for sm_90)
    int regs = -1;           // registers per thread; -1: compile (or estimate with noCompile)
    bool noCompile = false;
    bool json = false;
};
int tiles(const Context& ctx, const TilesArgs& args);

// kx roofline: the roofline the app draws for a variant (analysis/roofline_scene.hpp): the device
// (the arch's unless named), the ceilings the kernel can use, the predicted point from the
// template's traffic model, as text, CSV (rooflineCsv) or JSON.
struct RooflineArgs : SizedVariantArgs {
    std::string device;      // assets/devices id or name; default: a device of the arch's family
    bool allRoofs = false;   // also the roofs the kernel cannot use
    bool noMeasured = false; // leave out kx calibrate's measured ceilings
    bool csv = false;
    bool json = false;
};
int roofline(const Context& ctx, const RooflineArgs& args);

// kx share TEMPLATE --arch A [--set ...] [--flag ...] [--size ...]: prints the variant's share
// string (templates/share_string.hpp); a user template's files go with it.
struct ShareArgs : SizedVariantArgs {};
int share(const Context& ctx, const ShareArgs& args);

// kx open STRING: decodes a share string (exit 2 with one line when it is not a valid one), writes
// a user template it carries to the user's templates folder (util/data_paths.hpp), and prints the
// variant's name, config, flags and sizes and the kx commands that reproduce it; with --emit
// (source, ptx, cubin, sass, map, resources) it also generates or compiles the variant as
// generate and compile do.
struct OpenArgs {
    std::string text;
    std::string emit;        // empty: only describe it
    std::string outputFile;
    bool json = false;
};
int openShareString(Context& ctx, const OpenArgs& args);

// For `kx run --session FILE`, before the run: throws InputError when FILE exists but is not a
// writable session, or is absent and cannot be created, so no GPU time is spent for nothing.
void checkSessionTarget(const std::string& file);
// Records a finished run (report.ok) in FILE, creating it when absent, in one transaction: the
// variant (reused when one with this name has the same config and arch), its source, PTX and
// resource report, and the run with the device's calibration. Returns "NAME (run ID)".
std::string recordRun(const std::string& file, const std::string& variantName, const std::string& arch, const engine::Config& config,
                      const std::string& source, const engine::CompileResult& compiled, const engine::RunReport& report);

}  // namespace kx::cli

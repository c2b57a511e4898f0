// The `kx` subcommands. Each returns the process exit code; bad input throws InputError (exit 2).
#pragma once

#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "compile/compiler.hpp"
#include "run/variant_run.hpp"
#include "templates/template_library.hpp"

#include <map>
#include <string>
#include <vector>

namespace kx::cli {

struct Context {
    engine::ArchDatabase arches;
    engine::TemplateLibrary templates;
};

// "--set" values: each item "K=V" or "K1=V1,K2=V2".
std::map<std::string, std::string> parseAssignments(const std::vector<std::string>& items, const char* what);

// Throws InputError listing every violated constraint ("NAME is not valid for ARCH (N constraints
// violated):" and one "  - reason" line each) unless the variant is valid.
void requireValid(const engine::PreparedVariant& prepared, const engine::Arch& arch);

struct VariantArgs {
    std::string templateId;
    std::string arch;
    std::vector<std::string> sets;
};

int listTemplates(const Context& ctx, bool json);
int listArches(const Context& ctx, bool json);

struct GenerateArgs {
    VariantArgs variant;
    std::string lang = "cuda";
    std::string outputFile;
    std::string outputDir;
};
int generate(const Context& ctx, const GenerateArgs& args);

struct CompileArgs {
    VariantArgs variant;
    std::string emit = "resources";  // ptx, cubin, sass, resources
    std::string outputFile;
    bool json = false;
};
int compile(const Context& ctx, const CompileArgs& args);

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
};
int occupancy(const Context& ctx, const OccupancyArgs& args);

struct RunArgs {
    VariantArgs variant;          // arch "native": the GPU's own
    std::vector<std::string> sizes;
    int device = 0;
    int reps = 20;
    int warmup = 5;
    double timeout = 10;
    unsigned long long seed = 1;
    bool noBaseline = false;
    bool json = false;
    std::string session;          // record the run in this session file (created when absent)
};
int run(const Context& ctx, const RunArgs& args);

struct CalibrateArgs {
    int device = 0;
    int gemmSize = 8192;
    int reps = 20;
    bool json = false;
};
int calibrate(const Context& ctx, const CalibrateArgs& args);

// kx session new|list|show|export FILE. Every one throws InputError (exit 2) on a file that is
// missing, not a session, damaged or from a newer version; `new` on an existing file.
struct SessionArgs {
    std::string file;
    std::string variant;          // show: only this variant; note: the variant
    std::string notes;            // note: the text
    std::string format = "json";  // export: "json" (everything but artifact bytes) or "csv" (one row per run)
    std::string output;           // export: file to write (default stdout)
};
int sessionNew(const SessionArgs& args);
int sessionList(const SessionArgs& args);
int sessionShow(const SessionArgs& args);
int sessionExport(const SessionArgs& args);
int sessionNote(const SessionArgs& args);

// For `kx run --session FILE`, before the run: throws InputError when FILE exists but is not a
// writable session, or is absent and cannot be created, so no GPU time is spent for nothing.
void checkSessionTarget(const std::string& file);
// Records a finished run (report.ok) in FILE, creating it when absent, in one transaction: the
// variant (reused when one with this name has the same config and arch), its source, PTX and
// resource report, and the run with the device's calibration. Returns "NAME (run ID)".
std::string recordRun(const std::string& file, const std::string& variantName, const std::string& arch, const engine::Config& config,
                      const std::string& source, const engine::CompileResult& compiled, const engine::RunReport& report);

}  // namespace kx::cli

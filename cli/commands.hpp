// The `kx` subcommands. Each returns the process exit code; bad input throws InputError (exit 2).
#pragma once

#include "arch/arch_database.hpp"
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
};
int run(const Context& ctx, const RunArgs& args);

struct CalibrateArgs {
    int device = 0;
    int gemmSize = 8192;
    int reps = 20;
    bool json = false;
};
int calibrate(const Context& ctx, const CalibrateArgs& args);

}  // namespace kx::cli

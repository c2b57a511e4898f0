// kx sweep --emit-slurm: the sweep's configs as a Slurm job array, each shard a `kx sweep` of its
// config list into its own session, merged afterwards with `kx session merge`.
#include "commands.hpp"

#include "sweep/slurm.hpp"

#include <fmt/core.h>

#include <filesystem>

namespace kx::cli {
using namespace kx::engine;
namespace fs = std::filesystem;

namespace {

// The arguments a shard's `kx sweep` needs besides its config list and session.
// The sizes go in full: a preset's or a preselected set's problem is not known to the shards.
std::vector<std::string> shardArgs(const SweepArgs& args, const SizeMap& sizes, const std::string& arch, const std::string& uid,
                                   const std::string& name) {
    std::vector<std::string> a = {args.variant.templateId, "--arch", arch, "--sweep-id", uid, "--name", name};
    std::string sizeItems;
    for (const auto& [k, v] : sizes) sizeItems += (sizeItems.empty() ? "" : ",") + k + "=" + std::to_string(v);
    if (!sizeItems.empty()) a.insert(a.end(), {"--size", sizeItems});
    a.insert(a.end(), {"--reps", std::to_string(args.reps), "--warmup", std::to_string(args.warmup), "--timeout",
                       fmt::format("{}", args.timeout)});
    if (args.noBaseline) a.push_back("--no-baseline");
    if (args.allowSpills) a.push_back("--allow-spills");
    else a.insert(a.end(), {"--max-spill-bytes", std::to_string(args.maxSpillBytes)});
    if (args.maxRegs > 0) a.insert(a.end(), {"--max-regs", std::to_string(args.maxRegs)});
    if (args.jobs > 0) a.insert(a.end(), {"-j", std::to_string(args.jobs)});
    if (!args.rooflineDevice.empty()) a.insert(a.end(), {"--roofline-device", args.rooflineDevice});
    if (args.compileOnly) a.push_back("--compile-only");
    return a;
}

std::string selfPath() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("kx") : self.string();
}

}  // namespace

int emitSlurm(const SweepArgs& args, const SizeMap& sizes, const std::string& uid, const std::string& name, const std::vector<Config>& configs) {
    SlurmJob job;
    job.dir = args.emitSlurm;
    job.shards = args.shards;
    job.kxPath = selfPath();
    job.sweepArgs = shardArgs(args, sizes, args.variant.arch, uid, name);
    job.timeLimit = args.slurmTime;
    const auto files = writeSlurmJob(job, configs);
    fmt::print("wrote {} ({} configs in {} shard{})\n", files.front().string(), configs.size(), files.size() - 1,
               files.size() == 2 ? "" : "s");
    for (std::size_t i = 1; i < files.size(); ++i) fmt::print("  {}\n", files[i].string());
    fmt::print("submit: sbatch {}\nthen:   kx session merge sweep.kxs {}/shard_*.kxs\n", files.front().string(),
               (fs::path(args.emitSlurm) / "sessions").string());
    return 0;
}

}  // namespace kx::cli

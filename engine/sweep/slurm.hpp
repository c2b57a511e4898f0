// A sweep split for a cluster: shard lists of configs and a Slurm job-array script whose task
// i runs `kx sweep --configs shards/shard_<i>.txt` into its own session file; the sessions are
// then merged with `kx session merge`.
//
// Shard list format (also what `kx sweep --configs FILE` reads): one config per line as
// KEY=VALUE pairs separated by commas, then optionally '|' and compiler flags as --flag takes
// them ("BM=128,BN=64|maxrregcount=64,fast_math=true"); blank lines and lines starting with '#'
// are ignored.
#pragma once

#include "templates/template.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kx::engine {

// "BK=32,BM=128,..." : a config's values in the shard list format, with "|" and its flags
// (CompileFlags::canonical()) unless they are the defaults.
std::string configLine(const Config& config);

// The configs of a shard list, each laid over `base` (so a list may give only some parameters,
// and the flags it names replace those of the base's flags). Throws InputError "file:line:
// reason" on a malformed line, an unknown parameter or flag, or a value that is not allowed.
std::vector<Config> readConfigList(const Template& tmpl, const Config& base, const std::filesystem::path& file);

struct SlurmJob {
    std::filesystem::path dir;        // written: sweep.sbatch, shards/shard_NNN.txt, sessions/
    int shards = 1;                   // array tasks; configs are dealt round-robin
    std::string kxPath;               // the kx the tasks run (the script's KX variable overrides it)
    std::vector<std::string> sweepArgs;  // `kx sweep` arguments common to every task (template, --arch, --size, ...)
    std::string jobName = "kx-sweep";
    std::string gpusPerTask = "1";    // #SBATCH --gres=gpu:N
    std::string timeLimit = "01:00:00";
};

// Writes the job and returns the files written (the script first). Throws InputError when the
// folder cannot be written or shards < 1. Shards left empty (more shards than configs) are
// not written: the array is as long as the shards that have configs.
std::vector<std::filesystem::path> writeSlurmJob(const SlurmJob& job, const std::vector<Config>& configs);

// Quotes text for a POSIX shell when it needs quoting.
std::string shellQuoted(const std::string& text);

}  // namespace kx::engine

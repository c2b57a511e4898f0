#include "sweep/slurm.hpp"

#include "util/error.hpp"
#include "util/output_file.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace kx::engine {

namespace fs = std::filesystem;

namespace {

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r"), last = text.find_last_not_of(" \t\r");
    return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

}  // namespace

std::string configLine(const Config& config) {
    std::string line;
    for (const auto& [k, v] : config.values) line += (line.empty() ? "" : ",") + k + "=" + v;
    if (!config.flags.isDefault()) line += "|" + config.flags.canonical();
    return line;
}

std::vector<Config> readConfigList(const Template& tmpl, const Config& base, const fs::path& file) {
    std::ifstream in(file);
    if (!in) throw InputError("cannot read the config list " + file.string());
    std::vector<Config> configs;
    std::string raw;
    for (int line = 1; std::getline(in, raw); ++line) {
        const std::string text = trimmed(raw);
        if (text.empty() || text[0] == '#') continue;
        const auto bar = text.find('|');
        std::map<std::string, std::string> values;
        std::stringstream items(text.substr(0, bar));
        std::string item;
        while (std::getline(items, item, ',')) {
            item = trimmed(item);
            const auto eq = item.find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
                throw InputError(fmt::format("{}:{}: expected KEY=VALUE pairs separated by commas, got '{}'", file.string(), line, item));
            values[item.substr(0, eq)] = item.substr(eq + 1);
        }
        try {
            Config config = tmpl.withValues(base, values);
            if (bar != std::string::npos) {
                std::string flags = text.substr(bar + 1);
                flags.erase(std::remove_if(flags.begin(), flags.end(), [](char c) { return c == ' ' || c == '\t'; }), flags.end());
                config.flags = withFlags(config.flags, flags);
            }
            configs.push_back(std::move(config));
        } catch (const InputError& e) {
            throw InputError(fmt::format("{}:{}: {}", file.string(), line, e.what()));
        }
    }
    return configs;
}

std::string shellQuoted(const std::string& text) {
    if (!text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/=:+@%") == std::string::npos)
        return text;
    std::string quoted = "'";
    for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::vector<fs::path> writeSlurmJob(const SlurmJob& job, const std::vector<Config>& configs) {
    if (job.shards < 1) throw InputError("a Slurm job needs at least one shard");
    std::error_code ec;
    fs::create_directories(job.dir / "shards", ec);
    fs::create_directories(job.dir / "sessions", ec);
    if (!fs::is_directory(job.dir / "shards") || !fs::is_directory(job.dir / "sessions"))
        throw InputError("cannot create " + (job.dir / "shards").string() + ": " + ec.message());

    std::vector<std::string> lists(static_cast<std::size_t>(job.shards));
    for (std::size_t i = 0; i < configs.size(); ++i) lists[i % lists.size()] += configLine(configs[i]) + "\n";
    int used = 0;
    std::vector<fs::path> written;
    for (const std::string& list : lists) {
        if (list.empty()) continue;
        const fs::path file = job.dir / "shards" / fmt::format("shard_{:03}.txt", used++);
        writeOutputFile(file, list);
        written.push_back(file);
    }
    if (used == 0) throw InputError("the sweep has no configs to shard");

    std::string args;
    for (const std::string& a : job.sweepArgs) args += " " + shellQuoted(a);
    const fs::path dir = fs::absolute(job.dir);
    std::string script = fmt::format(
        "#!/bin/bash\n"
        "# {used} shards of a kx sweep ({configs} configs). Submit with: sbatch {script}\n"
        "# Each array task sweeps its shard list into its own session file; afterwards merge them:\n"
        "#   kx session merge sweep.kxs {dir}/sessions/shard_*.kxs\n"
        "#SBATCH --job-name={name}\n"
        "#SBATCH --array=0-{last}\n"
        "#SBATCH --gres=gpu:{gpus}\n"
        "#SBATCH --time={time}\n"
        "#SBATCH --output={dir}/sessions/shard_%a.log\n"
        "set -euo pipefail\n"
        "KX=${{KX:-{kx}}}\n"
        "DIR={dirq}\n"
        "printf -v SHARD '%03d' \"${{SLURM_ARRAY_TASK_ID:?run this script with sbatch, or set SLURM_ARRAY_TASK_ID}}\"\n"
        "exec \"$KX\" sweep{args} --devices all --configs \"$DIR/shards/shard_$SHARD.txt\" --session \"$DIR/sessions/shard_$SHARD.kxs\"\n",
        fmt::arg("used", used), fmt::arg("configs", configs.size()), fmt::arg("script", (dir / "sweep.sbatch").string()),
        fmt::arg("dir", dir.string()), fmt::arg("name", job.jobName), fmt::arg("last", used - 1), fmt::arg("gpus", job.gpusPerTask),
        fmt::arg("time", job.timeLimit), fmt::arg("kx", shellQuoted(job.kxPath)), fmt::arg("dirq", shellQuoted(dir.string())),
        fmt::arg("args", args));
    const fs::path scriptFile = job.dir / "sweep.sbatch";
    writeOutputFile(scriptFile, script);
    ::chmod(scriptFile.c_str(), 0755);
    written.insert(written.begin(), scriptFile);
    return written;
}

}  // namespace kx::engine

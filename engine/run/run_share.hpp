// What the runs of one sweep can share: they differ only in the kernel's configuration, so the
// inputs (same template arguments, sizes and seed) and the baselines' results (cuBLAS or CUB
// doing the same problem on the same device) are the same for every config. Generating tens of
// millions of random values, writing them for the runner, and timing the baseline again for every
// config would cost more than the kernel being measured. Thread-safe; one per device.
#pragma once

#include "run/reference_registry.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace kx::engine {

class RunShare {
public:
    RunShare();
    ~RunShare();
    RunShare(const RunShare&) = delete;
    RunShare& operator=(const RunShare&) = delete;

    // An input array as generated and the file the runner reads it from.
    struct Input {
        std::shared_ptr<const HostArray> host;
        std::filesystem::path file;
    };
    // key: everything that decides the values (argument, dtype, count, fill rule, seed stream).
    std::optional<Input> input(const std::string& key) const;
    // Keeps `host` and writes its encoded `bytes` to a file of its own; returns the entry.
    Input putInput(const std::string& key, HostArray host, const std::string& bytes);

    // A baseline's reply entry from the runner (its timing) and its output, when it had one.
    struct Baseline {
        nlohmann::json entry;
        std::shared_ptr<const HostArray> output;
    };
    std::optional<Baseline> baseline(const std::string& key) const;
    void putBaseline(const std::string& key, Baseline baseline);

    int inputsGenerated() const;   // for tests and progress: how much was not shared
    int baselinesTimed() const;

private:
    mutable std::mutex m_mutex;
    std::filesystem::path m_dir;
    std::map<std::string, Input> m_inputs;
    std::map<std::string, Baseline> m_baselines;
};

}  // namespace kx::engine

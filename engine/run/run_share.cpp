#include "run/run_share.hpp"

#include "util/error.hpp"

#include <atomic>
#include <fstream>
#include <unistd.h>

namespace kx::engine {
namespace fs = std::filesystem;

RunShare::RunShare() {
    static std::atomic<int> counter{0};
    std::error_code ec;
    const fs::path base = fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
    m_dir = base / ("kx-share-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(m_dir);
}

RunShare::~RunShare() {
    std::error_code ec;
    fs::remove_all(m_dir, ec);
}

std::optional<RunShare::Input> RunShare::input(const std::string& key) const {
    std::lock_guard lock(m_mutex);
    const auto it = m_inputs.find(key);
    if (it == m_inputs.end()) return std::nullopt;
    return it->second;
}

RunShare::Input RunShare::putInput(const std::string& key, HostArray host, const std::string& bytes) {
    std::lock_guard lock(m_mutex);
    if (const auto it = m_inputs.find(key); it != m_inputs.end()) return it->second;
    Input entry{std::make_shared<const HostArray>(std::move(host)), m_dir / ("input-" + std::to_string(m_inputs.size()) + ".bin")};
    std::ofstream out(entry.file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw InputError("cannot write " + entry.file.string());
    m_inputs.emplace(key, entry);
    return entry;
}

std::optional<RunShare::Baseline> RunShare::baseline(const std::string& key) const {
    std::lock_guard lock(m_mutex);
    const auto it = m_baselines.find(key);
    if (it == m_baselines.end()) return std::nullopt;
    return it->second;
}

void RunShare::putBaseline(const std::string& key, Baseline baseline) {
    std::lock_guard lock(m_mutex);
    m_baselines.emplace(key, std::move(baseline));
}

int RunShare::inputsGenerated() const {
    std::lock_guard lock(m_mutex);
    return static_cast<int>(m_inputs.size());
}

int RunShare::baselinesTimed() const {
    std::lock_guard lock(m_mutex);
    return static_cast<int>(m_baselines.size());
}

}  // namespace kx::engine

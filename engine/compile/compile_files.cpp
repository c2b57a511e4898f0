#include "compile/compile_files.hpp"

#include <fstream>
#include <iterator>
#include <mutex>
#include <random>

namespace kx::engine::compile_files {

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool writeFile(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
}

std::string uniqueSuffix() {
    static std::mt19937_64 rng{std::random_device{}()};
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    return std::to_string(rng());
}

std::optional<nlohmann::json> readCacheMeta(const std::filesystem::path& cacheDir, const std::string& key) {
    if (cacheDir.empty()) return std::nullopt;
    const std::filesystem::path dir = cacheDir / key;
    std::error_code ec;
    if (!std::filesystem::exists(dir / "meta.json", ec)) return std::nullopt;
    try {
        return nlohmann::json::parse(readFile(dir / "meta.json"));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

void writeCacheEntry(const std::filesystem::path& dir, std::initializer_list<CacheFile> files, const nlohmann::json& meta,
                     bool replaceExisting) {
    std::filesystem::path tmpDir = dir;
    tmpDir += ".tmp" + uniqueSuffix();
    std::error_code ec;
    std::filesystem::create_directories(tmpDir, ec);
    if (ec) return;
    for (const CacheFile& f : files) writeFile(tmpDir / f.name, f.bytes);
    writeFile(tmpDir / "meta.json", meta.dump());
    if (replaceExisting) std::filesystem::remove_all(dir, ec);
    std::filesystem::rename(tmpDir, dir, ec);
    if (ec) std::filesystem::remove_all(tmpDir, ec);  // another thread stored the same key first
}

}  // namespace kx::engine::compile_files

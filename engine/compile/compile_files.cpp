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

}  // namespace kx::engine::compile_files

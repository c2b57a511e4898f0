// A mutated arch file (first byte even) or device file (odd), loaded beside the shipped sm_90.
#include "fuzz_support.hpp"

#include "arch/arch_database.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace fs = std::filesystem;
    if (size == 0) return 0;
    const fs::path root = kx::fuzz::scratchDir();
    const fs::path archDir = root / "arch", deviceDir = root / "devices";
    fs::create_directories(archDir);
    fs::create_directories(deviceDir);
    const bool isDevice = data[0] & 1;
    fs::remove(archDir / "sm_90.xml");
    fs::remove(deviceDir / "fuzzed.xml");
    kx::fuzz::writeFile(isDevice ? deviceDir / "fuzzed.xml" : archDir / "sm_90.xml", data + 1, size - 1);
    const kx::engine::ArchDatabase db = kx::engine::ArchDatabase::load(archDir, deviceDir);
    for (const auto& a : db.arches()) a.expressionVariables();
    for (const auto& e : db.errors()) e.toString();
    return 0;
}

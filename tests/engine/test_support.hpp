// Shared fixtures for the engine tests.
#pragma once

#include "arch/arch.hpp"
#include "arch/arch_database.hpp"
#include "templates/template_library.hpp"

#include <unistd.h>

#include <filesystem>
#include <string>

namespace kx::test {

inline std::filesystem::path sourceDir() { return KX_TEST_SOURCE_DIR; }

// The shipped arch database and template library, loaded once per test binary.
inline const engine::ArchDatabase& shippedArches() {
    static const engine::ArchDatabase db = engine::ArchDatabase::loadFromDataRoot(sourceDir());
    return db;
}
inline const engine::TemplateLibrary& shippedTemplates() {
    static const engine::TemplateLibrary lib = engine::TemplateLibrary::load(sourceDir() / "templates");
    return lib;
}

// An empty folder private to this process and name, removed with everything in it at the end.
struct ScratchFolder {
    std::filesystem::path path;
    explicit ScratchFolder(const std::string& name)
        : path(std::filesystem::temp_directory_path() / ("kx_test_" + std::to_string(::getpid()) + "_" + name)) {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~ScratchFolder() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
};

// An sm_90-like arch built in code, so template tests do not depend on assets/.
inline engine::Arch fakeArch(int maxThreadsPerBlock = 1024) {
    engine::Arch a;
    a.name = "sm_test";
    a.family = "Test";
    a.warpSize = 32;
    a.nv.computeMajor = 9;
    a.nv.maxThreadsPerBlock = maxThreadsPerBlock;
    a.nv.maxThreadsPerSm = 2048;
    a.nv.maxBlocksPerSm = 32;
    a.nv.regsPerSm = 65536;
    a.nv.regsPerBlock = 65536;
    a.nv.maxRegsPerThread = 255;
    a.nv.smemPerBlock = 48 * 1024;
    a.nv.smemPerBlockOptin = 227 * 1024;
    a.nv.smemPerSm = 228 * 1024;
    return a;
}

}  // namespace kx::test

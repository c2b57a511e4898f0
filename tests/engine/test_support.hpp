// Shared fixtures for the engine tests.
#pragma once

#include "arch/arch.hpp"

#include <filesystem>

namespace kx::test {

inline std::filesystem::path sourceDir() { return KX_TEST_SOURCE_DIR; }

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

// kx occupancy on AMD arches, as a user runs it: figures worked by hand in
// tests/engine/analysis/test_amd_occupancy.cpp, exit codes and messages.
#include "kx_process.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace kx::test;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("kx occupancy on gfx942: VGPRs limit waves per SIMD", "[cli][occupancy][amd]") {
    const Outcome o = runKx("occupancy --arch gfx942 --regs 128 --block 256");
    INFO(o.out << o.err);
    REQUIRE(o.exitCode == 0);
    CHECK(has(o.out, "workgroups per CU  4"));
    CHECK(has(o.out, "waves per SIMD     4 of 8 (16 waves per CU)"));
    CHECK(has(o.out, "occupancy          50.0%"));
    CHECK(has(o.out, "limited by         VGPRs"));
    CHECK(o.err.empty());
}

TEST_CASE("kx occupancy on gfx942: LDS from --static-smem and --dyn-smem", "[cli][occupancy][amd]") {
    // 16 KiB + 16 KiB = 32 KiB per 256-thread workgroup: 2 workgroups, 8 waves per CU, 2 per SIMD.
    const Outcome o = runKx("occupancy --arch gfx942 --regs 32 --block 256 --static-smem 16384 --dyn-smem 16384");
    INFO(o.out << o.err);
    REQUIRE(o.exitCode == 0);
    CHECK(has(o.out, "workgroups per CU  2"));
    CHECK(has(o.out, "waves per SIMD     2 of 8"));
    CHECK(has(o.out, "occupancy          25.0%"));
    CHECK(has(o.out, "limited by         LDS"));
}

TEST_CASE("kx occupancy on gfx90a: full occupancy is limited by wave slots", "[cli][occupancy][amd]") {
    const Outcome o = runKx("occupancy --arch gfx90a --regs 64 --block 256");
    INFO(o.out << o.err);
    REQUIRE(o.exitCode == 0);
    CHECK(has(o.out, "occupancy          100.0%"));
    CHECK(has(o.out, "limited by         wave slots"));
}

// Needs `--sgprs` registered in cli/main.cpp.
TEST_CASE("kx occupancy on gfx942: --sgprs", "[cli][occupancy][amd]") {
    const Outcome o = runKx("occupancy --arch gfx942 --regs 32 --block 64 --sgprs 97");
    INFO(o.out << o.err);
    REQUIRE(o.exitCode == 0);
    CHECK(has(o.out, "waves per SIMD     7 of 8"));
    CHECK(has(o.out, "limited by         SGPRs"));
    const Outcome nv = runKx("occupancy --arch sm_90 --regs 32 --block 64 --sgprs 40");
    CHECK(nv.exitCode == 2);
    CHECK(has(nv.err, "AMD arches only"));
}

TEST_CASE("kx occupancy on AMD rejects impossible launches with exit 2 and a reason", "[cli][occupancy][amd]") {
    const Outcome wg = runKx("occupancy --arch gfx942 --regs 32 --block 2048");
    CHECK(wg.exitCode == 2);
    CHECK(has(wg.err, "workgroup size 2048"));
    const Outcome vg = runKx("occupancy --arch gfx942 --regs 600 --block 64");
    CHECK(vg.exitCode == 2);
    CHECK(has(vg.err, "600 VGPRs"));
    const Outcome lds = runKx("occupancy --arch gfx942 --regs 32 --block 256 --dyn-smem 70000");
    CHECK(lds.exitCode == 2);
    CHECK(has(lds.err, "70000 bytes of LDS"));
    const Outcome co = runKx("occupancy --arch gfx942 --regs 32 --block 256 --carveout 50");
    CHECK(co.exitCode == 2);
    CHECK(has(co.err, "carveout"));
    CHECK(co.out.empty());
}

TEST_CASE("kx occupancy --csv names an AMD row as NVIDIA-only", "[cli][occupancy][amd]") {
    const fs::path csv = scratchDir() / "amd.csv";
    std::ofstream(csv) << "arch,regs,static_smem,block,dyn_smem,carveout\n"
                          "sm_90,64,0,256,49152,-1\n"
                          "gfx942,64,0,256,0,-1\n";
    const Outcome o = runKx("occupancy --csv " + csv.string());
    CHECK(o.exitCode == 2);
    CHECK(has(o.err, "row 3"));
    CHECK(has(o.err, "gfx942"));
    CHECK(has(o.err, "NVIDIA occupancy only"));
    CHECK(o.out.empty());
}

// AMD occupancy cases worked by hand from the CDNA2/3 limits in assets/arch (512 VGPRs per SIMD
// lane in granules of 8, 800 SGPRs per SIMD in granules of 16, 64 KiB of LDS per CU in 512-byte
// blocks, 8 waves per SIMD, 4 SIMDs, 16 barrier slots) and the rules cited in amd_occupancy.cpp.
#include "../test_support.hpp"
#include "analysis/amd_occupancy.hpp"
#include "arch/arch_database.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace kx::engine;

namespace {
const Arch& arch(const char* name) {
    static ArchDatabase db = ArchDatabase::loadFromDataRoot(kx::test::sourceDir());
    const Arch* a = db.findArch(name);
    REQUIRE(a);
    return *a;
}
bool limitedBy(const AmdOccupancyResult& r, AmdOccupancyLimiter l) {
    return std::find(r.limiters.begin(), r.limiters.end(), l) != r.limiters.end();
}
AmdOccupancyInput input(int vgprs, int workgroup, long long lds = 0, int sgprs = 0, int agprs = 0) {
    AmdOccupancyInput in;
    in.vgprsPerThread = vgprs;
    in.agprsPerThread = agprs;
    in.sgprsPerWave = sgprs;
    in.workgroupSize = workgroup;
    in.ldsBytesPerWorkgroup = lds;
    return in;
}
}  // namespace

TEST_CASE("gfx942: VGPRs per thread -> waves per SIMD (LLVM getNumWavesPerEUWithNumVGPRs)", "[occupancy][amd]") {
    // 256-thread workgroups are 4 waves, one per SIMD, so waves per SIMD = workgroups per CU.
    const Arch& a = arch("gfx942");
    SECTION("128 VGPRs: 512 / 128 = 4 waves") {
        const AmdOccupancyResult r = amdOccupancy(a, input(128, 256));
        CHECK(r.vgprWavesPerSimd == 4);
        CHECK(r.workgroupsPerCu == 4);
        CHECK(r.wavesPerSimd == Approx(4.0));
        CHECK(r.occupancy == Approx(0.5));
        CHECK(r.limiters == std::vector{AmdOccupancyLimiter::Vgprs});
    }
    SECTION("96 VGPRs: 512 / 96 = 5 waves") {
        const AmdOccupancyResult r = amdOccupancy(a, input(96, 256));
        CHECK(r.vgprWavesPerSimd == 5);
        CHECK(r.wavesPerSimd == Approx(5.0));
        CHECK(r.limiters == std::vector{AmdOccupancyLimiter::Vgprs});
    }
    SECTION("64 VGPRs: 8 waves, the hardware maximum; wave slots bind, not VGPRs") {
        const AmdOccupancyResult r = amdOccupancy(a, input(64, 256));
        CHECK(r.vgprWavesPerSimd == 8);
        CHECK(r.workgroupsPerCu == 8);
        CHECK(r.occupancy == Approx(1.0));
        CHECK(r.limiters == std::vector{AmdOccupancyLimiter::Waves});
    }
    SECTION("65 VGPRs round up to 72: 512 / 72 = 7 waves") {
        const AmdOccupancyResult r = amdOccupancy(a, input(65, 256));
        CHECK(r.allocatedVgprs == 72);
        CHECK(r.vgprWavesPerSimd == 7);
        CHECK(r.wavesPerSimd == Approx(7.0));
        CHECK(r.occupancy == Approx(7.0 / 8.0));
        CHECK(limitedBy(r, AmdOccupancyLimiter::Vgprs));
    }
    SECTION("fewer VGPRs than a granule: the hardware maximum") {
        CHECK(amdOccupancy(a, input(0, 256)).vgprWavesPerSimd == 8);
        CHECK(amdOccupancy(a, input(7, 256)).vgprWavesPerSimd == 8);
    }
    SECTION("512 VGPRs on 64-thread workgroups: 1 wave per SIMD, 4 workgroups per CU") {
        const AmdOccupancyResult r = amdOccupancy(a, input(512, 64));
        CHECK(r.vgprWavesPerSimd == 1);
        CHECK(r.workgroupsPerCu == 4);
        CHECK(r.wavesPerSimd == Approx(1.0));
    }
}

TEST_CASE("gfx90a: AGPRs share the VGPR file after arch VGPRs aligned to 4", "[occupancy][amd]") {
    const Arch& a = arch("gfx90a");
    // alignTo(100, 4) + 28 = 128 -> 4 waves.
    const AmdOccupancyResult r = amdOccupancy(a, input(100, 256, 0, 0, 28));
    CHECK(r.allocatedVgprs == 128);
    CHECK(r.vgprWavesPerSimd == 4);
    // alignTo(101, 4) + 27 = 131 -> 136 allocated -> 512 / 136 = 3 waves; without the offset
    // alignment 128 would have given 4.
    const AmdOccupancyResult s = amdOccupancy(a, input(101, 256, 0, 0, 27));
    CHECK(s.allocatedVgprs == 136);
    CHECK(s.vgprWavesPerSimd == 3);
    CHECK(s.workgroupsPerCu == 3);
    CHECK(limitedBy(s, AmdOccupancyLimiter::Vgprs));
}

TEST_CASE("gfx942: LDS per workgroup limits workgroups per CU", "[occupancy][amd]") {
    const Arch& a = arch("gfx942");
    SECTION("256 threads with 32 KiB: 2 workgroups -> 8 waves per CU -> 2 per SIMD") {
        const AmdOccupancyResult r = amdOccupancy(a, input(32, 256, 32 * 1024));
        CHECK(r.workgroupLimitLds == 2);
        CHECK(r.workgroupsPerCu == 2);
        CHECK(r.wavesPerCu == 8);
        CHECK(r.wavesPerSimd == Approx(2.0));
        CHECK(r.occupancy == Approx(0.25));
        CHECK(r.limiters == std::vector{AmdOccupancyLimiter::Lds});
    }
    SECTION("LDS is allocated in 512-byte blocks: 13000 bytes take 13312 -> 4 workgroups, not 5") {
        const AmdOccupancyResult r = amdOccupancy(a, input(32, 256, 13000));
        CHECK(r.allocatedLds == 13312);
        CHECK(r.workgroupsPerCu == 4);
        CHECK(r.wavesPerSimd == Approx(4.0));
        CHECK(limitedBy(r, AmdOccupancyLimiter::Lds));
    }
    SECTION("no LDS: no LDS limit") {
        CHECK(amdOccupancy(a, input(32, 256)).workgroupLimitLds == kAmdNoLimit);
    }
    SECTION("the whole 64 KiB: one workgroup") {
        CHECK(amdOccupancy(a, input(32, 1024, 64 * 1024)).workgroupsPerCu == 1);
    }
}

TEST_CASE("gfx942: SGPRs, 800 per SIMD in granules of 16", "[occupancy][amd]") {
    const Arch& a = arch("gfx942");
    // 96 SGPRs: 800 / 96 = 8 waves (LLVM getMaxNumSGPRs(8 waves) = alignDown(100, 16) = 96).
    const AmdOccupancyResult full = amdOccupancy(a, input(32, 64, 0, 96));
    CHECK(full.sgprWavesPerSimd == 8);
    CHECK_FALSE(limitedBy(full, AmdOccupancyLimiter::Sgprs));
    // 97 SGPRs allocate 112: 800 / 112 = 7 waves; 64-thread workgroups -> 28 per CU.
    const AmdOccupancyResult r = amdOccupancy(a, input(32, 64, 0, 97));
    CHECK(r.allocatedSgprs == 112);
    CHECK(r.sgprWavesPerSimd == 7);
    CHECK(r.workgroupsPerCu == 28);
    CHECK(r.wavesPerSimd == Approx(7.0));
    CHECK(r.limiters == std::vector{AmdOccupancyLimiter::Sgprs});
}

TEST_CASE("gfx942: wave slots and workgroup slots", "[occupancy][amd]") {
    const Arch& a = arch("gfx942");
    SECTION("64-thread workgroups: 32 per CU, no barrier slot used") {
        const AmdOccupancyResult r = amdOccupancy(a, input(32, 64));
        CHECK(r.wavesPerWorkgroup == 1);
        CHECK(r.workgroupsPerCu == 32);
        CHECK(r.workgroupLimitSlots == kAmdNoLimit);
        CHECK(r.limiters == std::vector{AmdOccupancyLimiter::Waves});
    }
    SECTION("128-thread workgroups: 32 / 2 = 16 = the CU's 16 barrier slots") {
        const AmdOccupancyResult r = amdOccupancy(a, input(32, 128));
        CHECK(r.workgroupsPerCu == 16);
        CHECK(r.occupancy == Approx(1.0));
        CHECK(limitedBy(r, AmdOccupancyLimiter::Waves));
        CHECK(limitedBy(r, AmdOccupancyLimiter::Workgroup));
    }
    SECTION("192-thread workgroups (3 waves): 32 / 3 = 10 workgroups, 30 waves, 7.5 per SIMD") {
        const AmdOccupancyResult r = amdOccupancy(a, input(32, 192));
        CHECK(r.workgroupsPerCu == 10);
        CHECK(r.wavesPerCu == 30);
        CHECK(r.wavesPerSimd == Approx(7.5));
        CHECK(r.limiters == std::vector{AmdOccupancyLimiter::Waves});
    }
    SECTION("whole workgroups: 960 threads (15 waves) with 96 VGPRs fit once in 20 slots") {
        const AmdOccupancyResult r = amdOccupancy(a, input(96, 960));
        CHECK(r.vgprWavesPerSimd == 5);
        CHECK(r.workgroupsPerCu == 1);
        CHECK(r.wavesPerSimd == Approx(3.75));
        CHECK(limitedBy(r, AmdOccupancyLimiter::Vgprs));
    }
}

TEST_CASE("AMD occupancy explains the limiter in a sentence", "[occupancy][amd]") {
    const Arch& a = arch("gfx942");
    const AmdOccupancyInput in = input(32, 256, 32 * 1024);
    const std::string s = explainAmdOccupancy(amdOccupancy(a, in), in, a);
    CHECK(s.find("LDS") != std::string::npos);
    CHECK(s.find("2 workgroups") != std::string::npos);
}

TEST_CASE("AMD occupancy rejects launches that cannot run, naming the reason", "[occupancy][amd]") {
    const Arch& a = arch("gfx942");
    CHECK_THROWS_WITH(amdOccupancy(a, input(32, 1025)), Catch::Contains("workgroup size 1025"));
    CHECK_THROWS_WITH(amdOccupancy(a, input(32, 0)), Catch::Contains("workgroup size 0"));
    CHECK_THROWS_WITH(amdOccupancy(a, input(513, 64)), Catch::Contains("513 VGPRs"));
    CHECK_THROWS_WITH(amdOccupancy(a, input(256, 64, 0, 0, 257)), Catch::Contains("AGPRs"));
    CHECK_THROWS_WITH(amdOccupancy(a, input(300, 64, 0, 0, 8)), Catch::Contains("300 arch VGPRs"));
    CHECK_THROWS_WITH(amdOccupancy(a, input(32, 256, 65537)), Catch::Contains("65537 bytes of LDS"));
    CHECK_THROWS_WITH(amdOccupancy(a, input(32, 256, -1)), Catch::Contains("LDS"));
    CHECK_THROWS_WITH(amdOccupancy(a, input(32, 256, 0, 109)), Catch::Contains("109 SGPRs"));
    // 1024 threads = 16 waves need 4 per SIMD; 512 VGPRs leave 1.
    CHECK_THROWS_WITH(amdOccupancy(a, input(512, 1024)), Catch::Contains("needs 4 waves per SIMD"));
    CHECK_THROWS_WITH(amdOccupancy(arch("sm_90"), input(32, 256)), Catch::Contains("not an AMD arch"));
}

// Occupancy cases worked by hand from NVIDIA's per-arch limits (CUDA C++ Programming Guide,
// "Technical Specifications per Compute Capability"): registers are allocated per warp in units
// of 256, shared memory per block includes the 1 KiB the system reserves (sm_80+).
#include "../test_support.hpp"
#include "analysis/occupancy.hpp"
#include "arch/arch_database.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

using namespace kx::engine;

namespace {
const Arch& arch(const char* name) {
    static ArchDatabase db = ArchDatabase::loadFromDataRoot(kx::test::sourceDir());
    const Arch* a = db.findArch(name);
    REQUIRE(a);
    return *a;
}
bool limitedBy(const OccupancyResult& r, OccupancyLimiter l) {
    return std::find(r.limiters.begin(), r.limiters.end(), l) != r.limiters.end();
}
}  // namespace

TEST_CASE("sm_90: 64 registers, 256 threads, 48 KiB dynamic smem -> 4 blocks", "[occupancy]") {
    // Registers: 64*256 = 16384 per block -> 65536/16384 = 4. Shared: 49152+1024 = 50176 per
    // block -> 233472/50176 = 4. Warps alone would allow 64/8 = 8.
    const OccupancyResult r = nvidiaOccupancy(arch("sm_90"), {64, 256, 0, 49152, -1, 1});
    CHECK(r.blocksPerSm == 4);
    CHECK(r.activeWarpsPerSm == 32);
    CHECK(r.occupancy == Approx(0.5));
    CHECK(limitedBy(r, OccupancyLimiter::Registers));
    CHECK(limitedBy(r, OccupancyLimiter::SharedMemory));
    CHECK(r.blockLimitWarps == 8);
}

TEST_CASE("sm_90: register allocation rounds up per warp", "[occupancy]") {
    // 65 registers -> 65*32 = 2080 per warp, rounded to 2304 (unit 256): 28 warps fit -> 3 blocks of 8 warps.
    const OccupancyResult r = nvidiaOccupancy(arch("sm_90"), {65, 256, 0, 0, -1, 1});
    CHECK(r.blocksPerSm == 3);
    CHECK(r.allocatedRegistersPerBlock == 2304 * 8);
    CHECK(limitedBy(r, OccupancyLimiter::Registers));
}

TEST_CASE("sm_80: 32 registers, 128 threads -> 16 blocks, full occupancy", "[occupancy]") {
    const OccupancyResult r = nvidiaOccupancy(arch("sm_80"), {32, 128, 0, 0, -1, 1});
    CHECK(r.blocksPerSm == 16);  // 64 warps / 4; registers 65536 / 4096 = 16
    CHECK(r.occupancy == Approx(1.0));
    CHECK(limitedBy(r, OccupancyLimiter::Warps));
}

TEST_CASE("sm_80: a 100000-byte dynamic smem block fits once", "[occupancy]") {
    const OccupancyResult r = nvidiaOccupancy(arch("sm_80"), {32, 128, 0, 100000, -1, 1});
    CHECK(r.blocksPerSm == 1);
    CHECK(limitedBy(r, OccupancyLimiter::SharedMemory));
}

TEST_CASE("sm_86: 1536 threads per SM cap 256-thread blocks at 6", "[occupancy]") {
    const OccupancyResult r = nvidiaOccupancy(arch("sm_86"), {32, 256, 0, 0, -1, 1});
    CHECK(r.blocksPerSm == 6);
    CHECK(r.maxWarpsPerSm == 48);
    CHECK(r.occupancy == Approx(1.0));
    CHECK(limitedBy(r, OccupancyLimiter::Warps));
}

TEST_CASE("sm_89: 64-thread blocks hit the 24-block limit", "[occupancy]") {
    // Warps would allow 48/2 = 24; blocks per SM on sm_89 is 24.
    const OccupancyResult r = nvidiaOccupancy(arch("sm_89"), {32, 64, 0, 0, -1, 1});
    CHECK(r.blocksPerSm == 24);
    CHECK(r.blockLimitBlocks == 24);
}

TEST_CASE("sm_75: 64 registers, 128 threads -> 8 blocks", "[occupancy]") {
    // Warps 32/4 = 8, registers 65536/8192 = 8, blocks 16.
    const OccupancyResult r = nvidiaOccupancy(arch("sm_75"), {64, 128, 0, 0, -1, 1});
    CHECK(r.blocksPerSm == 8);
    CHECK(r.occupancy == Approx(1.0));
}

TEST_CASE("sm_120: 128 registers, 256 threads -> 2 blocks, register-bound", "[occupancy]") {
    const OccupancyResult r = nvidiaOccupancy(arch("sm_120"), {128, 256, 0, 0, -1, 1});
    CHECK(r.blocksPerSm == 2);
    CHECK(r.occupancy == Approx(16.0 / 48.0));
    CHECK(limitedBy(r, OccupancyLimiter::Registers));
    CHECK(explainOccupancy(r, {128, 256, 0, 0, -1, 1}).find("registers") != std::string::npos);
}

TEST_CASE("impossible launches are refused with the reason", "[occupancy]") {
    CHECK_THROWS_WITH(nvidiaOccupancy(arch("sm_90"), {32, 2048, 0, 0, -1, 1}), Catch::Contains("block size 2048"));
    CHECK_THROWS_WITH(nvidiaOccupancy(arch("sm_90"), {300, 128, 0, 0, -1, 1}), Catch::Contains("registers per thread"));
    CHECK_THROWS_WITH(nvidiaOccupancy(arch("sm_86"), {32, 128, 0, 200000, -1, 1}), Catch::Contains("per-block limit"));
    CHECK_THROWS_WITH(nvidiaOccupancy(arch("sm_90"), {32, 128, 0, 0, 101, 1}), Catch::Contains("carveout"));
    CHECK_THROWS_AS(nvidiaOccupancy(arch("gfx942"), {32, 128, 0, 0, -1, 1}), InputError);
}

TEST_CASE("shared memory whose two parts overflow a 64-bit sum is refused, not wrapped", "[occupancy][reliability]") {
    // Found by fuzz_occupancy_csv: static + dynamic bytes of a CSV row overflowed long long.
    const ArchDatabase db = ArchDatabase::loadFromDataRoot(KX_TEST_SOURCE_DIR);
    const Arch* arch = db.findArch("sm_90");
    REQUIRE(arch);
    OccupancyInput in;
    in.threadsPerBlock = 128;
    in.registersPerThread = 32;
    in.staticSmemBytes = 6284686387457993372LL;
    in.dynamicSmemBytes = 3142343193728996680LL;
    CHECK_THROWS_WITH(nvidiaOccupancy(*arch, in), Catch::Contains("6284686387457993372 + 3142343193728996680 bytes of shared memory exceed"));
}

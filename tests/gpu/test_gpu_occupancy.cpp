// The engine's occupancy calculator (cuda_occupancy.h fed from assets/arch) against the CUDA
// driver's cuOccupancyMaxActiveBlocksPerMultiprocessor on a large table of launch shapes.
#include "analysis/occupancy.hpp"
#include "arch/arch_database.hpp"
#include "compile/compiler.hpp"
#include "run/runner_client.hpp"
#include "util/data_paths.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using namespace kx::engine;

namespace {

// Enough live values that --maxrregcount decides the register count; static shared memory set
// by STATIC_SMEM; dynamic shared memory touched so it is not optimised away.
std::string pressureKernel(int staticSmem) {
    return "#define STATIC_SMEM " + std::to_string(staticSmem) + R"(
extern "C" __global__ void pressure(float* out, int n) {
    extern __shared__ float dyn[];
#if STATIC_SMEM > 0
    __shared__ float fixed[STATIC_SMEM / 4];
    fixed[threadIdx.x % (STATIC_SMEM / 4)] = threadIdx.x;
#endif
    float v[96];
#pragma unroll
    for (int i = 0; i < 96; ++i) v[i] = out[(threadIdx.x * 97 + i) % n];
    float acc = 0;
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int i = 0; i < 96; ++i) acc = fmaf(v[i], v[(i * 7 + r) % 96], acc);
    dyn[threadIdx.x] = acc;
    __syncthreads();
#if STATIC_SMEM > 0
    acc += fixed[(threadIdx.x + 1) % (STATIC_SMEM / 4)];
#endif
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc + dyn[(threadIdx.x + 1) % blockDim.x];
}
)";
}

}  // namespace

TEST_CASE("occupancy agrees with the driver on every point", "[gpu][occupancy]") {
    RunnerClient runner;
    const nlohmann::json devices = runner.request({{"cmd", "devices"}}, 60);
    REQUIRE(devices.value("ok", false));
    const ArchDatabase db = ArchDatabase::loadFromDataRoot(dataRoot());
    const Arch* arch = db.findArch(devices["devices"][0]["arch"].get<std::string>());
    REQUIRE(arch);
    Compiler compiler(cacheRoot() / "nvrtc");
    const auto dir = std::filesystem::temp_directory_path() / "kx-occupancy-test";
    std::filesystem::create_directories(dir);

    long long points = 0, mismatches = 0;
    std::ofstream table(dir / "table.csv");
    table << "regs,static_smem,block,dyn_smem,carveout,driver,engine\n";
    for (int staticSmem : {0, 4096, 16384}) {
        for (int maxRegs : {16, 24, 32, 40, 48, 64, 72, 80, 96, 128, 168, 200, 255}) {
            const CompileResult r =
                compiler.compile({pressureKernel(staticSmem), "pressure.cu", arch->name, {"--maxrregcount=" + std::to_string(maxRegs)}});
            INFO(r.log);
            REQUIRE(r.ok);
            std::ofstream(dir / "pressure.cubin", std::ios::binary) << r.cubin;
            nlohmann::json pts = nlohmann::json::array();
            std::vector<std::array<int, 3>> shapes;
            const int maxDyn = arch->nv.smemPerBlockOptin - staticSmem;
            for (int block = 32; block <= arch->nv.maxThreadsPerBlock; block += 32)
                for (int dyn : {0, 1024, 8192, 40000, 65536, 100000, maxDyn})
                    for (int carveout : {-1, 0, 50, 100})
                        if (dyn <= maxDyn) shapes.push_back({block, dyn, carveout});
            for (const auto& s : shapes) pts.push_back({s[0], s[1], s[2]});
            const nlohmann::json reply =
                runner.request({{"cmd", "occupancy"}, {"module", (dir / "pressure.cubin").string()}, {"kernel", "pressure"}, {"points", pts}}, 120);
            INFO(reply.dump().substr(0, 300));
            REQUIRE(reply.value("ok", false));
            const int regs = reply["registers"];
            const int stat = reply["static_smem"];
            for (size_t i = 0; i < shapes.size(); ++i) {
                const int driver = reply["blocks_per_sm"][i];
                if (driver < 0) continue;  // the driver refused the shape; nothing to compare
                const OccupancyResult mine = nvidiaOccupancy(*arch, {regs, shapes[i][0], stat, shapes[i][1], shapes[i][2], 1});
                ++points;
                table << regs << "," << stat << "," << shapes[i][0] << "," << shapes[i][1] << "," << shapes[i][2] << "," << driver
                      << "," << mine.blocksPerSm << "\n";
                if (mine.blocksPerSm != driver) {
                    ++mismatches;
                    UNSCOPED_INFO("regs " << regs << " static " << stat << " block " << shapes[i][0] << " dyn " << shapes[i][1]
                                          << " carveout " << shapes[i][2] << ": driver " << driver << ", engine " << mine.blocksPerSm);
                }
            }
        }
    }
    if (const char* out = std::getenv("OUT")) std::filesystem::copy_file(dir / "table.csv", std::string(out) + "/occupancy_table.csv",
                                                                        std::filesystem::copy_options::overwrite_existing);
    INFO(points << " points compared");
    CHECK(points > 10000);
    CHECK(mismatches == 0);
}

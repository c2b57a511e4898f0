// kx as a user runs it: exit codes, messages and outputs.
#include "kx_process.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

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

int lineCount(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("kx templates and kx arches list what is available", "[cli]") {
    const Outcome t = runKx("templates");
    CHECK(t.exitCode == 0);
    CHECK(t.out.find("gemm") != std::string::npos);
    CHECK(t.out.find("reduce") != std::string::npos);
    // Each template's languages: CUDA and HIP flavours, HIP alone for the AMD matrix-core GEMM.
    CHECK(t.out.find("LANGUAGES") != std::string::npos);
    CHECK(t.out.find(" cuda,hip ") != std::string::npos);
    CHECK(t.out.find("gemm_mfma") < t.out.find(" hip "));
    const Outcome a = runKx("arches");
    CHECK(a.exitCode == 0);
    for (const char* name : {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_120", "gfx90a", "gfx942"})
        CHECK(a.out.find(name) != std::string::npos);
    CHECK(a.err.empty());
}

TEST_CASE("kx generate writes the rendered source", "[cli]") {
    const Outcome g = runKx("generate gemm --arch sm_90 --set BM=64 --set BN=128");
    INFO(g.err);
    REQUIRE(g.exitCode == 0);
    CHECK(g.out.find("extern \"C\" __global__") != std::string::npos);
    CHECK(g.out.find("${") == std::string::npos);

    const fs::path dir = scratchDir() / "generated";
    const Outcome d = runKx("generate reduce --arch sm_80 --output-dir " + dir.string());
    REQUIRE(d.exitCode == 0);
    int files = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        ++files;
        CHECK(e.path().extension() == ".cu");
        CHECK(e.path().filename().string().rfind("reduce_", 0) == 0);
    }
    CHECK(files == 1);

    const fs::path file = scratchDir() / "k.cu";
    REQUIRE(runKx("generate gemm --arch sm_80 -o " + file.string()).exitCode == 0);
    CHECK(slurp(file).find("__global__") != std::string::npos);
}

TEST_CASE("kx compile emits PTX and the resource report", "[cli]") {
    const Outcome r = runKx("compile gemm --arch sm_90 --emit resources");
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    CHECK(r.out.find("registers") != std::string::npos);
    CHECK(r.out.find("shared memory") != std::string::npos);
    CHECK(r.out.find("spill stores") != std::string::npos);

    const Outcome j = runKx("compile reduce --arch sm_80 --emit resources --json");
    REQUIRE(j.exitCode == 0);
    CHECK(j.out.find("\"registers\"") != std::string::npos);

    // A template of several kernels: each named, with its own launch's shared memory (radix_sort's
    // histogram takes a count per digit of every pass, 4 x 256 x 4 bytes; its pass, the tile).
    const Outcome several = runKx("compile radix_sort --arch sm_90 --emit resources");
    REQUIRE(several.exitCode == 0);
    const auto block = [&](const std::string& kernel) {  // the report's lines for one kernel
        const std::size_t at = several.out.find(kernel + "\n");
        if (at == std::string::npos) return std::string();
        const std::size_t next = several.out.find("  radix_sort_", at + kernel.size());
        return several.out.substr(at, next == std::string::npos ? std::string::npos : next - at);
    };
    const std::string histogram = block("_histogram"), pass = block("_onesweep");
    INFO(several.out);
    CHECK(histogram.find("+ 4096 bytes dynamic") != std::string::npos);
    CHECK(pass.find("bytes dynamic") != std::string::npos);
    CHECK(pass.find("+ 4096 bytes dynamic") == std::string::npos);

    const Outcome p = runKx("compile gemm --arch sm_120 --set BM=64 --emit ptx");
    REQUIRE(p.exitCode == 0);
    CHECK(p.out.find(".target sm_120") != std::string::npos);
    CHECK(p.out.find(".entry gemm_") != std::string::npos);

    const fs::path cubin = scratchDir() / "k.cubin";
    REQUIRE(runKx("compile reduce --arch sm_90 --emit cubin -o " + cubin.string()).exitCode == 0);
    CHECK(slurp(cubin).substr(1, 3) == "ELF");
}

TEST_CASE("bad input exits 2 with a one-line reason", "[cli]") {
    struct Case { std::string args, reason; };
    const std::vector<Case> cases = {
        {"generate nosuch --arch sm_90", "unknown template 'nosuch'"},
        {"generate gemm --arch sm_999", "unknown arch 'sm_999'"},
        {"generate gemm --arch sm_90 --set NOPE=1", "'NOPE' is not a parameter of gemm"},
        {"generate gemm --arch sm_90 --set BM=7", "BM=7 is not allowed"},
        {"generate gemm --arch sm_90 --set BM", "expects KEY=VALUE"},
        {"compile gemm --arch sm_90 --emit elf", "--emit must be"},
        {"compile gemm --arch sm_70 --emit ptx", "analysis only"},
        {"generate gemm --arch gfx942 --lang cuda", "needs an NVIDIA arch"},
        {"generate gemm_mma --arch gfx942", "has no hip source"},
        {"frobnicate", "frobnicate"},
        {"generate gemm", "--arch"},
    };
    for (const Case& c : cases) {
        INFO("kx " << c.args);
        const Outcome o = runKx(c.args);
        CHECK(o.exitCode == 2);
        CHECK(o.err.find(c.reason) != std::string::npos);
        CHECK(o.out.empty());
    }
}

TEST_CASE("violated constraints are each listed", "[cli]") {
    // A warp tile bigger than the block tile breaks more than one rule.
    const Outcome o = runKx("generate gemm --arch sm_90 --set BM=32,WM=64");
    CHECK(o.exitCode == 2);
    CHECK(o.err.find("is not valid for sm_90") != std::string::npos);
    CHECK(o.err.find("\n  - ") != std::string::npos);
    CHECK(lineCount(o.err) >= 2);
}

TEST_CASE("kx occupancy prints the calculator's answer and its limiter", "[cli][occupancy]") {
    const Outcome o = runKx("occupancy --arch sm_90 --regs 64 --block 256 --dyn-smem 49152");
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    CHECK(o.out.find("blocks per SM    4") != std::string::npos);
    CHECK(o.out.find("occupancy        50.0%") != std::string::npos);
    CHECK(o.out.find("limited by       registers, shared memory") != std::string::npos);
}

TEST_CASE("kx occupancy --csv appends blocks_per_sm and names bad rows", "[cli][occupancy]") {
    const fs::path csv = scratchDir() / "occ.csv";
    std::ofstream(csv) << "arch,regs,static_smem,block,dyn_smem,carveout\n"
                          "sm_90,64,0,256,49152,-1\n"
                          "sm_80,32,0,128,0,-1\n"
                          "sm_86,32,0,256,0,50\n";
    const Outcome o = runKx("occupancy --csv " + csv.string());
    REQUIRE(o.exitCode == 0);
    CHECK(o.out ==
          "arch,regs,static_smem,block,dyn_smem,carveout,blocks_per_sm\n"
          "sm_90,64,0,256,49152,-1,4\n"
          "sm_80,32,0,128,0,-1,16\n"
          "sm_86,32,0,256,0,50,6\n");

    const fs::path bad = scratchDir() / "bad.csv";
    std::ofstream(bad) << "arch,regs,static_smem,block,dyn_smem,carveout\nsm_90,64,0,256,0,-1\nsm_90,lots,0,256,0,-1\n";
    const Outcome b = runKx("occupancy --csv " + bad.string());
    CHECK(b.exitCode == 2);
    CHECK(b.err.find("row 3, column regs") != std::string::npos);
    CHECK(b.out.empty());

    const Outcome h = runKx("occupancy --csv - < /dev/null");
    CHECK(h.exitCode == 2);
}

// A small problem's timed runs rotate over copies of its inputs (so each reads them from DRAM),
// the baselines' too: the report says how many, beside the kernel's time and each baseline's.
TEST_CASE("kx run says the baseline was timed on the kernel's input sets", "[cli][run]") {
    const Outcome o = runKx("run map --arch native --size n=4096 --reps 3 --warmup 1",
                            "KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1 KX_FAKE_GPU_NAME='NVIDIA H200'");
    INFO(o.out << o.err);
    CHECK_THAT(o.out, Catch::Contains("3 reps, 3 input sets)"));
    CHECK_THAT(o.out, Catch::Contains("copy 2.0000 ms") && Catch::Contains("(the same 3 input sets): the kernel runs at 200.0% of its speed"));
}

// The waves a run took, from the runner's SM count and the driver's blocks per SM (the stand-in
// runner says 132 SMs and two blocks each): conv's backward weight with Split-K 32 on ResNet-50's
// stage-3 3x3 layer is 9 x 32 = 288 blocks for 264 slots.
TEST_CASE("kx run says how many waves the grid took", "[cli][run]") {
    const Outcome o = runKx("run conv --arch sm_90 --set direction=bwd_weight,BN=128,WN=64,SPLITK=32 --size N=2,C=128,K=128,Hi=28,Wi=28 "
                            "--reps 1 --warmup 0 --no-baseline",
                            "KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1 KX_FAKE_GPU_NAME='NVIDIA H200'");
    INFO(o.out << o.err);
    CHECK_THAT(o.out, Catch::Contains("  waves         288 blocks, 264 at once (132 SMs x 2): 2 waves, the last with 24 blocks (9% of a wave); "
                                      "55% of the block slots busy\n"));
    const Outcome j = runKx("run conv --arch sm_90 --set direction=bwd_weight,BN=128,WN=64,SPLITK=32 --size N=2,C=128,K=128,Hi=28,Wi=28 "
                            "--reps 1 --warmup 0 --no-baseline --json",
                            "KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1 KX_FAKE_GPU_NAME='NVIDIA H200'");
    INFO(j.out << j.err);
    const nlohmann::json doc = nlohmann::json::parse(j.out);
    CHECK(doc["sm_count"] == 132);
    CHECK(doc["grid_blocks"] == 288);
}

// HIP to AMD ISA with clang 19: metadata parsing on real compiler output (a stored listing and
// fresh compiles), diagnostics, the cache, the missing-compiler message, and the occupancy fed
// from a real compile against the compiler's own figure.
#include "../test_support.hpp"
#include "analysis/amd_kernel_occupancy.hpp"
#include "arch/arch_database.hpp"
#include "compile/hip_compiler.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace kx::engine;
using kx::test::sourceDir;

namespace {

std::string readFile(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

const ArchDatabase& arches() {
    static ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    return db;
}

std::filesystem::path prelude() { return sourceDir() / "assets/hip/kx_hip_prelude.h"; }

// CI installs clang-19 (scripts/install-deps.sh): its absence fails these tests, naming the package.
void requireClang() {
    INFO(hipClangMissingMessage());
    REQUIRE(findHipClang().has_value());
}

const char* kSharedKernel = R"(
extern "C" __global__ void __launch_bounds__(256) twice(float* out, const float* in, int n) {
    __shared__ float tile[256];
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    tile[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = 2.0f * tile[255 - threadIdx.x];
}
)";

}  // namespace

TEST_CASE("AMDGPU metadata and kernel-info remarks of a stored clang listing", "[compile][hip]") {
    // clang 19's assembly of tests/engine/compile/data/mfma_gfx90a.hip: an accumulator in AGPRs,
    // where the metadata's .vgpr_count is the unified count (arch VGPRs aligned to 4, + AGPRs).
    const auto kernels = parseAmdgpuResources(readFile(sourceDir() / "tests/engine/compile/data/mfma_gfx90a.s"));
    REQUIRE(kernels.size() == 1);
    const AmdKernelResources& k = kernels.front();
    CHECK(k.function == "mf");
    CHECK(k.vgprs == 3);
    CHECK(k.agprs == 4);
    CHECK(k.totalVgprs == 8);
    CHECK(k.sgprs == 30);
    CHECK(k.ldsBytes == 0);
    CHECK(k.scratchBytes == 0);
    CHECK_FALSE(k.spills());
    CHECK(k.wavefrontSize == 64);
    CHECK(k.maxFlatWorkgroupSize == 64);
    CHECK(k.kernargBytes == 16);
    CHECK(k.codeBytes == 380);
    CHECK(k.compilerOccupancy == 8);
}

TEST_CASE("AMDGPU resources: spills, scratch and several kernels, unknown keys ignored", "[compile][hip]") {
    const std::string isa = R"(	.protected	a                       ; -- Begin function a
a:
; codeLenInByte = 100
; NumVgprs: 128
; NumAgprs: 0
; TotalNumVgprs: 128
; Occupancy: 4
	.protected	b                       ; -- Begin function b
b:
; codeLenInByte = 200
; NumVgprs: 256
; NumAgprs: 64
; TotalNumVgprs: 320
; Occupancy: 1
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 8192
    .name:           a
    .new_key_from_a_later_clang: 7
    .private_segment_fixed_size: 0
    .sgpr_count:     40
    .vgpr_count:     128
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .agpr_count:     64
    .name:           b
    .private_segment_fixed_size: 96
    .sgpr_count:     102
    .sgpr_spill_count: 3
    .uses_dynamic_stack: true
    .vgpr_count:     320
    .vgpr_spill_count: 12
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
	.end_amdgpu_metadata
)";
    const auto kernels = parseAmdgpuResources(isa);
    REQUIRE(kernels.size() == 2);
    CHECK(kernels[0].function == "a");
    CHECK(kernels[0].vgprs == 128);
    CHECK(kernels[0].ldsBytes == 8192);
    CHECK(kernels[0].compilerOccupancy == 4);
    CHECK_FALSE(kernels[0].spills());
    CHECK(kernels[1].function == "b");
    CHECK(kernels[1].vgprs == 256);
    CHECK(kernels[1].agprs == 64);
    CHECK(kernels[1].totalVgprs == 320);
    CHECK(kernels[1].vgprSpills == 12);
    CHECK(kernels[1].sgprSpills == 3);
    CHECK(kernels[1].scratchBytes == 96);
    CHECK(kernels[1].dynamicStack);
    CHECK(kernels[1].spills());
    CHECK(amdKernelNamed(kernels, "b") == &kernels[1]);
    CHECK(amdKernelNamed(kernels, "gone") == &kernels[0]);
    CHECK(parseAmdgpuResources("no metadata here").empty());
}

TEST_CASE("clang diagnostics name file and line", "[compile][hip]") {
    const auto d = parseClangDiagnostics("reduce.hip:12:5: error: use of undeclared identifier 'x'\n"
                                         "reduce.hip:40:1: warning: unused variable 'y' [-Wunused-variable]\n"
                                         "1 error generated.\n");
    REQUIRE(d.size() == 2);
    CHECK(d[0].file == "reduce.hip");
    CHECK(d[0].line == 12);
    CHECK(d[0].severity == "error");
    CHECK(d[0].message == "use of undeclared identifier 'x'");
    CHECK(d[1].severity == "warning");
    CHECK(d[1].line == 40);
}

TEST_CASE("a HIP kernel compiles for gfx90a and gfx942 to ISA, a code object and resources", "[compile][hip]") {
    requireClang();
    HipCompiler compiler({}, prelude());
    for (const char* arch : {"gfx90a", "gfx942"}) {
        HipCompileRequest request{.source = kSharedKernel, .arch = arch, .fileName = "twice.hip", .options = {}};
        const HipCompileResult r = compiler.compile(request);
        INFO(arch << ": " << r.log);
        REQUIRE(r.ok);
        CHECK(r.isa.find(std::string(".amdgcn_target \"amdgcn-amd-amdhsa--") + arch) != std::string::npos);
        CHECK(r.isa.find("ds_write_b32") != std::string::npos);
        CHECK(r.isa.find("s_barrier") != std::string::npos);
        CHECK(r.codeObject.rfind("\x7f" "ELF", 0) == 0);
        CHECK(r.compilerVersion.rfind("clang 19", 0) == 0);
        REQUIRE(r.kernels.size() == 1);
        const AmdKernelResources& k = r.kernels.front();
        CHECK(k.function == "twice");
        CHECK(k.ldsBytes == 1024);
        CHECK(k.maxFlatWorkgroupSize == 256);
        CHECK(k.wavefrontSize == 64);
        CHECK(k.vgprs > 0);
        CHECK(k.sgprs > 0);
        CHECK(k.scratchBytes == 0);
        CHECK(k.compilerOccupancy == 8);
        CHECK_FALSE(r.fromCache);
        // The same request again comes from the cache, unchanged.
        const HipCompileResult again = compiler.compile(request);
        CHECK(again.fromCache);
        CHECK(again.isa == r.isa);
    }
}

TEST_CASE("the HIP cache on disk serves a new compiler object", "[compile][hip]") {
    requireClang();
    const auto dir = std::filesystem::temp_directory_path() / ("kx-test-hip-cache-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    HipCompileRequest request{.source = kSharedKernel, .arch = "gfx942", .fileName = "twice.hip", .options = {}};
    const HipCompileResult first = HipCompiler(dir, prelude()).compile(request);
    REQUIRE(first.ok);
    const HipCompileResult second = HipCompiler(dir, prelude()).compile(request);
    CHECK(second.fromCache);
    CHECK(second.isa == first.isa);
    CHECK(second.codeObject == first.codeObject);
    REQUIRE(second.kernels.size() == 1);
    CHECK(second.kernels[0].ldsBytes == 1024);
    CHECK(second.kernels[0].compilerOccupancy == first.kernels[0].compilerOccupancy);
    // A different source is a different key.
    request.source += "\n// changed\n";
    CHECK(HipCompiler(dir, prelude()).cacheKey(request) != first.cacheKey);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a HIP compile error comes back with its line, not an exception", "[compile][hip]") {
    requireClang();
    HipCompiler compiler({}, prelude());
    const HipCompileResult r = compiler.compile({.source = "extern \"C\" __global__ void k() {\n  undeclared = 1;\n}\n", .arch = "gfx942", .fileName = "broken.hip", .options = {}});
    CHECK_FALSE(r.ok);
    REQUIRE_FALSE(r.diagnostics.empty());
    CHECK(r.diagnostics[0].file == "broken.hip");
    CHECK(r.diagnostics[0].line == 2);
    CHECK(r.diagnostics[0].severity == "error");
    CHECK(r.log.find("kx-hip-") == std::string::npos);  // the temporary path is not shown
}

TEST_CASE("without clang 19 a HIP compile says what to install", "[compile][hip]") {
    const char* old = std::getenv("KX_HIP_CLANG");
    const std::string saved = old ? old : "";
    setenv("KX_HIP_CLANG", "/nonexistent/clang++", 1);
    HipCompiler compiler({}, prelude());
    const HipCompileResult r = compiler.compile({.source = kSharedKernel, .arch = "gfx942", .fileName = "twice.hip", .options = {}});
    if (old) setenv("KX_HIP_CLANG", saved.c_str(), 1);
    else unsetenv("KX_HIP_CLANG");
    CHECK_FALSE(r.ok);
    CHECK(r.log.find("/nonexistent/clang++") != std::string::npos);
    CHECK(hipClangMissingMessage().find("clang-19") != std::string::npos);
}

TEST_CASE("the AMD occupancy of a real compile agrees with the compiler's", "[compile][hip][occupancy]") {
    requireClang();
    HipCompiler compiler({}, prelude());
    const Arch* gfx90a = arches().findArch("gfx90a");
    REQUIRE(gfx90a);

    SECTION("registers: an MFMA kernel with AGPRs") {
        const HipCompileResult r = compiler.compile({.source = readFile(sourceDir() / "tests/engine/compile/data/mfma_gfx90a.hip"), .arch = "gfx90a", .fileName = "mf.hip", .options = {}});
        INFO(r.log);
        REQUIRE(r.ok);
        REQUIRE(r.kernels.size() == 1);
        CHECK(r.isa.find("v_mfma_f32_16x16x4") != std::string::npos);
        const AmdKernelOccupancy o = amdKernelOccupancy(*gfx90a, r.kernels[0], 64);
        CHECK(o.input.agprsPerThread == r.kernels[0].agprs);
        CHECK(o.result.allocatedVgprs >= r.kernels[0].totalVgprs);
        CHECK(o.agreesWithCompiler);
        CHECK(o.reproducedWavesPerSimd == r.kernels[0].compilerOccupancy);
    }
    SECTION("VGPRs: a kernel that keeps 160 floats live") {
        // Independent accumulators in registers: about 160 VGPRs allow 3 waves per SIMD (512 / 160).
        const std::string source = R"(
extern "C" __global__ void __launch_bounds__(256) heavy(const float* in, float* out) {
    float acc[160];
#pragma unroll
    for (int i = 0; i < 160; ++i) acc[i] = in[threadIdx.x + 256 * i];
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int i = 0; i < 160; ++i) acc[i] = acc[i] * acc[(i + 1) % 160] + 1.0f;
    float s = 0;
#pragma unroll
    for (int i = 0; i < 160; ++i) s += acc[i];
    out[threadIdx.x] = s;
}
)";
        const HipCompileResult r = compiler.compile({.source = source, .arch = "gfx90a", .fileName = "heavy.hip", .options = {}});
        INFO(r.log);
        REQUIRE(r.ok);
        REQUIRE(r.kernels.size() == 1);
        const AmdKernelResources& k = r.kernels[0];
        CHECK(k.totalVgprs > 128);
        CHECK(k.compilerOccupancy < 4);
        const AmdKernelOccupancy o = amdKernelOccupancy(*gfx90a, k, 256);
        INFO("VGPRs " << k.totalVgprs << ", compiler " << k.compilerOccupancy << ", ours " << o.result.wavesPerSimd);
        CHECK(o.agreesWithCompiler);
        CHECK(o.result.vgprWavesPerSimd == k.compilerOccupancy);
        CHECK(o.result.limiters.front() == AmdOccupancyLimiter::Vgprs);
    }
    SECTION("LDS: the compiler rounds up and ignores the granule; the calculator counts whole workgroups") {
        // 9000 bytes of LDS per 256-thread workgroup: 65536 / 9000 = 7 workgroups of 4 waves = 7
        // waves per SIMD either way; with 9216 allocated (granule 512) still 7.
        const std::string source = R"(
extern "C" __global__ void __launch_bounds__(256) lds(float* out) {
    __shared__ float buffer[2250];
    for (int i = threadIdx.x; i < 2250; i += 256) buffer[i] = i;
    __syncthreads();
    out[threadIdx.x] = buffer[2249 - threadIdx.x];
}
)";
        const HipCompileResult r = compiler.compile({.source = source, .arch = "gfx90a", .fileName = "lds.hip", .options = {}});
        INFO(r.log);
        REQUIRE(r.ok);
        const AmdKernelResources& k = r.kernels.at(0);
        CHECK(k.ldsBytes == 9000);
        CHECK(k.compilerOccupancy == 7);
        const AmdKernelOccupancy o = amdKernelOccupancy(*gfx90a, k, 256);
        CHECK(o.agreesWithCompiler);
        CHECK(o.result.workgroupsPerCu == 7);
        CHECK(o.result.wavesPerSimd == 7);
        CHECK(o.difference.empty());
    }
}

#include "compile/compiler.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <optional>

using namespace kx::engine;

namespace {
const char* kPtxasLog = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'gemm_f16' for 'sm_90'
ptxas info    : Function properties for gemm_f16
ptxas         .     24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 168 registers, used 1 barriers, 1024 bytes smem, 400 bytes cmem[0]
ptxas info    : Compile time = 24.210 ms
ptxas info    : Compiling entry function 'second' for 'sm_90'
ptxas info    : Function properties for second
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, 360 bytes cmem[0]
)";

std::filesystem::path freshCacheDir(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() / ("kx-test-cache-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir;
}

const char* kGoodKernel = R"(#include <cuda_fp16.h>
extern "C" __global__ void scale(__half* x, int n) {
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? __half2float(x[i]) : 0.0f;
    __syncthreads();
    if (i < n) x[i] = __float2half(tile[255 - threadIdx.x] * 2.0f);
}
)";
}  // namespace

TEST_CASE("the ptxas report parses per kernel", "[compile]") {
    const auto kernels = parsePtxasReport(kPtxasLog);
    REQUIRE(kernels.size() == 2);
    CHECK(kernels[0].function == "gemm_f16");
    CHECK(kernels[0].registers == 168);
    CHECK(kernels[0].barriers == 1);
    CHECK(kernels[0].sharedBytes == 1024);
    CHECK(kernels[0].constantBytes == 400);
    CHECK(kernels[0].stackFrameBytes == 24);
    CHECK(kernels[0].spillStoreBytes == 8);
    CHECK(kernels[0].spillLoadBytes == 12);
    CHECK(kernels[0].spills());
    CHECK(kernels[1].function == "second");
    CHECK(kernels[1].registers == 12);
    CHECK(kernels[1].barriers == 0);
    CHECK_FALSE(kernels[1].spills());
}

TEST_CASE("compile diagnostics carry file and line", "[compile]") {
    const auto d = parseCompileDiagnostics(
        "gemm.cu(42): error: identifier \"foo\" is undefined\n  foo = 1;\n\ngemm.cu(7): warning #177-D: variable \"x\" was declared but never referenced\n");
    REQUIRE(d.size() == 2);
    CHECK(d[0].file == "gemm.cu");
    CHECK(d[0].line == 42);
    CHECK(d[0].severity == "error");
    CHECK(d[0].message == "identifier \"foo\" is undefined");
    CHECK(d[1].line == 7);
    CHECK(d[1].severity == "warning");
}

TEST_CASE("NVRTC compiles to PTX and CUBIN with a resource report", "[compile]") {
    Compiler compiler(freshCacheDir("good"));
    const CompileResult r = compiler.compile({kGoodKernel, "scale.cu", "sm_90", {}});
    INFO(r.log);
    REQUIRE(r.ok);
    CHECK(r.ptx.find(".entry scale") != std::string::npos);
    CHECK(r.ptx.find(".target sm_90") != std::string::npos);
    CHECK(r.cubin.substr(1, 3) == "ELF");
    REQUIRE(r.kernels.size() == 1);
    CHECK(r.kernels[0].function == "scale");
    CHECK(r.kernels[0].registers > 0);
    CHECK(r.kernels[0].sharedBytes == 1024);
    CHECK(r.kernels[0].barriers == 1);
    CHECK_FALSE(r.fromCache);
    CHECK(r.compilerVersion.rfind("NVRTC ", 0) == 0);
}

TEST_CASE("compile errors come back with line numbers", "[compile]") {
    Compiler compiler(freshCacheDir("bad"));
    const CompileResult r = compiler.compile({"extern \"C\" __global__ void k(float* x) {\n  x[0] = 1.0f;\n  y = 2;\n}\n", "broken.cu", "sm_80", {}});
    CHECK_FALSE(r.ok);
    REQUIRE_FALSE(r.diagnostics.empty());
    CHECK(r.diagnostics[0].file == "broken.cu");
    CHECK(r.diagnostics[0].line == 3);
    CHECK(r.diagnostics[0].severity == "error");
    CHECK(r.diagnostics[0].message.find("\"y\"") != std::string::npos);
}

TEST_CASE("the cache key covers source, arch and options, and hits come from memory and disk", "[compile]") {
    const CompileRequest base{kGoodKernel, "scale.cu", "sm_90", {}};
    CompileRequest otherArch = base;
    otherArch.arch = "sm_80";
    CompileRequest otherOptions = base;
    otherOptions.options = {"--maxrregcount=32"};
    CompileRequest otherSource = base;
    otherSource.source += "\n// changed\n";
    CHECK(compileCacheKey(base) == compileCacheKey(base));
    CHECK(compileCacheKey(base) != compileCacheKey(otherArch));
    CHECK(compileCacheKey(base) != compileCacheKey(otherOptions));
    CHECK(compileCacheKey(base) != compileCacheKey(otherSource));

    const auto dir = freshCacheDir("hits");
    {
        Compiler first(dir);
        CHECK_FALSE(first.compile(base).fromCache);
        const CompileResult again = first.compile(base);
        CHECK(again.fromCache);
    }
    Compiler second(dir);  // a new process: served from disk
    const CompileResult fromDisk = second.compile(base);
    CHECK(fromDisk.fromCache);
    CHECK(fromDisk.ok);
    REQUIRE(fromDisk.kernels.size() == 1);
    CHECK(fromDisk.kernels[0].sharedBytes == 1024);
    std::filesystem::remove_all(dir);
}

// The memory cache keeps the most recently used results within its byte budget: a long session's
// compiles must not grow without end. What it drops compiles again, or comes from disk.
TEST_CASE("the compilers' memory cache drops the least recently used results past its budget", "[compile][reliability]") {
    compile_files::MemoryCache<std::string> cache(10, [](const std::string& s) { return s.size(); });
    cache.put("a", "aaaa");
    cache.put("b", "bbbb");
    CHECK(cache.bytes() == 8);
    CHECK(cache.find("a") == std::optional<std::string>("aaaa"));  // now a is the most recently used
    cache.put("c", "cccc");                                         // 12 bytes: b goes
    CHECK(cache.contains("a"));
    CHECK_FALSE(cache.contains("b"));
    CHECK(cache.contains("c"));
    CHECK(cache.bytes() == 8);
    cache.put("a", "a");  // replaced, not counted twice
    CHECK(cache.bytes() == 5);
    CHECK(cache.size() == 2);
    cache.put("big", std::string(40, 'x'));  // over the budget alone: kept, everything else dropped
    CHECK(cache.size() == 1);
    CHECK(cache.contains("big"));
    CHECK(cache.bytes() == 40);
    CHECK_FALSE(cache.find("a"));

    // A compiler with no room in memory: the newest result is still served from memory, an older one
    // compiles again (without a disk cache).
    const CompileRequest one{kGoodKernel, "scale.cu", "sm_90", {}};
    CompileRequest two = one;
    two.arch = "sm_80";
    Compiler tiny({}, 1);
    CHECK_FALSE(tiny.compilePtx(one).fromCache);
    CHECK(tiny.compilePtx(one).fromCache);
    CHECK_FALSE(tiny.compilePtx(two).fromCache);
    CHECK_FALSE(tiny.compilePtx(one).fromCache);
    CHECK(tiny.compilePtx(one).ok);
}

TEST_CASE("every architecture NVRTC lists is accepted", "[compile]") {
    const auto archs = nvrtcSupportedArchs();
    CHECK(std::find(archs.begin(), archs.end(), "sm_80") != archs.end());
    CHECK(std::find(archs.begin(), archs.end(), "sm_90") != archs.end());
    CHECK(std::find(archs.begin(), archs.end(), "sm_120") != archs.end());
}

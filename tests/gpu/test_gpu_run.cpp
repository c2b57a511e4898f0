// [gpu] tests: need an NVIDIA GPU and driver. Run with: ctest --preset default -L gpu
#include "analysis/pc_attribution.hpp"
#include "analysis/roofline_scene.hpp"
#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "run/variant_run.hpp"
#include "templates/template_library.hpp"
#include "util/data_paths.hpp"

#include <catch2/catch.hpp>

using namespace kx::engine;

namespace {

struct Gpu {
    ArchDatabase arches = ArchDatabase::loadFromDataRoot(dataRoot());
    TemplateLibrary templates = TemplateLibrary::load(dataRoot() / "templates");
    RunnerClient runner;  // kx-runner next to this binary, or $KX_RUNNER
    Compiler compiler{cacheRoot() / "nvrtc"};
    const Arch* arch = nullptr;
    std::string deviceName;

    Gpu() {
        const nlohmann::json devices = listDevices(runner);
        INFO(devices.dump());
        REQUIRE(devices.value("ok", false));
        REQUIRE_FALSE(devices["devices"].empty());
        deviceName = devices["devices"][0]["name"];
        arch = arches.findArch(devices["devices"][0]["arch"].get<std::string>());
        REQUIRE(arch);
    }

    RunReport run(const std::string& id, const std::map<std::string, std::string>& values,
                  const std::map<std::string, std::string>& sizes, RunOptions options = {}) {
        auto t = templates.find(id);
        REQUIRE(t);
        const Config config = t->withValues(t->defaultConfig(), values);
        const PreparedVariant v = prepareVariant(*t, config, *arch);
        for (const Violation& violation : v.violations) FAIL(v.name << ": " << violation.message);
        const CompileResult compiled = compiler.compile(v.request);
        INFO(compiled.log);
        REQUIRE(compiled.ok);
        return runVariant(runner, *t, config, *arch, t->withSizes(sizes), compiled, options);
    }
};

RunOptions quick(int reps, int warmup) {
    RunOptions o;
    o.reps = reps;
    o.warmup = warmup;
    return o;
}

Gpu& gpu() {
    static Gpu g;
    return g;
}

void requireCorrect(const RunReport& r) {
    INFO(r.variant << " " << r.error << " | " << r.correctness.method << " | first bad: " << r.correctness.firstBadText
                   << " | max rel " << r.correctness.maxRelError << " tol " << r.correctness.tolerance);
    REQUIRE(r.ok);
    CHECK(r.correctness.passed);
    CHECK(r.correctness.checked > 0);
}

// A quick run with the hardware memory counters, which must have been counted.
// The L2 of the GPU the tests run on, in bytes.
double l2Bytes() {
    const nlohmann::json devices = listDevices(gpu().runner);
    return devices["devices"][0].value("l2_bytes", 0.0);
}

RunReport countedRun(const std::string& id, const std::map<std::string, std::string>& values, const std::map<std::string, std::string>& sizes,
                     int pcSamplingRuns = 0) {
    RunOptions options = quick(5, 1);
    options.memoryCounters = true;
    options.pcSamplingRuns = pcSamplingRuns;
    RunReport r = gpu().run(id, values, sizes, options);
    requireCorrect(r);
    REQUIRE(r.memoryCounters);
    INFO(r.memoryCounters->error);
    REQUIRE(r.memoryCounters->ok());
    return r;
}

}  // namespace

TEST_CASE("the runner lists the GPU", "[gpu]") {
    CHECK_FALSE(gpu().deviceName.empty());
    CHECK(gpu().arch->vendor == Vendor::Nvidia);
}

TEST_CASE("GEMM is correct at sizes the tile does not divide, every dtype and layout", "[gpu][gemm]") {
    for (const char* dtype : {"f32", "f16", "bf16"}) {
        for (const char* layout : {"rcr", "rrr"}) {
            for (const auto& size : std::vector<std::map<std::string, std::string>>{
                     {{"M", "128"}, {"N", "128"}, {"K", "64"}},
                     {{"M", "127"}, {"N", "129"}, {"K", "65"}},
                     {{"M", "1"}, {"N", "7"}, {"K", "3"}},
                     {{"M", "333"}, {"N", "257"}, {"K", "1000"}}}) {
                const std::string vec = std::string(dtype) == "f32" ? "4" : "8";  // 16-byte loads
                const RunReport r = gpu().run("gemm", {{"dtype", dtype}, {"layout", layout}, {"VEC", vec}}, size, quick(3, 1));
                requireCorrect(r);
                CHECK(r.correctness.checked == r.correctness.total);  // small: every output checked
            }
        }
    }
}

TEST_CASE("GEMM configs other than the default are correct", "[gpu][gemm]") {
    const std::vector<std::map<std::string, std::string>> configs = {
        {{"BM", "64"}, {"BN", "128"}, {"BK", "32"}},
        {{"STAGES", "1"}},
        {{"STAGES", "3"}, {"dtype", "f32"}, {"VEC", "4"}},
        {{"STAGES", "4"}, {"BK", "16"}},
        {{"VEC", "1"}},
        {{"BM", "32"}, {"BN", "32"}, {"WM", "16"}, {"WN", "32"}, {"TM", "4"}, {"TN", "4"}, {"VEC", "2"}},
    };
    for (const auto& values : configs) {
        const RunReport r = gpu().run("gemm", values, {{"M", "200"}, {"N", "300"}, {"K", "130"}}, quick(3, 1));
        requireCorrect(r);
    }
}

TEST_CASE("large GEMM: sampled float64 check plus a full comparison with cuBLAS", "[gpu][gemm]") {
    const RunReport r = gpu().run("gemm", {}, {{"M", "2048"}, {"N", "2048"}, {"K", "2048"}}, quick(5, 2));
    requireCorrect(r);
    CHECK(r.correctness.checked == kSampledOutputs);
    CHECK(r.correctness.baselineCompared);
    CHECK(r.correctness.baselineAgrees);
    REQUIRE(r.primaryBaseline());
    CHECK(r.primaryBaseline()->medianMs > 0);
    CHECK(r.primaryBaseline()->name.find("cuBLAS") != std::string::npos);
}

TEST_CASE("reduction is correct for sum and max, every dtype, awkward sizes", "[gpu][reduce]") {
    for (const char* op : {"sum", "max"}) {
        for (const char* dtype : {"f32", "f16", "bf16"}) {
            for (const char* n : {"1", "1000", "1048579", "33554432"}) {
                const RunReport r = gpu().run("reduce", {{"op", op}, {"dtype", dtype}}, {{"n", n}}, quick(3, 1));
                requireCorrect(r);
            }
        }
    }
    for (const auto& values : std::vector<std::map<std::string, std::string>>{
             {{"BLOCK", "64"}, {"ITEMS", "1"}, {"VEC", "1"}}, {{"BLOCK", "1024"}, {"ITEMS", "8"}}, {{"VEC", "8"}, {"dtype", "f16"}}}) {
        requireCorrect(gpu().run("reduce", values, {{"n", "777777"}}, quick(3, 1)));
    }
}

TEST_CASE("timing is sane: positive, ordered, with the repetitions asked for", "[gpu][timing]") {
    const RunReport r = gpu().run("reduce", {}, {{"n", "16777216"}}, quick(25, 3));
    requireCorrect(r);
    CHECK(r.reps == 25);
    // The kernel and its baselines were timed in turns: five rounds of five.
    CHECK(r.rounds == 5);
    CHECK(r.minMs > 0);
    CHECK(r.minMs <= r.medianMs);
    CHECK(r.medianMs <= r.maxMs);
    CHECK(r.gbps > 10);              // any data-centre GPU streams far faster than this
    // CUB's DeviceReduce over the same input and a device copy of as many bytes, in the same run
    // (the build has nvcc).
    REQUIRE(r.baselines.size() == 2);
    INFO(r.baselines[0].error);
    CHECK(r.baselines[0].ok());
    CHECK(r.baselines[0].name == "CUB DeviceReduce f32 sum");
    CHECK(r.baselines[0].gbps > 100);
    CHECK(r.baselines[0].speedup > 0);
    CHECK(r.baselines[1].name == "device copy");
    CHECK(r.baselines[1].gbps > 100);
    CHECK(r.baselines[0].rotationSets == r.rotationSets);
    // A small problem fits in L2: the runner rotates input sets, for the kernel and for each
    // baseline alike (a baseline timed on one set would read from L2 what the kernel reads from
    // DRAM).
    const RunReport small = gpu().run("reduce", {}, {{"n", "65536"}}, quick(5, 1));
    requireCorrect(small);
    CHECK(small.rotationSets > 1);
    CHECK(small.rounds == 5);  // one timed run of each a round
    REQUIRE(small.baselines.size() == 2);
    for (const BaselineReport& b : small.baselines) {
        INFO(b.name << ": " << b.error);
        CHECK(b.ok());
        CHECK(b.rotationSets == small.rotationSets);
    }
}

TEST_CASE("PC sampling places the samples of a GEMM on its SASS, with stall reasons", "[gpu][pc_sampling]") {
    RunOptions options = quick(5, 2);
    options.pcSamplingRuns = 20;
    const RunReport r = gpu().run("gemm", {}, {{"M", "2048"}, {"N", "2048"}, {"K", "2048"}}, options);
    requireCorrect(r);
    REQUIRE(r.pcSampling);
    INFO(r.pcSampling->error);
    REQUIRE(r.pcSampling->error.empty());
    CHECK(r.pcSampling->totalSamples > 1000);
    REQUIRE_FALSE(r.pcSampling->pcs.empty());

    // Every sample belongs to an instruction of the module's SASS.
    auto t = gpu().templates.find("gemm");
    const Config config = t->defaultConfig();
    const CompileResult compiled = gpu().compiler.compile(prepareVariant(*t, config, *gpu().arch).request);
    std::string error;
    const auto sass = disassembleCubin(compiled.cubin, &error);
    INFO(error);
    REQUIRE(sass);
    long long unplaced = -1;
    const std::vector<LineSamples> lines = samplesPerSassLine(*r.pcSampling, *sass, &unplaced);
    CHECK(unplaced == 0);
    long long placed = 0, hottest = 0;
    for (const LineSamples& l : lines) {
        placed += l.samples;
        hottest = std::max(hottest, l.samples);
        CHECK_FALSE(topStalls(l, 1).empty());
    }
    CHECK(placed > 1000);
    CHECK(hottest < placed);  // a GEMM's time spreads over its loop
}

TEST_CASE("planted faults are reported in plain words and a fresh runner takes over", "[gpu][faults]") {
    RunnerClient& runner = gpu().runner;
    struct Case { const char* kind; double timeout; const char* words; };
    for (const Case& c : {Case{"out_of_bounds", 20, "out of bounds"}, Case{"trap", 20, "trapped"}, Case{"hang", 3, "did not finish within 3 s"}}) {
        INFO(c.kind);
        const int startsBefore = runner.starts();
        const nlohmann::json reply = runner.request({{"cmd", "fault"}, {"kind", c.kind}}, c.timeout);
        INFO(reply.dump());
        CHECK_FALSE(reply.value("ok", true));
        CHECK(reply.value("error", std::string()).find(c.words) != std::string::npos);
        // The next request works, on a new runner.
        const RunReport after = gpu().run("reduce", {}, {{"n", "1000"}}, quick(2, 0));
        requireCorrect(after);
        CHECK(runner.starts() == startsBefore + 1);
    }
}

TEST_CASE("a streaming kernel's counted DRAM bytes are the bytes it reads and writes", "[gpu][counters]") {
    // out = x + y over 2^25 floats: 256 MiB read, 128 MiB written, far more than L2 holds.
    const long long n = 1LL << 25;
    const RunReport r = countedRun("map", {{"op", "add"}, {"dtype", "f32"}}, {{"n", std::to_string(n)}});
    const MemoryCountersReport& m = *r.memoryCounters;
    INFO(memoryTrafficText(r));
    CHECK(m.dramReadBytes == Approx(2.0 * n * 4).epsilon(0.05));
    // Writes made during the run: the output lines still dirty in L2 at its end come later.
    CHECK(m.dramWriteBytes <= 1.05 * n * 4);
    CHECK(m.dramWriteBytes >= 1.0 * n * 4 - l2Bytes());
    CHECK(m.l2Bytes >= 0.95 * m.dramBytes());
    // The roofline places the run at FLOPs / counted DRAM bytes, and at FLOPs / L2 bytes.
    const auto points = measuredRooflinePoints(r, "map");
    REQUIRE(points.size() == 2);
    CHECK(points[0].bytesFrom == "dram");
    CHECK(points[0].ai == Approx(r.flops / m.dramBytes()));
    CHECK(points[1].bytesFrom == "l2");
}

TEST_CASE("a tiled GEMM's counted L2 traffic exceeds its DRAM traffic, at least its compulsory bytes", "[gpu][counters]") {
    const RunReport r = countedRun("gemm_mma", {}, {{"M", "4096"}, {"N", "4096"}, {"K", "4096"}});
    const MemoryCountersReport& m = *r.memoryCounters;
    INFO(memoryTrafficText(r));
    // f16 A and B read, f16 C written: the template's bytes are the least any GEMM moves.
    CHECK(m.dramBytes() >= 0.95 * r.bytes);
    CHECK(m.dramWriteBytes <= 1.05 * 4096 * 4096 * 2);
    CHECK(m.dramWriteBytes >= 4096.0 * 4096 * 2 - l2Bytes());
    // Each A and B tile is read by a whole row or column of blocks: L2 serves many times DRAM's bytes.
    CHECK(m.l2Bytes > 4 * m.dramBytes());
}

TEST_CASE("hardware counters and PC sampling in the same run", "[gpu][counters][pc_sampling]") {
    const RunReport r = countedRun("map", {{"op", "add"}, {"dtype", "f32"}}, {{"n", "16777216"}}, 5);
    REQUIRE(r.pcSampling);
    INFO(r.pcSampling->error);
    CHECK(r.pcSampling->error.empty());
    CHECK(r.pcSampling->totalSamples > 0);
    CHECK(r.memoryCounters->dramReadBytes == Approx(2.0 * 16777216 * 4).epsilon(0.05));
}

// [gpu] The matmul ladder: every rung passes its float64 check at awkward sizes (a ragged edge in
// every dimension), then runs at 4096^3 against cuBLAS fp32 timed in the same process; the GFLOP/s
// of each rung are printed, and written as a Markdown table to $KX_LADDER_RESULTS when it is set
// (bench/gpu/ladder_bench.sh is the benchmark with the full method). The ladder must climb: each
// rung from smem_tiles on is faster than the naive one.
#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "run/variant_run.hpp"
#include "templates/template_library.hpp"
#include "util/data_paths.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>

using namespace kx::engine;

namespace {
const char* const kStages[] = {"naive", "coalesced", "smem_tiles", "regtile_1d", "regtile_2d", "vectorised", "warptile"};
}  // namespace

TEST_CASE("gpu: every rung of the matmul ladder is correct, and its GFLOP/s are recorded", "[gpu][ladder]") {
    const ArchDatabase arches = ArchDatabase::loadFromDataRoot(dataRoot());
    const TemplateLibrary templates = TemplateLibrary::load(dataRoot() / "templates");
    RunnerClient runner;
    Compiler compiler(cacheRoot() / "nvrtc");
    const nlohmann::json devices = listDevices(runner);
    INFO(devices.dump());
    REQUIRE(devices.value("ok", false));
    REQUIRE_FALSE(devices["devices"].empty());
    const Arch* arch = arches.findArch(devices["devices"][0]["arch"].get<std::string>());
    REQUIRE(arch);
    const auto t = templates.find("matmul_ladder");
    REQUIRE(t);

    std::string table = fmt::format("| rung | median ms | GFLOP/s | % of cuBLAS f32 (same run) |\n|---|---|---|---|\n");
    double naiveGflops = 0;
    for (const char* stage : kStages) {
        INFO(stage);
        const Config config = t->withValues(t->defaultConfig(), {{"STAGE", stage}});
        const PreparedVariant v = prepareVariant(*t, config, *arch);
        REQUIRE(v.violations.empty());
        const CompileResult compiled = compiler.compile(v.request);
        INFO(compiled.log);
        REQUIRE(compiled.ok);

        RunOptions check;
        check.reps = 3;
        check.warmup = 1;
        const RunReport small = runVariant(runner, *t, config, *arch, {{"M", 127}, {"N", 129}, {"K", 65}}, compiled, check);
        INFO(small.error << " | " << small.correctness.firstBadText);
        REQUIRE(small.ok);
        CHECK(small.correctness.passed);

        RunOptions timed;
        timed.reps = 10;
        timed.timeoutSeconds = 120;  // the naive rung takes a good part of a second per launch
        const RunReport r = runVariant(runner, *t, config, *arch, {{"M", 4096}, {"N", 4096}, {"K", 4096}}, compiled, timed);
        INFO(r.error);
        REQUIRE(r.ok);
        CHECK(r.correctness.passed);
        const BaselineReport* cublas = r.primaryBaseline();
        REQUIRE(cublas);
        const double gflops = r.tflops * 1000;
        if (std::string(stage) == "naive") naiveGflops = gflops;
        else if (std::string(stage) != "coalesced") CHECK(gflops > naiveGflops);
        table += fmt::format("| {} | {:.3f} | {:.0f} | {:.1f}% |\n", stage, r.medianMs, gflops, 100 * cublas->speedup);
    }
    WARN("matmul ladder on " << devices["devices"][0].value("name", "?") << " at 4096^3:\n" << table);
    if (const char* out = std::getenv("KX_LADDER_RESULTS"); out && *out) std::ofstream(out) << table;
}

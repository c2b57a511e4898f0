// Hardware memory counters on the run path, without a GPU: the request asks for them, the reply's
// figures reach the report, survive a session's JSON, and move the roofline's measured points.
#include "../test_support.hpp"
#include "analysis/roofline_scene.hpp"
#include "arch/arch_database.hpp"
#include "run/run_report_json.hpp"
#include "run/variant_run.hpp"
#include "templates/template_library.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <unistd.h>

using namespace kx::engine;
using kx::test::sourceDir;

namespace {

RunReport fakeRun(bool counters, std::vector<nlohmann::json>* requests) {
    const std::filesystem::path log = std::filesystem::temp_directory_path() / ("kx-counters-" + std::to_string(::getpid()) + ".log");
    std::filesystem::remove(log);
    ::setenv("KX_FAKE_RUNNER_LOG", log.c_str(), 1);
    TemplateLibrary library = TemplateLibrary::load(sourceDir() / "templates");
    ArchDatabase arches = ArchDatabase::loadFromDataRoot(sourceDir());
    auto t = library.find("map");
    REQUIRE(t);
    CompileResult compiled;
    compiled.ok = true;
    compiled.cubin = "not a real module";
    SizeMap sizes = t->defaultSizes();
    sizes["n"] = 1000;
    RunOptions options;
    options.memoryCounters = counters;
    options.baseline = false;
    RunnerClient runner(KX_FAKE_RUNNER);
    const RunReport r = runVariant(runner, *t, t->defaultConfig(), *arches.findArch("sm_90"), sizes, compiled, options);
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);)
        if (auto j = nlohmann::json::parse(line); j.value("cmd", "") == "run") requests->push_back(j);
    ::unsetenv("KX_FAKE_RUNNER_LOG");
    std::filesystem::remove(log);
    return r;
}

}  // namespace

TEST_CASE("a run asked for memory counters carries them from the runner's reply to the roofline", "[run][counters]") {
    std::vector<nlohmann::json> requests;
    const RunReport r = fakeRun(true, &requests);
    INFO(r.error);
    REQUIRE(r.ok);
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].value("memory_counters", false));
    REQUIRE(r.memoryCounters);
    // map's default is out = x + y: the stand-in counts 2 x 1000 floats read (and z, one float
    // unused by add), 1000 written.
    CHECK(r.memoryCounters->dramReadBytes == 8004);
    CHECK(r.memoryCounters->dramWriteBytes == 4000);
    CHECK(r.memoryCounters->l2Bytes == 36012);
    CHECK(r.memoryCounters->passes == 1);
    CHECK(memoryTrafficText(r) == "DRAM 8.00 kB read + 4.00 kB written (1.00x the template's 12.0 kB), L2 36.0 kB, L1 48.0 kB in 1 pass");

    // A session stores the report as JSON: the counters read back.
    const RunReport back = runReportFromJson(toJson(r));
    REQUIRE(back.memoryCounters);
    CHECK(back.memoryCounters->dramWriteBytes == 4000);
    CHECK(back.memoryCounters->l1Bytes == 48016);

    // Two measured points: at the counted DRAM bytes and at the counted L2 bytes.
    const std::vector<RooflinePoint> points = measuredRooflinePoints(r, "n=1000");
    REQUIRE(points.size() == 2);
    CHECK(points[0].bytesFrom == "dram");
    CHECK(points[0].ai == Approx(r.flops / 12004.0));
    CHECK(points[1].bytesFrom == "l2");
    CHECK(points[1].ai == Approx(r.flops / 36012.0));
    CHECK(points[0].flopsPerSec == Approx(r.flops / 1e-3));
    CHECK(points[1].label == "n=1000 (L2 bytes counted)");
}

TEST_CASE("without counters, or when they failed, the measured point uses the template's bytes", "[run][counters]") {
    std::vector<nlohmann::json> requests;
    RunReport r = fakeRun(false, &requests);
    REQUIRE(r.ok);
    REQUIRE(requests.size() == 1);
    CHECK_FALSE(requests[0].contains("memory_counters"));
    CHECK_FALSE(r.memoryCounters);
    CHECK(memoryTrafficText(r).empty());
    auto points = measuredRooflinePoints(r, "n=1000");
    REQUIRE(points.size() == 1);
    CHECK(points[0].bytesFrom == "template");
    CHECK(points[0].ai == Approx(r.flops / r.bytes));

    // A runner without CUPTI answers an error; the run stands and the point falls back.
    applyRunReply(nlohmann::json::parse(R"({"device":{"name":"G","arch":"sm_90"},"timing":{"median_ms":1,"min_ms":1,"max_ms":1},
                                           "memory_counters":{"error":"Hardware counters need CUPTI"}})"),
                  r);
    REQUIRE(r.memoryCounters);
    CHECK_FALSE(r.memoryCounters->ok());
    CHECK(memoryTrafficText(r) == "not counted: Hardware counters need CUPTI");
    points = measuredRooflinePoints(r, "n=1000");
    REQUIRE(points.size() == 1);
    CHECK(points[0].bytesFrom == "template");
    CHECK(toJson(r).at("memory_counters") == nlohmann::json{{"error", "Hardware counters need CUPTI"}});

    // A failed run has no point.
    r.ok = false;
    CHECK(measuredRooflinePoints(r, "x").empty());
}

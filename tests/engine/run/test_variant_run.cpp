// The parts of a run that need no GPU: a runner's reply turned into a report, the verdict
// without a reference, and a template's reference judging outputs it computed and corrupted.
#include "../test_support.hpp"
#include "analysis/tile_layout.hpp"
#include "arch/arch_database.hpp"
#include "run/input_fill.hpp"
#include "run/references/map.hpp"
#include "run/run_report_json.hpp"
#include "run/variant_run.hpp"
#include "util/error.hpp"
#include "templates/template_library.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace kx::engine;
using kx::test::sourceDir;

namespace {
const TemplateLibrary& library() {
    static TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "templates");
    return lib;
}
const Arch& sm90() {
    static ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    return *db.findArch("sm_90");
}

// A map run's check context with inputs from the manifest's fill rules and outputs computed by
// the map's own float64 operation, rounded to the output type as a kernel would store them.
CheckContext mapContext(const std::string& op, const std::string& dtypeName, long long n) {
    auto t = library().find("map");
    REQUIRE(t);
    const Config config = t->withValues(t->defaultConfig(), {{"op", op}, {"dtype", dtypeName}});
    SizeMap sizes = t->defaultSizes();
    sizes["n"] = n;
    CheckContext ctx = checkContextFor(*t, config, sm90(), sizes, RunOptions{});
    const auto vars = t->variables(config, sm90(), sizes);
    std::uint64_t stream = 0;
    for (const ResolvedArg& a : t->resolveArgs(config, sm90(), sizes)) {
        if (a.role != "in") continue;
        const DtypeInfo& dtype = dtypeOfCType(a.type);
        ctx.inputs[a.name] = HostArray{&dtype, generateFill(parseFill(a.fill, dtype, vars), dtype, static_cast<size_t>(a.count), ++stream)};
    }
    const DtypeInfo& outType = *ctx.inputs.at("x").dtype;
    HostArray out{&outType, {}};
    const int arity = static_cast<int>(ctx.var("arity"));
    for (long long i = 0; i < n; ++i) {
        const double x = ctx.inputs.at("x")[i];
        const double y = arity >= 2 ? ctx.inputs.at("y")[i] : 0.0;
        const double z = arity >= 3 ? ctx.inputs.at("z")[i] : 0.0;
        out.values.push_back(decodeValues(encodeValues({mapReference(op, x, y, z, ctx.var("ALPHA"))}, outType), outType)[0]);
    }
    ctx.outputs["out"] = std::move(out);
    return ctx;
}
}  // namespace

TEST_CASE("a runner reply becomes timings and baselines on the kernel's scale", "[run][report]") {
    const nlohmann::json reply = nlohmann::json::parse(R"({
        "ok": true, "device": {"name": "NVIDIA H100 80GB HBM3", "arch": "sm_90", "sm_count": 132},
        "timing": {"median_ms": 2.0, "min_ms": 1.9, "max_ms": 2.5}, "reps": 20, "rotation_sets": 1,
        "registers": 40, "driver_blocks_per_sm": 2, "persistent_blocks": 264,
        "baselines": [
            {"id": "cub_scan", "name": "CUB DeviceScan", "timing": {"median_ms": 1.0, "min_ms": 0.9, "max_ms": 1.1}},
            {"id": "copy", "name": "device copy", "error": "out of memory"}
        ]})");
    RunReport report;
    report.flops = 4e9;
    report.bytes = 8e9;
    applyRunReply(reply, report);
    CHECK(report.deviceName == "NVIDIA H100 80GB HBM3");
    CHECK(report.medianMs == 2.0);
    CHECK(report.persistentBlocks == 264);
    CHECK(report.smCount == 132);
    CHECK(report.gbps == Approx(4000));
    // The waves it ran in need the grid, which the host knows (runVariant sets it): 1024 tiles for
    // 264 persistent blocks, two a SM by the driver's count, are four rounds, the last 232 tiles.
    CHECK_FALSE(runWaves(report));
    report.gridBlocks = 1024;
    const std::optional<WaveModel> waves = runWaves(report);
    REQUIRE(waves);
    CHECK(waves->capacity == 264);
    CHECK(waves->rounds() == 4);
    CHECK(wavesSentence(*waves) == "1024 work units on 264 persistent blocks (132 SMs x 2): 4 rounds; 97% of the block slots busy");
    REQUIRE(report.baselines.size() == 2);
    CHECK(report.baselines[0].ok());
    CHECK(report.baselines[0].speedup == Approx(0.5));  // the baseline is twice as fast
    CHECK(report.baselines[0].gbps == Approx(8000));    // the kernel's bytes in the baseline's time
    CHECK_FALSE(report.baselines[1].ok());
    CHECK(report.baselines[1].error == "out of memory");
    REQUIRE(report.primaryBaseline());
    CHECK(report.primaryBaseline()->id == "cub_scan");

    nlohmann::json noTiming = reply;
    noTiming.erase("timing");
    RunReport broken;
    CHECK_THROWS(applyRunReply(noTiming, broken));

    // A launch that was not persistent: no count, and the report says 0.
    nlohmann::json planned = reply;
    planned.erase("persistent_blocks");
    RunReport plain;
    applyRunReply(planned, plain);
    CHECK(plain.persistentBlocks == 0);
    plain.gridBlocks = 288;
    REQUIRE(runWaves(plain));
    CHECK(wavesSentence(*runWaves(plain)) == "288 blocks, 264 at once (132 SMs x 2): 2 waves, the last with 24 blocks (9% of a wave); 55% of the block slots busy");
    CHECK(wavesSentence(*runWaves(plain), true) == "288 blocks in 2 waves of 264, the last 9% full; 55% busy");
    CHECK(wavesSentence(*waves, true) == "1024 units in 4 rounds of 264 blocks; 97% busy");

    // Found by fuzzing: a float beyond int's range as an integer field was converted with
    // undefined behaviour; it is refused as a malformed reply.
    for (const char* key : {"reps", "rotation_sets", "registers", "driver_blocks_per_sm", "persistent_blocks"}) {
        nlohmann::json huge = reply;
        huge[key] = 4.2e77;
        CHECK_THROWS_AS(applyRunReply(huge, broken), kx::engine::InputError);
        huge[key] = 3000000000LL;
        CHECK_THROWS_AS(applyRunReply(huge, broken), kx::engine::InputError);
    }
    nlohmann::json hugeDevice = reply;
    hugeDevice["device"]["sm_count"] = 4.2e77;
    CHECK_THROWS_AS(applyRunReply(hugeDevice, broken), kx::engine::InputError);
}

TEST_CASE("a run says its share of its own GPU's roof, and keeps it through JSON", "[run][report][roofline]") {
    static const ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    const Arch& sm90a = *db.findArch("sm_90a");
    RunReport report;
    report.deviceName = "NVIDIA H200";
    report.tflops = 742.2;   // an f16 wgmma GEMM
    report.gbps = 544;
    applyRoofShare(db, sm90a, "fp16_tensor", std::nullopt, report);
    REQUIRE(report.pctOfRoof);
    const DeviceSpec* h200 = db.findDevice("h200_sxm");
    REQUIRE(h200);
    CHECK(*report.pctOfRoof == Approx(100.0 * 742.2 / h200->peakTflops.at("fp16_tensor")));
    CHECK(report.roofName == "FP16 tensor roof, NVIDIA H200 SXM 141GB datasheet");

    // A copy-like kernel on the same GPU: its share of the DRAM bandwidth; with a calibration,
    // of the measured copy bandwidth.
    RunReport copy;
    copy.deviceName = "NVIDIA H200";
    copy.gbps = 4000;
    applyRoofShare(db, sm90a, "fp32", std::nullopt, copy);
    REQUIRE(copy.pctOfRoof);
    CHECK(*copy.pctOfRoof == Approx(100.0 * 4000 / h200->memBandwidthGBs));
    Calibration cal;
    cal.device = "NVIDIA H200";
    cal.copyGBs = 4200;
    applyRoofShare(db, sm90a, "fp32", cal, copy);
    CHECK(*copy.pctOfRoof == Approx(100.0 * 4000 / 4200));
    CHECK(copy.roofName == "DRAM roof, NVIDIA H200 SXM 141GB measured");

    const RunReport back = runReportFromJson(toJson(report));
    REQUIRE(back.pctOfRoof);
    CHECK(*back.pctOfRoof == Approx(*report.pctOfRoof));
    CHECK(back.roofName == report.roofName);

    // A GPU of another compute capability than the arch's has no datasheet here: nothing said.
    RunReport other;
    other.deviceName = "NVIDIA A100-SXM4-80GB";
    other.tflops = 100;
    applyRoofShare(db, sm90a, "fp16_tensor", std::nullopt, other);
    CHECK_FALSE(other.pctOfRoof);
}

TEST_CASE("a template without a reference is reported unchecked, not failed", "[run][report]") {
    CorrectnessReport r;
    checkOutputs("", CheckContext{}, r);
    CHECK(r.verdict() == Verdict::NoReference);
    CHECK(std::string(verdictText(r.verdict())) == "NO REFERENCE");

    CorrectnessReport unknown;
    checkOutputs("no_such_reference", CheckContext{}, unknown);
    CHECK(unknown.verdict() == Verdict::NoReference);
    CHECK_FALSE(unknown.method.empty());
}

TEST_CASE("every shipped template names a registered reference", "[run][templates]") {
    REQUIRE(library().templates().size() >= 11);
    for (const auto& t : library().templates()) {
        INFO(t->id());
        CHECK(findReference(t->manifest().referenceName) != nullptr);
    }
}

TEST_CASE("the map reference passes the right outputs and catches one wrong element", "[run][map]") {
    for (const char* op : {"add", "saxpy", "gelu", "fma"}) {
        for (const char* dtype : {"f32", "bf16"}) {
            INFO(op << " " << dtype);
            CheckContext ctx = mapContext(op, dtype, 1009);
            CorrectnessReport good;
            checkOutputs("map", ctx, good);
            INFO(good.firstBadText);
            CHECK(good.verdict() == Verdict::Pass);
            CHECK(good.checked == 1009);

            // A kernel that got one element wrong by a few storage ulps, one that skipped the
            // last element (left poisoned with NaN).
            CheckContext off = ctx;
            double& v = off.outputs.at("out").values[500];
            v = v + std::fabs(v) * 8 * off.outputs.at("out").dtype->unitRoundoff + 1e-3;
            CorrectnessReport bad;
            checkOutputs("map", off, bad);
            CHECK(bad.verdict() == Verdict::Fail);
            CHECK(bad.firstBadIndex == 500);

            CheckContext poisoned = ctx;
            poisoned.outputs.at("out").values.back() = std::nan("");
            CorrectnessReport skipped;
            checkOutputs("map", poisoned, skipped);
            CHECK(skipped.verdict() == Verdict::Fail);
            CHECK(skipped.firstBadIndex == 1008);
        }
    }
}

TEST_CASE("map outputs in the f16 subnormal range are judged by the storage step, not relatively", "[run][map]") {
    CheckContext ctx = mapContext("scale", "f16", 1009);
    const DtypeInfo& f16 = *ctx.outputs.at("out").dtype;
    // x such that 1.5 x = 3.9071e-05 (below f16's smallest normal, 6.1e-05): the stored result
    // is the nearest multiple of 2^-24, 1/3 of a subnormal step away in relative terms.
    const double x = decodeValues(encodeValues({2.6047e-05}, f16), f16)[0];
    ctx.inputs.at("x").values[7] = x;
    ctx.outputs.at("out").values[7] = decodeValues(encodeValues({1.5 * x}, f16), f16)[0];
    CorrectnessReport good;
    checkOutputs("map", ctx, good);
    INFO(good.firstBadText);
    CHECK(good.verdict() == Verdict::Pass);

    // Two steps off is a wrong result however small.
    ctx.outputs.at("out").values[7] += 2 * f16.subnormalStep;
    CorrectnessReport bad;
    checkOutputs("map", ctx, bad);
    CHECK(bad.verdict() == Verdict::Fail);
    CHECK(bad.firstBadIndex == 7);
}

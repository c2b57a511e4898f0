// Roofline model cases worked by hand from an H100 SXM spec built in code (datasheet figures:
// 3350 GB/s HBM3, 67 TFLOP/s FP32, 989.5 TFLOP/s dense FP16 tensor), so the test does not
// depend on assets/devices.
#include "analysis/roofline.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

using namespace kx::engine;
using Approx = Catch::Detail::Approx;

namespace {

DeviceSpec h100() {
    DeviceSpec d;
    d.id = "h100_sxm";
    d.name = "NVIDIA H100 SXM5 80GB";
    d.arch = "sm_90";
    d.memBandwidthGBs = 3350;
    d.l2Bytes = 50LL << 20;
    d.peakTflops = {{"fp32", 67}, {"fp16_tensor", 989.5}, {"fp64", 34}};
    return d;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

bool hasLine(const std::vector<std::string>& ls, const std::string& l) {
    return std::find(ls.begin(), ls.end(), l) != ls.end();
}

}  // namespace

TEST_CASE("roofline: datasheet ceilings in SI units, no L2 ceiling without a bandwidth", "[roofline]") {
    const RooflineModel m(h100());
    REQUIRE(m.memoryCeilings().size() == 1);
    CHECK(m.memoryCeilings()[0].id == "dram");
    CHECK(m.memoryCeilings()[0].value == Approx(3.35e12));
    CHECK(m.memory("l2") == nullptr);
    REQUIRE(m.computeCeilings().size() == 3);
    // Sorted slowest first.
    CHECK(m.computeCeilings()[0].id == "fp64");
    CHECK(m.computeCeilings()[2].id == "fp16_tensor");
    REQUIRE(m.compute("fp32") != nullptr);
    CHECK(m.compute("fp32")->value == Approx(67e12));
    CHECK(m.compute("fp32")->label == "FP32");
    CHECK(m.compute("fp32", CeilingSource::Measured) == nullptr);
}

TEST_CASE("roofline: ridge points are peak / DRAM bandwidth", "[roofline]") {
    const RooflineModel m(h100());
    const auto ridges = m.ridgePoints();
    REQUIRE(ridges.size() == 3);
    auto find = [&](const std::string& unit) {
        for (const auto& r : ridges) {
            if (r.computeId == unit) return r;
        }
        FAIL("no ridge for " << unit);
        return RidgePoint{};
    };
    // 67e12 / 3.35e12 = 20 FLOP/byte; 989.5e12 / 3.35e12 = 295.37...
    CHECK(find("fp32").ai == Approx(20.0));
    CHECK(find("fp16_tensor").ai == Approx(295.3731).epsilon(1e-6));
    CHECK(find("fp64").ai == Approx(34.0 / 3.35));
    CHECK(find("fp32").memoryId == "dram");
}

TEST_CASE("roofline: attainable is min(peak, ai x bandwidth)", "[roofline]") {
    const RooflineModel m(h100());
    CHECK(m.attainable(1.0, "fp32") == Approx(3.35e12));      // memory bound
    CHECK(m.attainable(10.0, "fp32") == Approx(33.5e12));
    CHECK(m.attainable(20.0, "fp32") == Approx(67e12));       // the ridge
    CHECK(m.attainable(1000.0, "fp32") == Approx(67e12));     // compute bound
    CHECK(m.attainable(100.0, "fp16_tensor") == Approx(335e12));
    CHECK(m.attainable(0.0, "fp32") == 0.0);
    CHECK_THROWS_AS(m.attainable(1.0, "int8_tensor"), InputError);
    CHECK_THROWS_AS(m.attainable(1.0, "fp32", CeilingSource::Measured), InputError);
}

TEST_CASE("roofline: a device without bandwidth has no ridge and no attainable", "[roofline]") {
    DeviceSpec d = h100();
    d.memBandwidthGBs = 0;
    const RooflineModel m(d);
    CHECK(m.memoryCeilings().empty());
    CHECK(m.ridgePoints().empty());
    CHECK_THROWS_AS(m.attainable(1.0, "fp32"), InputError);
}

TEST_CASE("roofline: measured ceilings are separate and use the measured bandwidth", "[roofline]") {
    RooflineCalibration cal;
    cal.copyGBs = 2900;
    cal.peakTflops = {{"fp32", 51}, {"fp16_tensor", 700}};
    const RooflineModel m(h100(), cal);
    REQUIRE(m.memoryCeilings().size() == 2);
    REQUIRE(m.memory("dram", CeilingSource::Measured) != nullptr);
    CHECK(m.memory("dram", CeilingSource::Measured)->label == "DRAM (measured)");
    CHECK(m.compute("fp32", CeilingSource::Measured)->label == "FP32 (measured)");
    // The datasheet ceiling is untouched.
    CHECK(m.compute("fp32")->value == Approx(67e12));
    CHECK(m.attainable(10.0, "fp32", CeilingSource::Measured) == Approx(29e12));
    CHECK(m.attainable(100.0, "fp32", CeilingSource::Measured) == Approx(51e12));
    CHECK(m.ridgePoints().size() == 5);
    for (const auto& r : m.ridgePoints()) {
        if (r.computeId == "fp32" && r.source == CeilingSource::Measured) CHECK(r.ai == Approx(51.0 / 2.9));
    }
}

TEST_CASE("roofline: measured compute without a measured copy falls back to datasheet DRAM", "[roofline]") {
    RooflineCalibration cal;
    cal.peakTflops = {{"fp32", 50.25}};
    const RooflineModel m(h100(), cal);
    CHECK(m.memoryCeilings().size() == 1);
    CHECK(m.attainable(1.0, "fp32", CeilingSource::Measured) == Approx(3.35e12));
    CHECK(m.attainable(100.0, "fp32", CeilingSource::Measured) == Approx(50.25e12));
}

TEST_CASE("roofline: a run's share of the roof is its throughput over the attainable at its intensity", "[roofline]") {
    const RooflineModel m(h100());
    // A GEMM at 742 TFLOP/s moving 544 GB/s (intensity 1364): compute bound on the FP16 tensor roof.
    auto gemm = roofShare(m, "fp16_tensor", 742e12, 544e9);
    REQUIRE(gemm);
    CHECK(gemm->percent == Approx(100.0 * 742 / 989.5));
    CHECK(gemm->bound.id == "fp16_tensor");
    CHECK(gemm->bound.source == CeilingSource::Datasheet);
    // The same share as attainable() gives: throughput / min(peak, ai x bandwidth).
    CHECK(gemm->percent == Approx(100.0 * 742e12 / m.attainable(742e12 / 544e9, "fp16_tensor")));
    // A reduction at 3000 GB/s and 0.75 TFLOP/s (intensity 0.25): bound by DRAM.
    auto reduce = roofShare(m, "fp32", 0.75e12, 3000e9);
    REQUIRE(reduce);
    CHECK(reduce->bound.id == "dram");
    CHECK(reduce->percent == Approx(100.0 * 3000 / 3350));
    CHECK(reduce->percent == Approx(100.0 * 0.75e12 / m.attainable(0.25, "fp32")));
    // A transpose does no arithmetic: its bandwidth share alone.
    auto transpose = roofShare(m, "fp32", 0, 2680e9);
    REQUIRE(transpose);
    CHECK(transpose->percent == Approx(80.0));
    // A unit the device does not list is measured against the CUDA cores' FP32.
    auto unknown = roofShare(m, "int8_tensor", 33.5e12, 1e9);
    REQUIRE(unknown);
    CHECK(unknown->bound.id == "fp32");
    CHECK(unknown->percent == Approx(50.0));
    // No rate, no share.
    CHECK_FALSE(roofShare(m, "fp32", 0, 0));
}

TEST_CASE("roofline: a run's share of the roof takes each measured ceiling where there is one", "[roofline]") {
    RooflineCalibration cal;
    cal.peakTflops = {{"fp16_tensor", 700}};  // no copy bandwidth measured
    const RooflineModel m(h100(), cal);
    auto gemm = roofShare(m, "fp16_tensor", 630e12, 1e9);
    REQUIRE(gemm);
    CHECK(gemm->bound.source == CeilingSource::Measured);
    CHECK(gemm->percent == Approx(90.0));
    auto copy = roofShare(m, "fp32", 0, 3350e9);
    REQUIRE(copy);
    CHECK(copy->bound.source == CeilingSource::Datasheet);
    CHECK(copy->percent == Approx(100.0));
}

TEST_CASE("roofline: predicted point is intensity only, and placeOnRoof lifts it", "[roofline]") {
    // 4096^3 SGEMM: 2*4096^3 FLOP over 3*4096^2*4 bytes = 682.67 FLOP/byte.
    const double n = 4096;
    const RooflinePoint p = predictedPoint("gemm_f32", 2 * n * n * n, 3 * n * n * 4);
    CHECK(p.ai == Approx(2 * n / 12));
    CHECK(p.flopsPerSec == 0);
    CHECK(p.kind == PointKind::Predicted);
    const RooflineModel m(h100());
    CHECK(placeOnRoof(m, p, "fp32").flopsPerSec == Approx(67e12));
    // A vector add: 1 FLOP per 12 bytes, memory bound.
    const RooflinePoint v = placeOnRoof(m, predictedPoint("vadd", 1e6, 12e6), "fp32");
    CHECK(v.flopsPerSec == Approx(3.35e12 / 12));
    CHECK_THROWS_AS(predictedPoint("x", 1, 0), InputError);
}

TEST_CASE("roofline: gemm dtypes map to units", "[roofline]") {
    CHECK(unitForGemmDtype("f32") == "fp32");
    CHECK(unitForGemmDtype("f16") == "fp16_tensor");
    CHECK(unitForGemmDtype("bf16") == "bf16_tensor");
    CHECK(unitForGemmDtype("tf32") == "tf32_tensor");
    CHECK(unitForGemmDtype("q4").empty());
    CHECK(unitLabel("int8_tensor") == "INT8 tensor");
}

TEST_CASE("roofline: CSV lists ceilings, ridges and points", "[roofline]") {
    RooflineCalibration cal;
    cal.copyGBs = 2900;
    const RooflineModel m(h100(), cal);
    std::vector<RooflinePoint> pts = {placeOnRoof(m, predictedPoint("gemm_f32_128x128", 2048, 64), "fp32"),
                                      {"run, 1", 16.0, 40e12, PointKind::Measured},
                                      predictedPoint("unplaced", 10, 5)};
    const auto ls = lines(rooflineCsv(m, pts));
    REQUIRE(!ls.empty());
    CHECK(ls[0] == "type,id,label,source,bandwidth_gbs,peak_tflops,ai_flop_per_byte,tflops");
    CHECK(hasLine(ls, "memory,dram,DRAM,datasheet,3350,,,"));
    CHECK(hasLine(ls, "memory,dram,DRAM (measured),measured,2900,,,"));
    CHECK(hasLine(ls, "compute,fp32,FP32,datasheet,,67,,"));
    CHECK(hasLine(ls, "compute,fp16_tensor,FP16 tensor,datasheet,,989.5,,"));
    CHECK(hasLine(ls, "ridge,fp32,FP32 ridge,datasheet,,,20,67"));
    // 2048/64 = 32 FLOP/byte: past the FP32 ridge, so on the flat roof.
    CHECK(hasLine(ls, "point,,gemm_f32_128x128,predicted,,,32,67"));
    CHECK(hasLine(ls, "point,,\"run, 1\",measured,,,16,40"));
    CHECK(hasLine(ls, "point,,unplaced,predicted,,,2,"));
    // header + 2 memory + 3 compute + 3 ridges + 3 points
    CHECK(ls.size() == 12);
}

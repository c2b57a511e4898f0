// Calibrations on disk and their mapping to the roofline's measured ceilings. Figures are those of
// a real H100 calibration (bench/results/nvidia-h100-80gb-hbm3/calibration.json).
#include "analysis/roofline.hpp"
#include "run/calibration.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <unistd.h>

using namespace kx::engine;
namespace fs = std::filesystem;

namespace {

Calibration h100() {
    Calibration c;
    c.device = "NVIDIA H100 80GB HBM3";
    c.measuredAt = "2025-11-20T10:00:00Z";
    c.copyGBs = 3009.2310822910167;
    c.computeTflops = {{"bf16", 810.7344930850184}, {"f16", 813.2289938921036}, {"f32", 51.1735113467276},
                       {"tf32", 417.00990130718156}};
    c.gemmSize = 8192;
    return c;
}

// Points KX_CACHE_DIR at a fresh folder for the test's lifetime, then restores it.
class ScopedCacheDir {
public:
    ScopedCacheDir() {
        if (const char* old = std::getenv("KX_CACHE_DIR")) m_old = old;
        m_dir = fs::temp_directory_path() / ("kx-calibration-test-" + std::to_string(::getpid()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        ::setenv("KX_CACHE_DIR", m_dir.c_str(), 1);
    }
    ~ScopedCacheDir() {
        if (m_old) ::setenv("KX_CACHE_DIR", m_old->c_str(), 1);
        else ::unsetenv("KX_CACHE_DIR");
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }
    const fs::path& dir() const { return m_dir; }

private:
    fs::path m_dir;
    std::optional<std::string> m_old;
};

}  // namespace

TEST_CASE("a calibration maps to the roofline's measured ceilings", "[calibration]") {
    const RooflineCalibration r = rooflineCalibration(h100());
    CHECK(r.copyGBs == Approx(3009.2310822910167));
    CHECK(r.l2GBs == 0);
    REQUIRE(r.peakTflops.size() == 4);
    CHECK(r.peakTflops.at("fp32") == Approx(51.1735113467276));
    CHECK(r.peakTflops.at("tf32_tensor") == Approx(417.00990130718156));
    CHECK(r.peakTflops.at("fp16_tensor") == Approx(813.2289938921036));
    CHECK(r.peakTflops.at("bf16_tensor") == Approx(810.7344930850184));

    Calibration odd = h100();
    odd.computeTflops["mystery"] = 5;  // no unit: left out
    odd.computeTflops["f32"] = 0;      // not measured: left out
    const RooflineCalibration o = rooflineCalibration(odd);
    CHECK(o.peakTflops.count("fp32") == 0);
    CHECK(o.peakTflops.count("mystery") == 0);
    CHECK(o.peakTflops.size() == 3);
}

TEST_CASE("the measured ceilings reach the roofline model", "[calibration]") {
    DeviceSpec spec;
    spec.id = "h100_sxm";
    spec.name = "NVIDIA H100 SXM5 80GB";
    spec.arch = "sm_90";
    spec.memBandwidthGBs = 3350;
    spec.peakTflops = {{"fp32", 66.9}, {"fp16_tensor", 989.5}};
    const RooflineModel model(spec, rooflineCalibration(h100()));
    const RooflineCeiling* fp16 = model.compute("fp16_tensor", CeilingSource::Measured);
    REQUIRE(fp16 != nullptr);
    CHECK(fp16->value == Approx(813.2289938921036e12));
    CHECK(fp16->label.find("measured") != std::string::npos);
    const RooflineCeiling* dram = model.memory("dram", CeilingSource::Measured);
    REQUIRE(dram != nullptr);
    CHECK(dram->value == Approx(3009.2310822910167e9));
}

TEST_CASE("listCalibrations reads every calibration in the cache folder", "[calibration]") {
    ScopedCacheDir cache;
    CHECK(listCalibrations().empty());  // no folder yet

    saveCalibration(h100());
    Calibration mi = h100();
    mi.device = "AMD Instinct MI300X";
    mi.copyGBs = 4000;
    mi.computeTflops = {{"f16", 700}};
    saveCalibration(mi);
    // Not calibrations: malformed JSON, another extension, a leftover temporary file.
    std::ofstream(cache.dir() / "calibration" / "broken.json") << "{ not json";
    std::ofstream(cache.dir() / "calibration" / "notes.txt") << "hello";
    std::ofstream(cache.dir() / "calibration" / "x.json.tmp") << "{}";

    const std::vector<Calibration> all = listCalibrations();
    REQUIRE(all.size() == 2);
    CHECK(all[0].device == "AMD Instinct MI300X");  // sorted by device name
    CHECK(all[1].device == "NVIDIA H100 80GB HBM3");
    CHECK(all[1].measuredAt == "2025-11-20T10:00:00Z");
    CHECK(all[1].copyGBs == Approx(3009.2310822910167));
    CHECK(all[1].computeTflops.at("tf32") == Approx(417.00990130718156));
    CHECK(all[1].gemmSize == 8192);
    REQUIRE(loadCalibration("NVIDIA H100 80GB HBM3"));
}

TEST_CASE("saveCalibration reports a write that fails instead of losing it", "[calibration][reliability]") {
    ScopedCacheDir cache;
    const Calibration c = h100();
    const fs::path file = calibrationPath(c.device);
    fs::create_directories(file.parent_path());
    // The calibration file is a link to /dev/full: every write fails with "No space left on device".
    fs::create_symlink("/dev/full", file);
    CHECK_THROWS_WITH(saveCalibration(c), Catch::Contains("cannot write " + file.string()) && Catch::Contains("No space left"));
    CHECK(fs::is_character_file("/dev/full"));
    fs::remove(file);
    saveCalibration(c);
    const auto back = loadCalibration(c.device);
    REQUIRE(back);
    CHECK(back->copyGBs == Approx(c.copyGBs));
}

TEST_CASE("a calibration reads back, and files with the older gemm_tflops key still load", "[calibration]") {
    const nlohmann::json j = calibrationToJson(h100());
    CHECK(j.contains("compute_tflops"));
    CHECK_FALSE(j.contains("gemm_tflops"));
    CHECK(calibrationFromJson(j).computeTflops == h100().computeTflops);

    nlohmann::json older = j;
    older["gemm_tflops"] = older["compute_tflops"];
    older.erase("compute_tflops");
    const Calibration c = calibrationFromJson(older);
    CHECK(c.computeTflops.at("f16") == Approx(813.2289938921036));
    CHECK(c.gemmSize == 8192);

    older.erase("gemm_tflops");
    CHECK_THROWS(calibrationFromJson(older));
}

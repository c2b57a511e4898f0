// kx roofline: the scene the app's Roofline panel draws, as JSON, CSV and text.
#include "kx_process.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace kx::test;

TEST_CASE("kx roofline --json: device of the arch, the kernel's roof, the tile traffic model", "[cli][roofline]") {
    const Outcome small = runKx("roofline gemm --arch sm_90 --set BM=64,WM=32,WN=64 --no-measured --json");
    const Outcome large = runKx("roofline gemm --arch sm_90 --set BM=128 --no-measured --json");
    INFO(small.err << large.err);
    REQUIRE(small.exitCode == 0);
    REQUIRE(large.exitCode == 0);
    const nlohmann::json a = nlohmann::json::parse(small.out);
    const nlohmann::json b = nlohmann::json::parse(large.out);
    CHECK(b["device"]["id"] == "h100_sxm");
    CHECK(b["device"]["follows_arch"] == true);
    REQUIRE(b["ceilings"].size() == 2);  // DRAM and FP32: a SIMT kernel has no tensor roof
    CHECK(b["ceilings"][0]["id"] == "dram");
    CHECK(b["ceilings"][1]["id"] == "fp32");
    CHECK(b["ceilings"][1]["emphasised"] == true);
    CHECK(b["predicted"]["unit"] == "fp32");
    CHECK(b["predicted"]["traffic_model"] == "manifest");
    CHECK(b["predicted"]["tflops"].get<double>() == Approx(67));
    CHECK(b["predicted"]["ai"].get<double>() > a["predicted"]["ai"].get<double>() * 1.5);
    CHECK(b["predicted"]["traffic_bytes"].get<double>() >= b["predicted"]["compulsory_bytes"].get<double>());
}

TEST_CASE("kx roofline: an arch without a listed device says so, and a bad device exits 2", "[cli][roofline]") {
    const Outcome none = runKx("roofline reduce --arch sm_50 --no-measured --json");
    REQUIRE(none.exitCode == 0);
    const nlohmann::json doc = nlohmann::json::parse(none.out);
    CHECK(doc["device"].is_null());
    CHECK(doc["device_note"].get<std::string>().find("sm_50") != std::string::npos);
    const Outcome bad = runKx("roofline gemm --arch sm_90 --device nope");
    CHECK(bad.exitCode == 2);
    CHECK(bad.err.find("unknown device 'nope'") != std::string::npos);
    const Outcome csv = runKx("roofline gemm --arch sm_90 --no-measured --csv");
    REQUIRE(csv.exitCode == 0);
    CHECK(csv.out.find("point,,gemm_f16_rcr_128x128x32") != std::string::npos);
}

TEST_CASE("kx roofline names the templates of the same problem with a higher roof", "[cli][roofline]") {
    const Outcome text = runKx("roofline gemm --arch sm_90 --no-measured");
    INFO(text.err);
    REQUIRE(text.exitCode == 0);
    CHECK(text.out.find("higher roof gemm_mma on sm_90: FP16 tensor 989.5 TFLOP/s, 14.8x this kernel's "
                        "(kx roofline gemm_mma --arch sm_90 --set dtype=f16,layout=rcr)") != std::string::npos);
    CHECK(text.out.find("higher roof gemm_wgmma on sm_90a") != std::string::npos);
    const Outcome json = runKx("roofline gemm --arch sm_90 --no-measured --json");
    REQUIRE(json.exitCode == 0);
    const nlohmann::json doc = nlohmann::json::parse(json.out);
    REQUIRE(doc["higher_roofs"].size() == 2);
    CHECK(doc["higher_roofs"][1]["template"] == "gemm_wgmma");
    CHECK(doc["higher_roofs"][1]["arch"] == "sm_90a");
    CHECK(doc["higher_roofs"][1]["values"]["dtype"] == "f16");
    // The tensor-core GEMM is already on the highest roof of its dtype.
    const Outcome top = runKx("roofline gemm_wgmma --arch sm_90a --no-measured");
    REQUIRE(top.exitCode == 0);
    CHECK(top.out.find("higher roof") == std::string::npos);
}

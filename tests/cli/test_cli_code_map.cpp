// kx compile --emit map (source line -> PTX lines -> SASS lines) and kx occupancy --json.
#include "kx_process.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>

using namespace kx::test;

namespace {

bool haveNvdisasm() {
    return std::filesystem::exists("/usr/local/cuda/bin/nvdisasm") || std::system("command -v nvdisasm >/dev/null 2>&1") == 0;
}

}  // namespace

TEST_CASE("kx compile --emit map links each source line to its PTX and SASS lines", "[cli][map]") {
    const Outcome text = runKx("compile gemm --arch sm_90 --emit map");
    INFO(text.err);
    REQUIRE(text.exitCode == 0);
    CHECK(text.out.rfind("LINE", text.out.find_first_not_of(' ')) != std::string::npos);
    // The inner loop's line, with its fmaf, appears as a row.
    CHECK(text.out.find("acc[i][j] = fmaf(") != std::string::npos);

    const Outcome json = runKx("compile gemm --arch sm_90 --emit map --json");
    INFO(json.err);
    REQUIRE(json.exitCode == 0);
    const nlohmann::json doc = nlohmann::json::parse(json.out);
    const bool sass = haveNvdisasm();
    CHECK(doc.at("sass").get<bool>() == sass);
    const nlohmann::json* fmaLine = nullptr;
    for (const nlohmann::json& line : doc.at("lines"))
        if (line.at("source").get<std::string>().find("acc[i][j] = fmaf(") != std::string::npos) fmaLine = &line;
    REQUIRE(fmaLine != nullptr);
    int fma = 0;
    for (const nlohmann::json& p : fmaLine->at("ptx")) fma += p.at("text").get<std::string>().rfind("fma.rn.f32", 0) == 0 ? 1 : 0;
    CHECK(fma >= 64);  // an 8x8 thread tile: one fma per accumulator per step of the unrolled k slice
    if (!sass) {
        WARN("nvdisasm is absent: SASS lines not checked");
        return;
    }
    int ffma = 0;
    for (const nlohmann::json& s : fmaLine->at("sass")) {
        ffma += s.at("text").get<std::string>().find("FFMA") != std::string::npos ? 1 : 0;
        CHECK(s.at("control").get<std::string>().size() == std::string("----:B------:R-:W-:-:S01").size());
        CHECK(s.at("live_registers").get<int>() > 0);
    }
    CHECK(ffma == fma);  // ptxas kept every fma as one FFMA
    CHECK(fmaLine->at("counts").at("fp32").get<int>() == ffma);
    CHECK(fmaLine->at("counts_from") == "sass");
    CHECK(doc.at("peak_live_registers").get<int>() > 64);
}

TEST_CASE("kx compile --emit map refuses what it cannot map", "[cli][map]") {
    const Outcome amd = runKx("compile gemm --arch gfx942 --lang cuda --emit map");
    CHECK(amd.exitCode == 2);
    const Outcome bad = runKx("compile gemm --arch sm_90 --emit maps");
    CHECK(bad.exitCode == 2);
    CHECK(bad.err.find("map") != std::string::npos);
}

TEST_CASE("kx occupancy --json gives one launch's result", "[cli][occupancy]") {
    const Outcome nv = runKx("occupancy --arch sm_90 --regs 128 --block 256 --json");
    INFO(nv.err);
    REQUIRE(nv.exitCode == 0);
    const nlohmann::json a = nlohmann::json::parse(nv.out);
    CHECK(a.at("arch") == "sm_90");
    CHECK(a.at("blocks_per_sm") == 2);
    CHECK(a.at("active_warps_per_sm") == 16);
    CHECK(a.at("occupancy").get<double>() == Approx(0.25));
    CHECK(a.at("limited_by") == nlohmann::json::array({"registers"}));
    CHECK(a.at("block_limits").at("registers") == 2);

    const Outcome amd = runKx("occupancy --arch gfx942 --regs 128 --block 256 --json");
    INFO(amd.err);
    REQUIRE(amd.exitCode == 0);
    const nlohmann::json b = nlohmann::json::parse(amd.out);
    CHECK(b.at("vendor") == "amd");
    CHECK(b.at("workgroups_per_cu").get<int>() > 0);

    const Outcome both = runKx("occupancy --csv - --json < /dev/null");
    CHECK(both.exitCode == 2);
    CHECK(both.err.find("--json") != std::string::npos);
}

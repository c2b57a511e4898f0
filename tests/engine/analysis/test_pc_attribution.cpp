// PC samples (function, offset) joined to the lines of a SASS listing.
#include "analysis/pc_attribution.hpp"
#include "run/run_report_json.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

using namespace kx::engine;

namespace {

// Two functions in nvdisasm's layout: headers, labels, blank lines and instruction lines.
const char* kNvdisasm = R"(	.target	sm_90

//--------------------- .text.second --------------------------
	.section	.text.second,"ax",@progbits
second:
.text.second:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   EXIT ;
.L_x_1:
        /*0020*/                   BRA `(.L_x_1);
//--------------------- .text.first --------------------------
.text.first:
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   LDG.E R2, desc[UR4][R2.64] ;
        /*0020*/                   FADD R2, R2, 1 ;
)";

PcSample sample(const std::string& function, long long offset, long long samples, std::map<std::string, long long> stalls) {
    return PcSample{function, offset, samples, std::move(stalls)};
}

}  // namespace

TEST_CASE("sassSites reads every instruction line with its function and offset", "[pc_sampling]") {
    const std::vector<SassSite> sites = sassSites(kNvdisasm);
    REQUIRE(sites.size() == 6);
    CHECK(sites[0].function == "second");
    CHECK(sites[0].offset == 0);
    CHECK(sites[0].line == 6);
    CHECK(sites[2].offset == 0x20);
    CHECK(sites[2].line == 9);
    CHECK(sites[4].function == "first");
    CHECK(sites[4].offset == 0x10);
    CHECK(sites[4].line == 13);
}

TEST_CASE("sassSites reads cuobjdump's layout", "[pc_sampling]") {
    const char* listing = "\t\tFunction : k\n\t.headerflags\t@\"EF_CUDA_SM90\"\n"
                          "        /*0000*/                   MOV R1, c[0x0][0x28] ;          /* 0x00000a0000017a02 */\n"
                          "                                                                   /* 0x000fe40000000f00 */\n"
                          "        /*0010*/                   EXIT ;\n";
    const std::vector<SassSite> sites = sassSites(listing);
    REQUIRE(sites.size() == 2);  // the encoding-only continuation line is no instruction
    CHECK(sites[0].function == "k");
    CHECK(sites[1].offset == 0x10);
    CHECK(sites[1].line == 4);
}

TEST_CASE("samples land on their SASS line, per function, and strays are counted", "[pc_sampling]") {
    PcSamplingReport report;
    report.pcs = {sample("first", 0x10, 70, {{"long_scoreboard", 60}, {"long_scoreboard_not_issued", 60}, {"selected", 10}}),
                  sample("second", 0x10, 5, {{"selected", 5}}),
                  sample("first", 0x10, 30, {{"long_scoreboard", 30}}),
                  sample("elsewhere", 0x0, 9, {{"selected", 9}})};
    long long unplaced = 0;
    const std::vector<LineSamples> lines = samplesPerSassLine(report, kNvdisasm, &unplaced);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].line == 7);  // second+0x10: EXIT
    CHECK(lines[0].samples == 5);
    CHECK(lines[1].line == 13);  // first+0x10: LDG
    CHECK(lines[1].samples == 100);
    CHECK(lines[1].stalls.at("long_scoreboard") == 90);
    CHECK(unplaced == 9);
    const auto top = topStalls(lines[1], 5);
    REQUIRE(top.size() == 2);  // the _not_issued subset is left out
    CHECK(top[0] == std::make_pair(std::string("long_scoreboard"), 90LL));
    CHECK(top[1].first == "selected");
}

TEST_CASE("a PC sampling report survives JSON both ways, and a failed one keeps its reason", "[pc_sampling]") {
    PcSamplingReport report;
    report.period = 9;
    report.runs = 4;
    report.totalSamples = 123;
    report.pcs = {sample("k", 0x80, 123, {{"barrier", 100}, {"selected", 23}})};
    const PcSamplingReport back = pcSamplingReportFromJson(toJson(report));
    CHECK(back.period == 9);
    CHECK(back.totalSamples == 123);
    REQUIRE(back.pcs.size() == 1);
    CHECK(back.pcs[0].offset == 0x80);
    CHECK(back.pcs[0].stalls.at("barrier") == 100);

    PcSamplingReport failed;
    failed.error = "no permission";
    CHECK(pcSamplingReportFromJson(toJson(failed)).error == "no permission");
    CHECK_THROWS(pcSamplingReportFromJson(nlohmann::json::parse(R"({"pcs": 3})")));
}

TEST_CASE("a run report whose integer fields hold huge floats is refused, not converted", "[pc_sampling][reliability]") {
    // Found by fuzzing: converting 4.4e60 to an integer is undefined behaviour.
    CHECK_THROWS_AS(pcSamplingReportFromJson(nlohmann::json::parse(R"({"total_samples": 4.4e60})")), kx::engine::InputError);
    // And 4.1e105 as one of a run's sizes (a map of integers).
    CHECK_THROWS_AS(runReportFromJson(nlohmann::json::parse(R"({"sizes": {"M": 4.1e105}})")), kx::engine::InputError);
    CHECK_THROWS_AS(runReportFromJson(nlohmann::json::parse(R"({"sizes": {"M": 1.5}})")), kx::engine::InputError);
    CHECK_THROWS_AS(runReportFromJson(nlohmann::json::parse(R"({"sizes": [1]})")), kx::engine::InputError);
    CHECK(runReportFromJson(nlohmann::json::parse(R"({"sizes": {"M": 4096, "N": 2}})")).sizes.at("N") == 2);
    CHECK_THROWS_AS(pcSamplingReportFromJson(nlohmann::json::parse(R"({"pcs": [{"offset": -1e300}]})")), kx::engine::InputError);
    CHECK_THROWS_AS(pcSamplingReportFromJson(nlohmann::json::parse(R"({"pcs": [{"stalls": {"barrier": 1e40}}]})")), kx::engine::InputError);
    CHECK(pcSamplingReportFromJson(nlohmann::json::parse(R"({"pcs": [{"offset": 128, "stalls": {"barrier": 3}}]})")).pcs[0].stalls.at("barrier") == 3);
}

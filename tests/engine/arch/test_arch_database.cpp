// Tests for the architecture and device database: the shipped assets, and the loader's handling
// of bad files (fixtures under tests/engine/arch/data/).
#include "arch/arch_database.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

using namespace kx::engine;
namespace fs = std::filesystem;

namespace {

const fs::path kSourceDir = KX_TEST_SOURCE_DIR;
const fs::path kFixtureDir = kSourceDir / "tests" / "engine" / "arch" / "data";

const ArchDatabase& shipped() {
    static const ArchDatabase db = ArchDatabase::loadFromDataRoot(kSourceDir);
    return db;
}

const ArchDatabase& fixtures() {
    static const ArchDatabase db = ArchDatabase::load(kFixtureDir / "arch", kFixtureDir / "devices");
    return db;
}

const Arch& arch(const std::string& name) {
    const Arch* a = shipped().findArch(name);
    INFO("arch " << name);
    REQUIRE(a != nullptr);
    return *a;
}

// The errors reported for one fixture file (matched on the file name alone).
std::vector<LoadError> errorsFor(const std::string& fileName) {
    std::vector<LoadError> found;
    for (const LoadError& e : fixtures().errors())
        if (fs::path(e.file).filename() == fileName) found.push_back(e);
    return found;
}

std::string allErrors(const ArchDatabase& db) {
    std::string text;
    for (const LoadError& e : db.errors()) text += e.toString() + "\n";
    return text;
}

// Every limit, so that variants can be compared with their base architecture in one go.
auto limitsTuple(const Arch& a) {
    const NvidiaLimits& n = a.nv;
    return std::make_tuple(a.warpSize, a.l2Bytes, n.computeMajor, n.computeMinor, n.maxThreadsPerBlock,
                           n.maxThreadsPerSm, n.maxBlocksPerSm, n.maxWarpsPerSm, n.regsPerSm, n.regsPerBlock,
                           n.maxRegsPerThread, n.regAllocUnit, n.smemPerSm, n.smemPerBlock, n.smemPerBlockOptin,
                           n.smemReservedPerBlock, n.smemAllocUnit, n.carveoutStepsKiB, n.barriersPerBlock);
}

}  // namespace

// [SECTION] Shipped assets

TEST_CASE("the shipped architectures and devices load without errors", "[arch]") {
    INFO(allErrors(shipped()));
    CHECK(shipped().errors().empty());
    CHECK(shipped().arches().size() >= 33);
    CHECK(shipped().devices().size() >= 9);
}

TEST_CASE("every NVRTC 13 target and both AMD targets are present and compilable", "[arch]") {
    // What `nvcc --list-gpu-code` and nvrtcGetSupportedArchs() of CUDA 13.0 accept, including the
    // architecture-specific (a) and family-specific (f) variants, plus the HIP targets.
    const std::vector<std::string> compilable = {
        "sm_75",   "sm_80",   "sm_86",   "sm_87",   "sm_88",   "sm_89",  "sm_90",   "sm_90a",
        "sm_100",  "sm_100a", "sm_100f", "sm_103",  "sm_103a", "sm_103f", "sm_110", "sm_110a",
        "sm_110f", "sm_120",  "sm_120a", "sm_120f", "sm_121",  "sm_121a", "sm_121f", "gfx90a",
        "gfx942"};
    for (const std::string& name : compilable) {
        INFO(name);
        CHECK(arch(name).compilable);
    }
    const std::vector<std::string> analysisOnly = {"sm_50", "sm_52", "sm_53", "sm_60",
                                                   "sm_61", "sm_62", "sm_70", "sm_72"};
    for (const std::string& name : analysisOnly) {
        INFO(name);
        CHECK_FALSE(arch(name).compilable);
    }
}

TEST_CASE("every architecture names the documents its figures come from", "[arch]") {
    for (const Arch& a : shipped().arches()) {
        INFO(a.name);
        CHECK_FALSE(a.source.empty());
        CHECK(fs::path(a.file).filename() == a.name + ".xml");
        CHECK(a.line > 0);
    }
}

TEST_CASE("Hopper sm_90 limits", "[arch]") {
    const Arch& a = arch("sm_90");
    CHECK(a.vendor == Vendor::Nvidia);
    CHECK(a.family == "Hopper");
    CHECK(a.warpSize == 32);
    CHECK(a.nv.computeMajor == 9);
    CHECK(a.nv.computeMinor == 0);
    CHECK(a.nv.regsPerSm == 65536);
    CHECK(a.nv.regsPerBlock == 65536);
    CHECK(a.nv.maxRegsPerThread == 255);
    CHECK(a.nv.regAllocUnit == 256);
    CHECK(a.nv.maxThreadsPerSm == 2048);
    CHECK(a.nv.maxWarpsPerSm == 64);
    CHECK(a.nv.maxBlocksPerSm == 32);
    CHECK(a.nv.maxThreadsPerBlock == 1024);
    CHECK(a.nv.smemPerSm == 228 * 1024);
    CHECK(a.nv.smemPerBlock == 48 * 1024);
    CHECK(a.nv.smemPerBlockOptin == 232448);  // 227 KiB
    CHECK(a.nv.smemReservedPerBlock == 1024);
    CHECK(a.nv.smemAllocUnit == 128);
    CHECK(a.nv.carveoutStepsKiB == std::vector<int>{0, 8, 16, 32, 64, 100, 132, 164, 196, 228});
    CHECK(a.nv.barriersPerBlock == 16);
    CHECK(a.l2Bytes == 50LL * 1024 * 1024);
}

TEST_CASE("Ampere, Ada, Turing and Blackwell spot checks", "[arch]") {
    SECTION("sm_80") {
        const Arch& a = arch("sm_80");
        CHECK(a.nv.smemPerBlockOptin == 166912);  // 163 KiB
        CHECK(a.nv.smemPerSm == 164 * 1024);
        CHECK(a.nv.maxThreadsPerSm == 2048);
        CHECK(a.nv.maxBlocksPerSm == 32);
        CHECK(a.nv.carveoutStepsKiB == std::vector<int>{0, 8, 16, 32, 64, 100, 132, 164});
        CHECK(a.l2Bytes == 40LL * 1024 * 1024);
    }
    SECTION("sm_86") {
        const Arch& a = arch("sm_86");
        CHECK(a.nv.smemPerBlockOptin == 101376);  // 99 KiB
        CHECK(a.nv.maxThreadsPerSm == 1536);
        CHECK(a.nv.maxWarpsPerSm == 48);
        CHECK(a.nv.maxBlocksPerSm == 16);
        CHECK(a.nv.carveoutStepsKiB == std::vector<int>{0, 8, 16, 32, 64, 100});
    }
    SECTION("sm_89") {
        const Arch& a = arch("sm_89");
        CHECK(a.family == "Ada");
        CHECK(a.nv.maxBlocksPerSm == 24);
        CHECK(a.nv.maxThreadsPerSm == 1536);
        CHECK(a.nv.smemPerBlockOptin == 101376);
        CHECK(a.nv.carveoutStepsKiB == std::vector<int>{0, 8, 16, 32, 64, 100});
    }
    SECTION("sm_75") {
        const Arch& a = arch("sm_75");
        CHECK(a.nv.smemPerBlockOptin == 64 * 1024);
        CHECK(a.nv.smemReservedPerBlock == 0);  // the 1 KiB reservation starts with sm_80
        CHECK(a.nv.maxThreadsPerSm == 1024);
        CHECK(a.nv.maxWarpsPerSm == 32);
        CHECK(a.nv.maxBlocksPerSm == 16);
        CHECK(a.nv.smemAllocUnit == 256);
        CHECK(a.nv.carveoutStepsKiB == std::vector<int>{32, 64});
    }
    SECTION("sm_100") {
        const Arch& a = arch("sm_100");
        CHECK(a.nv.maxThreadsPerSm == 2048);
        CHECK(a.nv.maxBlocksPerSm == 32);
        CHECK(a.nv.smemPerBlockOptin == 232448);
    }
    SECTION("sm_110 (Jetson Thor)") {
        const Arch& a = arch("sm_110");
        CHECK(a.nv.maxThreadsPerSm == 1536);
        CHECK(a.nv.maxBlocksPerSm == 24);
        CHECK(a.nv.smemPerBlockOptin == 232448);
    }
    SECTION("sm_120") {
        const Arch& a = arch("sm_120");
        CHECK(a.nv.computeMajor == 12);
        CHECK(a.nv.maxThreadsPerSm == 1536);
        CHECK(a.nv.maxWarpsPerSm == 48);
        CHECK(a.nv.maxBlocksPerSm == 24);
        CHECK(a.nv.smemPerSm == 100 * 1024);
        CHECK(a.nv.smemPerBlockOptin == 101376);
        CHECK(a.nv.carveoutStepsKiB == std::vector<int>{0, 8, 16, 32, 64, 100});
    }
    SECTION("pre-Volta parts have no opt-in beyond 48 KiB") {
        for (const char* name : {"sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62"}) {
            INFO(name);
            CHECK(arch(name).nv.smemPerBlockOptin == 48 * 1024);
            CHECK(arch(name).nv.smemReservedPerBlock == 0);
        }
    }
}

TEST_CASE("a and f variants carry the limits of their base architecture", "[arch]") {
    const std::vector<std::pair<std::string, std::string>> variants = {
        {"sm_90a", "sm_90"},   {"sm_100a", "sm_100"}, {"sm_100f", "sm_100"}, {"sm_103a", "sm_103"},
        {"sm_103f", "sm_103"}, {"sm_110a", "sm_110"}, {"sm_110f", "sm_110"}, {"sm_120a", "sm_120"},
        {"sm_120f", "sm_120"}, {"sm_121a", "sm_121"}, {"sm_121f", "sm_121"}};
    for (const auto& [variant, base] : variants) {
        INFO(variant << " vs " << base);
        CHECK(limitsTuple(arch(variant)) == limitsTuple(arch(base)));
        CHECK(arch(variant).family == arch(base).family);
    }
}

TEST_CASE("AMD CDNA limits", "[arch]") {
    for (const char* name : {"gfx90a", "gfx942"}) {
        INFO(name);
        const Arch& a = arch(name);
        CHECK(a.vendor == Vendor::Amd);
        CHECK(a.warpSize == 64);
        CHECK(a.amd.simdsPerCu == 4);
        CHECK(a.amd.maxWavesPerSimd == 8);
        CHECK(a.amd.vgprsPerSimd == 512);
        CHECK(a.amd.maxVgprsPerWave == 512);
        CHECK(a.amd.vgprAllocGranule == 8);
        CHECK(a.amd.sgprsPerSimd == 800);
        CHECK(a.amd.maxSgprsPerWave == 102);
        CHECK(a.amd.sgprAllocGranule == 16);
        CHECK(a.amd.ldsPerCu == 64 * 1024);
        CHECK(a.amd.maxLdsPerWorkgroup == 64 * 1024);
        CHECK(a.amd.maxThreadsPerWorkgroup == 1024);
    }
    CHECK(arch("gfx90a").family == "CDNA2");
    CHECK(arch("gfx942").family == "CDNA3");
}

TEST_CASE("architectures are sorted: NVIDIA by compute capability, then AMD by name", "[arch]") {
    const std::vector<Arch>& all = shipped().arches();
    const auto rank = [](const Arch& a) {
        return a.vendor == Vendor::Nvidia ? std::make_tuple(0, a.nv.computeMajor, a.nv.computeMinor)
                                          : std::make_tuple(1, 0, 0);
    };
    for (size_t i = 1; i < all.size(); ++i) {
        INFO(all[i - 1].name << " before " << all[i].name);
        CHECK(std::make_tuple(rank(all[i - 1]), all[i - 1].name) <= std::make_tuple(rank(all[i]), all[i].name));
    }
    CHECK(all.front().name == "sm_50");
    CHECK(all.back().name == "gfx942");
}

TEST_CASE("Arch::expressionVariables", "[arch]") {
    SECTION("NVIDIA sm_90") {
        const auto vars = arch("sm_90").expressionVariables();
        CHECK(vars.at("cc") == 90);
        CHECK(vars.at("warp_size") == 32);
        CHECK(vars.at("max_threads_per_block") == 1024);
        CHECK(vars.at("max_threads_per_sm") == 2048);
        CHECK(vars.at("max_blocks_per_sm") == 32);
        CHECK(vars.at("regs_per_sm") == 65536);
        CHECK(vars.at("regs_per_block") == 65536);
        CHECK(vars.at("max_regs_per_thread") == 255);
        CHECK(vars.at("smem_per_sm") == 233472);
        CHECK(vars.at("smem_per_block") == 49152);
        CHECK(vars.at("smem_per_block_optin") == 232448);
        CHECK(vars.at("l2_bytes") == 52428800);
        CHECK(arch("sm_120").expressionVariables().at("cc") == 120);
    }
    SECTION("AMD gfx942") {
        const auto vars = arch("gfx942").expressionVariables();
        CHECK(vars.at("warp_size") == 64);
        CHECK(vars.at("max_threads_per_block") == 1024);
        CHECK(vars.at("max_threads_per_sm") == 2048);
        CHECK(vars.at("smem_per_block") == 65536);
        CHECK(vars.at("smem_per_block_optin") == 65536);
        CHECK(vars.at("smem_per_sm") == 65536);
        CHECK(vars.at("max_regs_per_thread") == 512);
        CHECK(vars.count("cc") == 0);  // no compute capability on AMD: an expression using it must fail
    }
}

TEST_CASE("the named devices are present, reference known architectures and store dense peaks", "[arch]") {
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"h100_sxm", "sm_90"}, {"h100_pcie", "sm_90"}, {"h200_sxm", "sm_90"},  {"a100_sxm4_80gb", "sm_80"},
        {"l40s", "sm_89"},     {"rtx_4090", "sm_89"},  {"rtx_5090", "sm_120"}, {"mi300x", "gfx942"},
        {"mi250x", "gfx90a"}};
    for (const auto& [id, archName] : expected) {
        INFO(id);
        const DeviceSpec* d = shipped().findDevice(id);
        REQUIRE(d != nullptr);
        CHECK(d->arch == archName);
    }
    for (const DeviceSpec& d : shipped().devices()) {
        INFO(d.id);
        CHECK(shipped().findArch(d.arch) != nullptr);
        CHECK(d.smCount > 0);
        CHECK(d.boostClockMhz > 0);
        CHECK(d.memoryGiB > 0);
        CHECK(d.memBandwidthGBs > 0);
        CHECK(d.l2Bytes > 0);
        CHECK(d.peakTflops.count("fp32") == 1);
        CHECK_FALSE(d.source.empty());
    }
    // Datasheets quote tensor throughput with 2:4 sparsity; the database holds dense figures.
    const DeviceSpec& h100 = *shipped().findDevice("h100_sxm");
    CHECK(h100.smCount == 132);
    CHECK(h100.memBandwidthGBs == 3350);
    CHECK(h100.peakTflops.at("bf16_tensor") == Approx(989.5));
    CHECK(h100.peakTflops.at("fp8_tensor") == Approx(1979));
    CHECK(h100.peakTflops.at("tf32_tensor") == Approx(494.5));
    CHECK(shipped().findDevice("a100_sxm4_80gb")->peakTflops.at("fp16_tensor") == Approx(312));
    CHECK(shipped().findDevice("a100_sxm4_80gb")->peakTflops.count("fp8_tensor") == 0);
    CHECK(shipped().findDevice("mi300x")->peakTflops.at("fp16_tensor") == Approx(1307.4));
    CHECK(shipped().findDevice("mi300x")->smCount == 304);
}

// [SECTION] Fixtures: bad files are reported and skipped, the rest still loads

TEST_CASE("good fixtures load next to bad ones", "[arch]") {
    const ArchDatabase& db = fixtures();
    REQUIRE(db.findArch("sm_80") != nullptr);
    CHECK(fs::path(db.findArch("sm_80")->file).filename() == "a_good_sm_80.xml");
    CHECK(db.findArch("sm_80")->nv.smemPerBlockOptin == 166912);
    REQUIRE(db.findArch("gfx942") != nullptr);
    CHECK(db.findArch("gfx942")->warpSize == 64);
    // Only the good entries made it in.
    CHECK(db.arches().size() == 2);
    REQUIRE(db.findDevice("test_a100") != nullptr);
    CHECK(db.findDevice("test_a100")->peakTflops.at("bf16_tensor") == 312);
    CHECK(db.devices().size() == 1);
    // notes.txt is not an XML file and is ignored.
    CHECK(errorsFor("notes.txt").empty());
}

TEST_CASE("malformed XML is reported with its file and line", "[arch]") {
    const auto archErrors = errorsFor("b_malformed.xml");
    REQUIRE(archErrors.size() == 1);
    CHECK(archErrors[0].line == 5);
    CHECK_THAT(archErrors[0].message, Catch::Contains("malformed XML") && Catch::Contains("<threads>"));
    CHECK_THAT(archErrors[0].toString(), Catch::EndsWith("b_malformed.xml:5: " + archErrors[0].message));

    const auto deviceErrors = errorsFor("d_malformed_device.xml");
    REQUIRE(deviceErrors.size() == 1);
    CHECK(deviceErrors[0].line == 4);
    CHECK_THAT(deviceErrors[0].message, Catch::Contains("malformed XML") && Catch::Contains("attribute"));
}

TEST_CASE("bad values are reported with the attribute's line", "[arch]") {
    SECTION("not a number") {
        const auto e = errorsFor("c_bad_value.xml");
        REQUIRE(e.size() == 1);
        CHECK(e[0].line == 9);
        CHECK_THAT(e[0].message, Catch::Contains("per_sm") && Catch::Contains("\"lots\"") &&
                                     Catch::Contains("not a number"));
        CHECK(fixtures().findArch("sm_86") == nullptr);
    }
    SECTION("negative") {
        const auto e = errorsFor("d_negative.xml");
        REQUIRE(e.size() == 1);
        CHECK(e[0].line == 6);
        CHECK_THAT(e[0].message, Catch::Contains("blocks_per_sm") && Catch::Contains("negative"));
    }
    SECTION("missing required attribute") {
        const auto e = errorsFor("e_missing_attribute.xml");
        REQUIRE(e.size() == 1);
        CHECK(e[0].line == 5);
        CHECK_THAT(e[0].message, Catch::Contains("<threads>") && Catch::Contains("warp_size"));
    }
    SECTION("unknown vendor") {
        const auto e = errorsFor("f_unknown_vendor.xml");
        REQUIRE(e.size() == 1);
        CHECK(e[0].line == 3);
        CHECK_THAT(e[0].message, Catch::Contains("unknown vendor") && Catch::Contains("intel"));
    }
    SECTION("values that contradict each other") {
        const auto e = errorsFor("g_inconsistent.xml");
        REQUIRE(e.size() == 1);
        CHECK(e[0].line == 6);
        CHECK_THAT(e[0].message, Catch::Contains("warps_per_sm"));
    }
    SECTION("duplicate architecture name") {
        const auto e = errorsFor("z_duplicate_sm_80.xml");
        REQUIRE(e.size() == 1);
        CHECK(e[0].line == 3);
        CHECK_THAT(e[0].message, Catch::Contains("duplicate") && Catch::Contains("a_good_sm_80.xml:3"));
    }
}

TEST_CASE("device files with errors are reported and skipped", "[arch]") {
    SECTION("unknown architecture") {
        const auto e = errorsFor("b_unknown_arch.xml");
        REQUIRE(e.size() == 1);
        CHECK(e[0].line == 3);
        CHECK_THAT(e[0].message, Catch::Contains("unknown architecture") && Catch::Contains("sm_999"));
        CHECK(fixtures().findDevice("test_future") == nullptr);
    }
    SECTION("unknown peak unit and non-numeric peak are both reported") {
        const auto e = errorsFor("c_bad_peak.xml");
        REQUIRE(e.size() == 2);
        CHECK(e[0].line == 7);
        CHECK_THAT(e[0].message, Catch::Contains("fp4_tensor"));
        CHECK(e[1].line == 8);
        CHECK_THAT(e[1].message, Catch::Contains("dense_tflops") && Catch::Contains("not a number"));
        CHECK(fixtures().findDevice("test_bad_peak") == nullptr);
    }
}

TEST_CASE("missing arch and device folders are errors, not exceptions", "[arch]") {
    ArchDatabase db;
    REQUIRE_NOTHROW(db = ArchDatabase::load(kFixtureDir / "no_such_arch_dir", kFixtureDir / "no_such_device_dir"));
    CHECK(db.arches().empty());
    CHECK(db.devices().empty());
    REQUIRE(db.errors().size() == 2);
    CHECK(db.errors()[0].line == 0);
    CHECK_THAT(db.errors()[0].toString(), Catch::Contains("no_such_arch_dir: "));
}

TEST_CASE("LoadError::toString", "[arch]") {
    CHECK(LoadError{"a/b.xml", 12, "bad"}.toString() == "a/b.xml:12: bad");
    CHECK(LoadError{"a/b.xml", 0, "bad"}.toString() == "a/b.xml: bad");
}

TEST_CASE("ArchDatabase lookups are exact", "[arch]") {
    CHECK(shipped().findArch("sm_90") != shipped().findArch("sm_90a"));
    CHECK(shipped().findArch("SM_90") == nullptr);
    CHECK(shipped().findArch("sm_9") == nullptr);
    CHECK(shipped().findArch("") == nullptr);
    CHECK(shipped().findDevice("h100") == nullptr);
}

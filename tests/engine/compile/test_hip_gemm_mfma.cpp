// templates/gemm_mfma, checked as far as a machine without an AMD GPU can: every MFMA shape and
// dtype compiles for gfx90a and gfx942 to v_mfma instructions without scratch, its occupancy
// agrees with the compiler's, and its predicted roofline point sits under the matrix-core roof
// of the MI250X and MI300X.
#include "../test_support.hpp"
#include "analysis/amd_instruction_mix.hpp"
#include "analysis/amd_kernel_occupancy.hpp"
#include "analysis/roofline.hpp"
#include "arch/arch_database.hpp"
#include "compile/hip_compiler.hpp"
#include "compile/variant_build.hpp"
#include "templates/template_library.hpp"

#include <catch2/catch.hpp>

using namespace kx::engine;
using kx::test::sourceDir;

namespace {
const ArchDatabase& arches() {
    static ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    return db;
}
const TemplateLibrary& library() {
    static TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "templates");
    return lib;
}
}  // namespace

TEST_CASE("gemm_mfma is AMD-only, HIP-only, with the gemm reference's arguments", "[templates][hip][gemm_mfma]") {
    auto t = library().find("gemm_mfma");
    REQUIRE(t);
    CHECK(t->manifest().languages == std::vector<std::string>{"hip"});
    CHECK(t->manifest().referenceName == "gemm");
    const Arch* sm90 = arches().findArch("sm_90");
    REQUIRE(sm90);
    const auto violations = t->validate(t->defaultConfig(), *sm90);
    REQUIRE(violations.size() == 1);
    CHECK(violations[0].message.find("needs an AMD CDNA arch") != std::string::npos);
    for (const char* arch : {"gfx90a", "gfx942"}) CHECK(t->validate(t->defaultConfig(), *arches().findArch(arch)).empty());
    // LDS over 64 KiB names the stages and the bytes.
    const auto big = t->validate(t->withValues(t->defaultConfig(), {{"BK", "64"}, {"PAD", "8"}}), *arches().findArch("gfx942"));
    REQUIRE(big.size() == 1);
    CHECK(big[0].message.find("73728 bytes of LDS") != std::string::npos);
}

TEST_CASE("gemm_mfma compiles to v_mfma without scratch for every shape and dtype", "[templates][compile][hip][gemm_mfma]") {
    INFO(hipClangMissingMessage());
    REQUIRE(findHipClang().has_value());
    auto t = library().find("gemm_mfma");
    REQUIRE(t);
    HipCompiler compiler({}, sourceDir() / "assets/hip/kx_hip_prelude.h");
    struct Case { std::map<std::string, std::string> values; const char* gfx90a; const char* gfx942; };
    // The assembler's spelling changed between CDNA2 and CDNA3 (…x8f16 -> …x8_f16, …bf16_1k -> …_bf16).
    const std::vector<Case> cases = {
        {{{"dtype", "f16"}, {"mfma", "32x32x8"}}, "v_mfma_f32_32x32x8f16", "v_mfma_f32_32x32x8_f16"},
        {{{"dtype", "f16"}, {"mfma", "16x16x16"}}, "v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16_f16"},
        {{{"dtype", "bf16"}, {"mfma", "32x32x8"}}, "v_mfma_f32_32x32x8bf16_1k", "v_mfma_f32_32x32x8_bf16"},
        {{{"dtype", "bf16"}, {"mfma", "16x16x16"}, {"STAGES", "1"}}, "v_mfma_f32_16x16x16bf16_1k", "v_mfma_f32_16x16x16_bf16"},
        // CDNA3's fp8 MFMAs: K doubled, one 64-bit operand per lane; none on CDNA2.
        {{{"dtype", "fp8"}, {"mfma", "32x32x8"}}, nullptr, "v_mfma_f32_32x32x16_fp8_fp8"},
        {{{"dtype", "fp8"}, {"mfma", "16x16x16"}, {"PAD", "0"}}, nullptr, "v_mfma_f32_16x16x32_fp8_fp8"},
    };
    for (const Case& c : cases) {
        for (const char* archName : {"gfx90a", "gfx942"}) {
            const Arch* arch = arches().findArch(archName);
            const Config config = t->withValues(t->defaultConfig(), c.values);
            const PreparedVariant p = prepareVariant(*t, config, *arch);
            INFO(p.name << " for " << archName);
            const char* expectedMnemonic = std::string(archName) == "gfx90a" ? c.gfx90a : c.gfx942;
            if (expectedMnemonic == nullptr) {
                REQUIRE(p.violations.size() == 1);
                CHECK(p.violations[0].message.find("need CDNA3 (gfx942)") != std::string::npos);
                continue;
            }
            REQUIRE(p.violations.empty());
            const HipCompileResult r = compiler.compile(hipRequest(p.request));
            INFO(r.log);
            REQUIRE(r.ok);
            const std::string expected = expectedMnemonic;
            CHECK(r.isa.find(expected) != std::string::npos);
            const AmdInstructionMix mix = analyzeAmdIsa(r.isa);
            // One k-tile: (BK / MFMA_K) k-steps x (WM / MFMA_M) x (WN / MFMA_M) MFMA tiles.
            const auto vars = t->variables(config, *arch);
            const int perTile = static_cast<int>(vars.at("BK") / vars.at("MFMA_K") * (vars.at("WM") / vars.at("MFMA_M")) *
                                                 (vars.at("WN") / vars.at("MFMA_M")));
            CHECK(mix[AmdInstrCategory::Mfma] == perTile);
            CHECK(mix.counts.scratch() == 0);
            CHECK(mix.counts.globalLoads.count(128) == 1);  // the 16-byte tile loads
            REQUIRE(r.kernels.size() == 1);
            const AmdKernelResources& k = r.kernels[0];
            CHECK(k.scratchBytes == 0);
            CHECK_FALSE(k.spills());
            CHECK(k.ldsBytes == static_cast<long long>(vars.at("LDS_BYTES")));
            const AmdKernelOccupancy o = amdKernelOccupancy(*arch, k, static_cast<int>(vars.at("THREADS")));
            CHECK(o.agreesWithCompiler);
            CHECK(o.result.workgroupsPerCu >= 1);
        }
    }
}

TEST_CASE("gemm_mfma's predicted roofline point against MI250X and MI300X", "[templates][hip][gemm_mfma][roofline]") {
    auto t = library().find("gemm_mfma");
    REQUIRE(t);
    const SizeMap sizes = t->defaultSizes();  // 4096^3
    for (const auto& [archName, deviceId, peakTflops] :
         {std::tuple{"gfx90a", "mi250x", 383.0}, std::tuple{"gfx942", "mi300x", 1307.4}}) {
        const Arch* arch = arches().findArch(archName);
        const DeviceSpec* device = arches().findDevice(deviceId);
        REQUIRE(arch);
        REQUIRE(device);
        const Config config = t->defaultConfig();
        const double flops = t->flops(config, *arch, sizes), bytes = t->minBytes(config, *arch, sizes);
        CHECK(flops == Approx(2.0 * 4096 * 4096 * 4096));
        CHECK(bytes == Approx(3.0 * 4096 * 4096 * 2));
        CHECK(t->rooflineUnit(config, *arch) == "fp16_tensor");
        const RooflineModel model(*device);
        const RooflinePoint p = placeOnRoof(model, predictedPoint("gemm_mfma", flops, bytes), "fp16_tensor");
        // Intensity 1365 FLOP/byte: far right of both ridges, so the matrix-core peak is the bound.
        CHECK(p.ai == Approx(4096.0 / 3));
        CHECK(p.flopsPerSec == Approx(peakTflops * 1e12));
    }
    // fp8 on the MI300X: one byte per element of A and B (C stays f16), the FP8 matrix-core roof.
    const Arch* gfx942 = arches().findArch("gfx942");
    const DeviceSpec* mi300x = arches().findDevice("mi300x");
    REQUIRE(gfx942);
    REQUIRE(mi300x);
    const Config fp8 = t->withValues(t->defaultConfig(), {{"dtype", "fp8"}});
    const double flops = t->flops(fp8, *gfx942, sizes), bytes = t->minBytes(fp8, *gfx942, sizes);
    CHECK(bytes == Approx(4.0 * 4096 * 4096));
    CHECK(t->rooflineUnit(fp8, *gfx942) == "fp8_tensor");
    const RooflinePoint p = placeOnRoof(RooflineModel(*mi300x), predictedPoint("gemm_mfma", flops, bytes), "fp8_tensor");
    CHECK(p.flopsPerSec == Approx(2614.9e12));
}

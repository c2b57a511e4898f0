// Tensor-map arguments (role tensor_map), the arch_specific variable, and the choice of an
// arch-specific target for runs on the device's own arch.
#include "../test_support.hpp"
#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace kx::engine;
using kx::test::sourceDir;

namespace {

const TemplateLibrary& fixtures() {
    static TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "tests/engine/templates/data_tensor_map");
    return lib;
}

const ArchDatabase& arches() {
    static ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    return db;
}

const LoadError* errorFor(const std::string& folder) {
    for (const LoadError& e : fixtures().errors())
        if (e.file.find(folder + "/") != std::string::npos) return &e;
    return nullptr;
}

// The tensor-map args of a config at some sizes, by name.
std::map<std::string, ResolvedArg> tensorMaps(const Template& t, const Config& config, const Arch& arch, const SizeMap& sizes) {
    std::map<std::string, ResolvedArg> maps;
    for (const ResolvedArg& a : t.resolveArgs(config, arch, sizes))
        if (a.role == "tensor_map") maps[a.name] = a;
    return maps;
}

}  // namespace

TEST_CASE("a tensor_map arg resolves its dims and box from the sizes and variables", "[templates][tensor_map]") {
    auto t = fixtures().find("tma");
    REQUIRE(t);
    const Arch* arch = arches().findArch("sm_90a");
    REQUIRE(arch);
    const std::vector<ResolvedArg> args = t->resolveArgs(t->defaultConfig(), *arch, t->withSizes({{"M", "100"}, {"K", "72"}}));
    REQUIRE(args.size() == 3);
    const ResolvedArg& map = args[1];
    CHECK(map.role == "tensor_map");
    CHECK(map.of == "A");
    CHECK(map.dims == std::vector<long long>{72, 100});
    CHECK(map.box == std::vector<long long>{32, 64});
    CHECK(map.swizzle == "64B");
    CHECK(map.type.empty());  // the element type is the buffer's

    // A box past TMA's 256 elements is refused when the config makes it so.
    const Config big = t->withValues(t->defaultConfig(), {{"BOX", "512"}});
    CHECK_THROWS_WITH(t->resolveArgs(big, *arch, t->withSizes({{"M", "1000"}})),
                      Catch::Contains("tensor map 'tmA': box size") && Catch::Contains("1 to 256"));
    // Small problems clip the box (min(BOX, M)), so the same config is fine there.
    CHECK_NOTHROW(t->resolveArgs(big, *arch, t->withSizes({{"M", "200"}})));
}

TEST_CASE("malformed tensor_map args name the file and line", "[templates][tensor_map]") {
    CHECK(fixtures().errors().size() == 4);
    const LoadError* of = errorFor("tma_bad_of");
    REQUIRE(of);
    CHECK(of->line == 19);
    CHECK(of->message.find("of=\"M\" must name an earlier buffer argument") != std::string::npos);
    const LoadError* box = errorFor("tma_bad_box");
    REQUIRE(box);
    CHECK(box->line == 19);
    CHECK(box->message.find("2 dims but 1 box sizes") != std::string::npos);
    const LoadError* swizzle = errorFor("tma_bad_swizzle");
    REQUIRE(swizzle);
    CHECK(swizzle->message.find("swizzle must be none, 32B, 64B or 128B, not '96B'") != std::string::npos);
    const LoadError* corner = errorFor("tma_bad_corner");
    REQUIRE(corner);
    CHECK(corner->line == 19);
    CHECK(corner->message.find("one corner offset per spatial dimension (3)") != std::string::npos);
}

// The shipped conv_wgmma, and sm_90a, the target it needs.
struct ShippedConvWgmma {
    TemplateLibrary library = TemplateLibrary::load(sourceDir() / "templates");
    std::shared_ptr<const Template> t = library.find("conv_wgmma");
    const Arch* arch = arches().findArch("sm_90a");
    ShippedConvWgmma() {
        REQUIRE(t);
        REQUIRE(arch);
    }
};

// conv_wgmma gathers x through an im2col map: channels, width, height, depth and images, a
// column of BM pixels of 64 channels, the window corners' bounding box from the padding, the
// dilated filter and the strides; the filter through a tiled map of one tap at a time.
TEST_CASE("conv_wgmma's im2col map follows the convolution's shape", "[templates][tensor_map]") {
    const ShippedConvWgmma shipped;
    const auto& t = shipped.t;
    const Arch* arch = shipped.arch;
    CHECK(t->validate(t->defaultConfig(), *arch).empty());
    CHECK_FALSE(t->validate(t->defaultConfig(), *arches().findArch("sm_90")).empty());
    const SizeMap sizes = t->withSizes({{"N", "2"}, {"G", "3"}, {"C", "16"}, {"K", "40"}, {"Hi", "7"}, {"Wi", "9"}, {"X", "2"},
                                        {"stride_w", "2"}, {"pad_w", "3"}, {"dil_w", "2"}});
    std::map<std::string, ResolvedArg> maps = tensorMaps(*t, t->defaultConfig(), *arch, sizes);
    REQUIRE(maps.size() == 3);  // tmA, tmB, and GATHER=halo's tmH (unused by this config)
    const ResolvedArg& x = maps["tmA"];
    CHECK(x.mode == "im2col");
    CHECK(x.dims == std::vector<long long>{48, 9, 7, 1, 2});
    CHECK(x.box == std::vector<long long>{64, 128});
    CHECK(x.lower == std::vector<long long>{-3, -1, 0});
    CHECK(x.upper == std::vector<long long>{1, -1, 0});  // pad 3 - dilation 2 x (2 - 1) taps
    CHECK(x.strides == std::vector<long long>{1, 2, 1, 1, 1});
    const ResolvedArg& w = maps["tmB"];
    CHECK(w.mode == "tile");
    CHECK(w.dims == std::vector<long long>{16, 6, 40, 3});
    CHECK(w.box == std::vector<long long>{64, 1, 128, 1});
    CHECK(w.strides.empty());
    // Backward data reads dy through a window that runs the other way (from pad - dil*(X-1) to
    // -pad, stride 1) and the filter mn-major: 64 channels of one tap of BK filters a copy.
    const Config backward = t->withValues(t->defaultConfig(), {{"direction", "bwd_data"}});
    CHECK(t->validate(backward, *arch).empty());
    const SizeMap unitStride = t->withSizes({{"N", "2"}, {"G", "3"}, {"C", "16"}, {"K", "40"}, {"Hi", "7"}, {"Wi", "9"}, {"X", "2"},
                                             {"pad_w", "3"}, {"dil_w", "2"}});
    maps = tensorMaps(*t, backward, *arch, unitStride);
    CHECK(maps["tmA"].dims == std::vector<long long>{120, 13, 7, 1, 2});  // dy: G*K channels, Wo = 9 + 2*3 - 2*(2-1) - 1 + 1
    CHECK(maps["tmA"].lower == std::vector<long long>{1, -1, 0});
    CHECK(maps["tmA"].upper == std::vector<long long>{-3, -1, 0});
    CHECK(maps["tmA"].strides == std::vector<long long>{1, 1, 1, 1, 1});
    CHECK(maps["tmB"].box == std::vector<long long>{64, 1, 64, 1});
    // Strided backward data: one map walks every stride phase's grid of ceil(Wi / stride) pixels a
    // row, stride 1, its window corner floor((pad - dil*(X-1)) / stride) (width: floor((3 - 2) /
    // 2) = 0, to ceil(9 / 2) + 0 - Wo = 5 - 7; height, stride 1: the mirror image as above).
    maps = tensorMaps(*t, backward, *arch, sizes);
    CHECK(maps["tmA"].dims == std::vector<long long>{120, 7, 7, 1, 2});  // Wo = (9 + 2*3 - 2*(2-1) - 1) / 2 + 1 = 7
    CHECK(maps["tmA"].lower == std::vector<long long>{0, -1, 0});
    CHECK(maps["tmA"].upper == std::vector<long long>{-2, -1, 0});
    CHECK(maps["tmA"].strides == std::vector<long long>{1, 1, 1, 1, 1});
    // Patches (each filter axis as long as its stride, no padding): every phase meets one tap, and
    // the filter's map puts all taps' channels side by side as the GEMM's columns.
    const SizeMap patches = t->withSizes({{"N", "2"}, {"C", "16"}, {"K", "40"}, {"Hi", "8"}, {"Wi", "9"}, {"Y", "2"}, {"X", "3"},
                                          {"stride_h", "2"}, {"stride_w", "3"}, {"pad_h", "0"}, {"pad_w", "0"}});
    maps = tensorMaps(*t, backward, *arch, patches);
    CHECK(maps["tmB"].dims == std::vector<long long>{2 * 3 * 16, 1, 40, 1});
    CHECK(maps["tmA"].dims == std::vector<long long>{40, 3, 4, 1, 2});  // Wo = (9 - 3) / 3 + 1, Ho = (8 - 2) / 2 + 1
    CHECK(maps["tmA"].lower == std::vector<long long>{-1, -1, 0});     // floor(-2 / 3), floor(-1 / 2)
    CHECK(maps["tmA"].upper == std::vector<long long>{-1, -1, 0});     // ceil(9 / 3) - 1 - 3, ceil(8 / 2) - 1 - 4
    // Backward weight gathers x (B) through the im2col map, pixels as the column, and copies
    // dy (A) as filters x groups x pixels: the maps' buffers follow the direction.
    const Config weights = t->withValues(t->defaultConfig(), {{"direction", "bwd_weight"}, {"SPLITK", "4"}});
    CHECK(t->validate(weights, *arch).empty());
    maps = tensorMaps(*t, weights, *arch, sizes);
    CHECK(maps["tmA"].of == "B");
    CHECK(maps["tmA"].dims == std::vector<long long>{48, 9, 7, 1, 2});
    CHECK(maps["tmA"].box == std::vector<long long>{64, 64});
    CHECK(maps["tmB"].of == "A");
    CHECK(maps["tmB"].dims == std::vector<long long>{40, 3, 2 * 7 * 7, 1});  // N Ho Wo: Wo = (9 + 2*3 - 2*(2-1) - 1) / 2 + 1 = 7
    CHECK(maps["tmB"].swizzle == "128B");
    // 32 channels a stage: A's rows are 64 bytes (the 64-byte swizzle); the filter's mn-major
    // slices keep 128-byte rows and the 128-byte swizzle, forward's k-major rows follow A.
    for (const std::string direction : {"fwd", "bwd_data"}) {
        const Config narrow = t->withValues(t->defaultConfig(), {{"direction", direction}, {"SLICE", "32"}, {"BN", "64"}});
        CHECK(t->validate(narrow, *arch).empty());
        maps = tensorMaps(*t, narrow, *arch, unitStride);
        CHECK(maps["tmA"].swizzle == "64B");
        CHECK(maps["tmB"].swizzle == (direction == "fwd" ? "64B" : "128B"));
    }
    // A rank-5 map's corners are 5-bit numbers: padding 20 is refused, naming the corner.
    CHECK_THROWS_WITH(t->resolveArgs(t->defaultConfig(), *arch, t->withSizes({{"pad_w", "20"}})),
                      Catch::Contains("tensor map 'tmA': lower corner") && Catch::Contains("= -20") && Catch::Contains("-16..15"));
    // So is a stride the TMA cannot traverse.
    CHECK_THROWS_WITH(t->resolveArgs(t->defaultConfig(), *arch, t->withSizes({{"stride_h", "9"}})),
                      Catch::Contains("traversal stride (dir == 1 ? 1 : stride_h) = 9") && Catch::Contains("1 to 8"));
}

// FOLD=1: the maps read the fold kernel's copies, chosen by an expression in of="...": Xf, x
// with each output column's row of taps as one pixel's channels (3 channels x 7 taps = 21,
// padded to a whole copy), one tap wide at stride 1 over Wo columns; forward's filter Wf in the
// same folded rows; bwd_weight's dy as stored.
TEST_CASE("conv_wgmma's folded maps read the fold kernel's copies", "[templates][tensor_map]") {
    const ShippedConvWgmma shipped;
    const auto& t = shipped.t;
    const Arch* arch = shipped.arch;
    const SizeMap firstLayer = t->withSizes({{"N", "2"}, {"C", "3"}, {"K", "64"}, {"Hi", "20"}, {"Wi", "20"}, {"Y", "7"}, {"X", "7"},
                                             {"stride_h", "2"}, {"stride_w", "2"}, {"pad_h", "3"}, {"pad_w", "3"}});
    CHECK_THROWS_WITH(t->resolveArgs(t->defaultConfig(), *arch, firstLayer), Catch::Contains("FOLD = 1"));
    const Config forward = t->withValues(t->defaultConfig(), {{"FOLD", "1"}, {"SLICE", "32"}, {"BN", "64"}});
    REQUIRE(t->validate(forward, *arch).empty());
    std::map<std::string, ResolvedArg> maps = tensorMaps(*t, forward, *arch, firstLayer);
    CHECK(maps["tmA"].of == "Xf");
    CHECK(maps["tmA"].dims == std::vector<long long>{32, 10, 20, 1, 2});  // Wo = (20 + 6 - 6 - 1) / 2 + 1 = 10
    CHECK(maps["tmA"].lower == std::vector<long long>{0, -3, 0});
    CHECK(maps["tmA"].upper == std::vector<long long>{0, -3, 0});
    CHECK(maps["tmA"].strides == std::vector<long long>{1, 1, 2, 1, 1});
    CHECK(maps["tmB"].of == "Wf");
    CHECK(maps["tmB"].dims == std::vector<long long>{32, 7, 64, 1});  // the folded rows of 7 taps (z, y)
    const Config weights = t->withValues(t->defaultConfig(), {{"direction", "bwd_weight"}, {"FOLD", "1"}});
    REQUIRE(t->validate(weights, *arch).empty());
    maps = tensorMaps(*t, weights, *arch, firstLayer);
    CHECK(maps["tmA"].of == "Xf");
    CHECK(maps["tmA"].dims == std::vector<long long>{64, 10, 20, 1, 2});  // bwd_weight's copies are 64 channels
    CHECK(maps["tmB"].of == "A");
    CHECK_FALSE(t->validate(t->withValues(t->defaultConfig(), {{"direction", "bwd_data"}, {"FOLD", "1"}}), *arch).empty());
}

// GATHER=halo: a third map, tmH, copies a tile's input box (8 channels, the tile's 8 x
// 8*MT*CONSUMERS pixels plus the filter's reach; with HALO_FILTER=streamed one plane of it) of x,
// or backward of dy;
// backward data's filter map then reads Wf (the filter mirrored and transposed: K channels, taps,
// C rows) k-major. Unused, tmH describes 8 elements of Wf. Strided layers, boxes over 256 a side
// and a filter that does not fit shared memory are refused in words, and so is bwd_weight.
TEST_CASE("conv_wgmma's halo map copies a tile's input box", "[templates][tensor_map]") {
    const ShippedConvWgmma shipped;
    const auto& t = shipped.t;
    const Arch* arch = shipped.arch;
    const SizeMap unet = t->withSizes({{"N", "2"}, {"C", "32"}, {"K", "48"}, {"Di", "9"}, {"Hi", "13"}, {"Wi", "17"}, {"Z", "3"}, {"pad_d", "1"}});
    std::map<std::string, ResolvedArg> maps = tensorMaps(*t, t->defaultConfig(), *arch, unet);
    CHECK(maps["tmH"].of == "Wf");
    CHECK(maps["tmH"].dims == std::vector<long long>{8, 1, 1, 1, 1});
    const Config forward = t->withValues(t->defaultConfig(), {{"GATHER", "halo"}, {"SLICE", "32"}, {"BN", "32"}, {"STAGES", "2"}});
    REQUIRE(t->validate(forward, *arch).empty());
    maps = tensorMaps(*t, forward, *arch, unet);
    CHECK(maps["tmH"].of == "A");
    CHECK(maps["tmH"].mode == "tile");
    CHECK(maps["tmH"].dims == std::vector<long long>{32, 17, 13, 9, 2});
    CHECK(maps["tmH"].box == std::vector<long long>{8, 18, 10, 3, 1});  // 16 columns + 2, 8 rows + 2, 3 planes
    CHECK(maps["tmH"].swizzle == "none");
    CHECK(tensorMaps(*t, t->withValues(forward, {{"HALO_FILTER", "streamed"}}), *arch, unet)["tmH"].box == std::vector<long long>{8, 18, 10, 1, 1});
    CHECK(maps["tmB"].of == "B");
    const Config data = t->withValues(forward, {{"direction", "bwd_data"}});
    REQUIRE(t->validate(data, *arch).empty());
    maps = tensorMaps(*t, data, *arch, unet);
    CHECK(maps["tmH"].of == "A");
    CHECK(maps["tmH"].dims == std::vector<long long>{48, 17, 13, 9, 2});  // dy: K channels, the output's pixels
    CHECK(maps["tmB"].of == "Wf");
    CHECK(maps["tmB"].dims == std::vector<long long>{48, 27, 32, 1});
    CHECK(maps["tmB"].box == std::vector<long long>{32, 1, 32, 1});
    CHECK(maps["tmB"].swizzle == "64B");
    // Refused: a stride, a box over 256 a side, more shared memory than a block has, bwd_weight.
    CHECK_THROWS_WITH(t->resolveArgs(forward, *arch, t->withSizes({{"stride_h", "2"}})), Catch::Contains("needs stride 1"));
    CHECK_THROWS_WITH(t->resolveArgs(forward, *arch, t->withSizes({{"X", "3"}, {"dil_w", "200"}, {"Wi", "500"}})),
                      Catch::Contains("the TMA's boxes are at most 256 a side"));
    CHECK_THROWS_WITH(t->resolveArgs(t->withValues(forward, {{"BN", "128"}}), *arch, t->withSizes({{"C", "256"}})),
                      Catch::Contains("every filter tap for 128 columns") && Catch::Contains("the other HALO_FILTER"));
    // Streamed, each stage brings its plane's taps instead (9 x 128 x 32 channels): the same layer fits.
    const Config streamed = t->withValues(forward, {{"BN", "128"}, {"HALO_FILTER", "streamed"}});
    REQUIRE(t->validate(streamed, *arch).empty());
    CHECK(t->problemRefusal(streamed, *arch, t->withSizes({{"C", "256"}})).empty());
    CHECK_FALSE(t->validate(t->withValues(t->defaultConfig(), {{"HALO_FILTER", "streamed"}}), *arch).empty());  // only with GATHER=halo
    const std::vector<Violation> weight = t->validate(t->withValues(forward, {{"direction", "bwd_weight"}, {"BN", "64"}}), *arch);
    REQUIRE(weight.size() == 1);
    CHECK(weight[0].message.find("not bwd_weight") != std::string::npos);
}

// DATA_FILTER=transposed: backward data reads Wf (the filter mirrored and transposed by the
// prepare kernel: K channels, taps, C rows) k-major, so C need not be a multiple of 8 (ResNet-50's
// 3-channel first layer) and a tile may be 32 channels wide; K must still be a multiple of 8.
// A patch layer (filter = stride) is then walked phase by phase: its GEMM's columns are C.
TEST_CASE("conv_wgmma's backward data reads the transposed filter at any channel count", "[templates][tensor_map]") {
    const ShippedConvWgmma shipped;
    const auto& t = shipped.t;
    const Arch* arch = shipped.arch;
    const SizeMap firstLayer = t->withSizes({{"N", "2"}, {"C", "3"}, {"K", "64"}, {"Hi", "20"}, {"Wi", "20"}, {"Y", "7"}, {"X", "7"},
                                             {"stride_h", "2"}, {"stride_w", "2"}, {"pad_h", "3"}, {"pad_w", "3"}});
    const Config stored = t->withValues(t->defaultConfig(), {{"direction", "bwd_data"}});
    REQUIRE(t->validate(stored, *arch).empty());
    CHECK_THAT(t->problemRefusal(stored, *arch, firstLayer), Catch::Contains("DATA_FILTER=transposed"));
    const Config transposed = t->withValues(stored, {{"DATA_FILTER", "transposed"}, {"BN", "32"}});
    REQUIRE(t->validate(transposed, *arch).empty());
    CHECK(t->problemRefusal(transposed, *arch, firstLayer).empty());
    std::map<std::string, ResolvedArg> maps = tensorMaps(*t, transposed, *arch, firstLayer);
    CHECK(maps["tmA"].of == "A");
    CHECK(maps["tmB"].of == "Wf");
    CHECK(maps["tmB"].dims == std::vector<long long>{64, 49, 3, 1});
    CHECK(maps["tmB"].box == std::vector<long long>{64, 1, 32, 1});
    CHECK(maps["tmB"].swizzle == "128B");
    CHECK_THAT(t->problemRefusal(transposed, *arch, t->withSizes({{"C", "3"}, {"K", "12"}})), Catch::Contains("K alone"));
    // As stored, Tile N 32 is refused (mn-major slices are 64 wide); the other directions read the filter as stored.
    CHECK_FALSE(t->validate(t->withValues(stored, {{"BN", "32"}}), *arch).empty());
    const auto forward = t->validate(t->withValues(t->defaultConfig(), {{"DATA_FILTER", "transposed"}}), *arch);
    REQUIRE(forward.size() == 1);
    CHECK_THAT(forward[0].message, Catch::Contains("how backward data reads the filter"));
    const SizeMap patches = t->withSizes({{"N", "2"}, {"C", "16"}, {"K", "32"}, {"Hi", "8"}, {"Wi", "8"}, {"Y", "2"}, {"X", "2"},
                                          {"stride_h", "2"}, {"stride_w", "2"}, {"pad_h", "0"}, {"pad_w", "0"}});
    auto gemmColumns = [&](const Config& config) {
        for (const auto& [name, value] : t->quantities(config, *arch, patches))
            if (name == "GEMM_N") return value;
        return -1.0;
    };
    CHECK(gemmColumns(stored) == 2 * 2 * 16);  // every phase's tap side by side
    CHECK(gemmColumns(transposed) == 16);
}

// MN_ATOM=32: bwd_weight's mn-major copies are 32 channels (rows) or filters (columns) wide, 64-byte
// rows with the 64-byte swizzle, so a tap of 32 channels fills its rows and Tile N may be 32; a
// tap row folded by FOLD pads to 32 channels instead of 64. Only bwd_weight takes it.
TEST_CASE("conv_wgmma's bwd_weight copies 32-wide mn-major slices with MN_ATOM=32", "[templates][tensor_map]") {
    const ShippedConvWgmma shipped;
    const auto& t = shipped.t;
    const Arch* arch = shipped.arch;
    const SizeMap unet = t->withSizes({{"N", "2"}, {"C", "32"}, {"K", "32"}, {"Di", "9"}, {"Hi", "13"}, {"Wi", "17"}, {"Z", "3"}, {"pad_d", "1"}});
    const Config wide = t->withValues(t->defaultConfig(), {{"direction", "bwd_weight"}, {"BN", "64"}, {"SPLITK", "4"}});
    const Config narrow = t->withValues(wide, {{"MN_ATOM", "32"}, {"BN", "32"}});
    REQUIRE(t->validate(narrow, *arch).empty());
    CHECK_FALSE(t->validate(t->withValues(wide, {{"BN", "32"}}), *arch).empty());  // 64-wide slices: Tile N of 64
    std::map<std::string, ResolvedArg> maps = tensorMaps(*t, narrow, *arch, unet);
    CHECK(maps["tmA"].box == std::vector<long long>{32, 64});
    CHECK(maps["tmA"].swizzle == "64B");
    CHECK(maps["tmB"].box == std::vector<long long>{32, 1, 64, 1});
    CHECK(maps["tmB"].swizzle == "64B");
    CHECK(tensorMaps(*t, wide, *arch, unet)["tmA"].box == std::vector<long long>{64, 64});
    // 27 taps of 32 channels: 864 rows of tiles instead of 1728.
    auto quantity = [&](const Config& config, const SizeMap& sizes, const std::string& wanted) {
        for (const auto& [name, value] : t->quantities(config, *arch, sizes))
            if (name == wanted) return value;
        return -1.0;
    };
    CHECK(quantity(wide, unet, "TILE_ROWS") == 27 * 64);
    CHECK(quantity(narrow, unet, "TILE_ROWS") == 27 * 32);
    // ResNet's first layer folded: 7 taps x 3 channels = 21, padded to 32 instead of 64.
    const SizeMap firstLayer = t->withSizes({{"N", "2"}, {"C", "3"}, {"K", "64"}, {"Hi", "20"}, {"Wi", "20"}, {"Y", "7"}, {"X", "7"},
                                             {"stride_h", "2"}, {"stride_w", "2"}, {"pad_h", "3"}, {"pad_w", "3"}});
    const Config folded = t->withValues(wide, {{"FOLD", "1"}});
    CHECK(quantity(folded, firstLayer, "CE") == 64);
    CHECK(quantity(t->withValues(folded, {{"MN_ATOM", "32"}}), firstLayer, "CE") == 32);
    const auto forward = t->validate(t->withValues(t->defaultConfig(), {{"MN_ATOM", "32"}}), *arch);
    REQUIRE(forward.size() == 1);
    CHECK_THAT(forward[0].message, Catch::Contains("MN_ATOM=32 is the width of bwd_weight's mn-major copies"));
}

TEST_CASE("arch_specific is 1 for sm_90a-style targets only", "[templates][arch]") {
    CHECK(arches().findArch("sm_90a")->expressionVariables().at("arch_specific") == 1);
    CHECK(arches().findArch("sm_90")->expressionVariables().at("arch_specific") == 0);
    CHECK(arches().findArch("sm_120")->expressionVariables().at("arch_specific") == 0);
}

TEST_CASE("runs on the device's arch use its arch-specific target only when the config needs it", "[templates][arch]") {
    auto tma = fixtures().find("tma");
    REQUIRE(tma);
    const Arch* forTma = archForDevice(arches(), "sm_90", *tma, tma->defaultConfig());
    REQUIRE(forTma);
    CHECK(forTma->name == "sm_90a");
    // No arch-specific target helps on sm_80: its own violations are the ones to report.
    CHECK(archForDevice(arches(), "sm_80", *tma, tma->defaultConfig())->name == "sm_80");
    CHECK(archForDevice(arches(), "sm_ninety", *tma, tma->defaultConfig()) == nullptr);

    TemplateLibrary shipped = TemplateLibrary::load(sourceDir() / "templates");
    auto reduce = shipped.find("reduce");
    REQUIRE(reduce);
    CHECK(archForDevice(arches(), "sm_90", *reduce, reduce->defaultConfig())->name == "sm_90");

    // Invalid on both (5 stages of int8 do not fit shared memory): reported for sm_90a, with the
    // one rule the config breaks there, not also "choose sm_90a".
    auto wgmma = shipped.find("gemm_wgmma");
    REQUIRE(wgmma);
    const Config tooDeep = wgmma->withValues(wgmma->defaultConfig(), {{"dtype", "i8"}, {"STAGES", "5"}});
    const Arch* forDeep = archForDevice(arches(), "sm_90", *wgmma, tooDeep);
    REQUIRE(forDeep);
    CHECK(forDeep->name == "sm_90a");
    const auto violations = wgmma->validate(tooDeep, *forDeep);
    REQUIRE(violations.size() == 1);
    CHECK_THAT(violations[0].message, Catch::Contains("shared memory"));
}

// gemm_wgmma's layouts: an operand stored k-contiguous is one box of BK x rows, one stored m- or
// n-contiguous boxes of 64 x BK (a slice of its tile each), so the tensor maps follow the layout;
// only 16-bit types may be read mn-major, and the refusal names the type and layout chosen.
TEST_CASE("gemm_wgmma's tensor maps follow the layout", "[templates][tensor_map]") {
    TemplateLibrary shipped = TemplateLibrary::load(sourceDir() / "templates");
    auto t = shipped.find("gemm_wgmma");
    REQUIRE(t);
    const Arch* arch = arches().findArch("sm_90a");
    REQUIRE(arch);
    const SizeMap sizes = t->withSizes({{"M", "520"}, {"N", "264"}, {"K", "1000"}});
    struct Expected {
        const char* layout;
        std::vector<long long> aDims, aBox, bDims, bBox;
    };
    const Expected cases[] = {
        {"rcr", {1000, 520}, {64, 128}, {1000, 264}, {64, 256}},
        {"rrr", {1000, 520}, {64, 128}, {264, 1000}, {64, 64}},
        {"crr", {520, 1000}, {64, 64}, {264, 1000}, {64, 64}},
        {"ccr", {520, 1000}, {64, 64}, {1000, 264}, {64, 256}},
    };
    for (const Expected& e : cases) {
        CAPTURE(e.layout);
        const Config config = t->withValues(t->defaultConfig(), {{"layout", e.layout}});
        CHECK(t->validate(config, *arch).empty());
        std::map<std::string, ResolvedArg> maps = tensorMaps(*t, config, *arch, sizes);
        REQUIRE(maps.size() == 2);
        CHECK(maps["tmA"].dims == e.aDims);
        CHECK(maps["tmA"].box == e.aBox);
        CHECK(maps["tmB"].dims == e.bDims);
        CHECK(maps["tmB"].box == e.bBox);
    }
    // Swapped operands: B's tile is the 64-row side, A's the BN-wide one.
    const Config swapped = t->withValues(t->defaultConfig(), {{"SWAP_AB", "1"}, {"BN", "16"}, {"STORE", "direct"}});
    CHECK(t->validate(swapped, *arch).empty());
    for (const ResolvedArg& a : t->resolveArgs(swapped, *arch, sizes)) {
        if (a.name == "tmA") CHECK(a.box == std::vector<long long>{64, 16});
        if (a.name == "tmB") CHECK(a.box == std::vector<long long>{64, 128});
    }
    const auto refused = t->validate(t->withValues(t->defaultConfig(), {{"layout", "crr"}, {"dtype", "tf32"}}), *arch);
    REQUIRE(refused.size() == 1);
    CHECK_THAT(refused[0].message, Catch::Contains("wgmma reads tf32 operands only k-major") && Catch::Contains("f16 or bf16 for crr"));
}

// A <requirement> refuses a problem the kernel cannot run, in words, before anything is compiled
// or launched; the config itself stays valid.
TEST_CASE("a problem that breaks a template's requirement is refused with its message", "[templates][tensor_map]") {
    const ShippedConvWgmma shipped;
    const auto& t = shipped.t;
    const Arch* arch = shipped.arch;
    const Config backward = t->withValues(t->defaultConfig(), {{"direction", "bwd_data"}});
    CHECK(t->problemRefusal(backward, *arch, t->withSizes({})).empty());
    const std::string oddFilters = t->problemRefusal(backward, *arch, t->withSizes({{"K", "12"}}));
    CHECK_THAT(oddFilters, Catch::Contains("this problem does not suit conv_wgmma") && Catch::Contains("K = 12") &&
                               Catch::Contains("conv template"));
    CHECK_THROWS_WITH(t->resolveArgs(backward, *arch, t->withSizes({{"K", "12"}})), Catch::Contains("multiples of 8"));
    // Every direction takes strides, but not channel counts the TMA cannot copy.
    CHECK(t->problemRefusal(backward, *arch, t->withSizes({{"stride_h", "2"}, {"stride_w", "2"}})).empty());
    CHECK(t->problemRefusal(t->defaultConfig(), *arch, t->withSizes({{"stride_h", "2"}})).empty());
    const Config weights = t->withValues(t->defaultConfig(), {{"direction", "bwd_weight"}});
    CHECK(t->problemRefusal(weights, *arch, t->withSizes({{"stride_h", "2"}})).empty());
    CHECK_THAT(t->problemRefusal(weights, *arch, t->withSizes({{"K", "12"}})), Catch::Contains("K = 12"));
    CHECK_THAT(t->problemRefusal(t->defaultConfig(), *arch, t->withSizes({{"C", "12"}})),
               Catch::Contains("C = 12") && Catch::Contains("multiples of 8"));
}

// gemm_wgmma's operands arrive through the TMA, which reads rows that start on 16 bytes: the
// stored row of each operand (K for a k-major one, N for a row-major B, M for a column-major A)
// must be a multiple of 8 f16 elements, said before anything runs.
TEST_CASE("gemm_wgmma refuses operands whose stored rows the TMA cannot copy", "[templates][tensor_map]") {
    TemplateLibrary shipped = TemplateLibrary::load(sourceDir() / "templates");
    auto t = shipped.find("gemm_wgmma");
    REQUIRE(t);
    const Arch* arch = arches().findArch("sm_90a");
    REQUIRE(arch);
    const SizeMap odd = t->withSizes({{"M", "127"}, {"N", "129"}, {"K", "80"}});
    CHECK(t->problemRefusal(t->defaultConfig(), *arch, odd).empty());  // rcr: only K's rows, 80 elements
    const std::string rowMajorB = t->problemRefusal(t->withValues(t->defaultConfig(), {{"layout", "rrr"}}), *arch, odd);
    CHECK_THAT(rowMajorB, Catch::Contains("this problem does not suit gemm_wgmma") && Catch::Contains("B in rows of 129") &&
                              Catch::Contains("N = 129") && Catch::Contains("multiple of 8"));
    CHECK_THAT(t->problemRefusal(t->withValues(t->defaultConfig(), {{"layout", "ccr"}}), *arch, odd), Catch::Contains("A is stored in rows of 127"));
    CHECK(t->problemRefusal(t->withValues(t->defaultConfig(), {{"layout", "rrr"}}), *arch, t->withSizes({{"N", "136"}, {"K", "80"}})).empty());
    CHECK_THAT(t->problemRefusal(t->withValues(t->defaultConfig(), {{"dtype", "e4m3"}}), *arch, t->withSizes({{"K", "88"}})),
               Catch::Contains("multiple of 16"));
}

// Share strings: round trips of shipped and user variants, opening them in another installation
// (a carried template installed, reused or renamed), and refusals of malformed strings, including
// every truncation and many random corruptions of a valid one.
#include "../test_support.hpp"
#include "templates/share_string.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <random>

using namespace kx::engine;
using kx::test::ScratchFolder;
using kx::test::sourceDir;
namespace fs = std::filesystem;

namespace {

const char* const kKernel = "__global__ void scale(float* p, float s) { p[blockIdx.x * blockDim.x + threadIdx.x] *= s; }\n";


const ArchDatabase& arches() {
    static const ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    return db;
}

ShareData userShare() {
    ShareData d;
    d.templateId = "scale";
    d.arch = "sm_90";
    d.config = {{"BLOCK", "128"}};
    d.flags = parseCompileFlags("maxrregcount=32");
    d.sizes = {{"n", 4096}};
    d.files = templateForKernel(kKernel, "scale");
    return d;
}

}  // namespace

TEST_CASE("share strings round-trip a shipped and a user variant", "[share]") {
    ShareData shipped;
    shipped.templateId = "gemm";
    shipped.arch = "sm_90";
    shipped.config = {{"BM", "64"}, {"BN", "128"}};
    shipped.flags = parseCompileFlags("fast_math,ptxas_opt=2");
    const std::string text = encodeShareString(shipped);
    CHECK(text.rfind("kx1:", 0) == 0);
    CHECK(text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", 4) == std::string::npos);
    CHECK(decodeShareString(text) == shipped);
    CHECK(decodeShareString("  \n" + text + "\r\n") == shipped);  // as copied from a terminal
    CHECK(encodeShareString(shipped) == text);                     // deterministic
    CHECK(text.size() < 140);

    const ShareData user = userShare();
    CHECK(decodeShareString(encodeShareString(user)) == user);
}

TEST_CASE("a share string of the editor's variant carries a user template's files only", "[share]") {
    ScratchFolder root("share_of");
    writeTemplateFolder(root.path / "scale", templateForKernel(kKernel, "scale"));
    const TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "templates", {root.path});
    const auto gemm = lib.find("gemm");
    const auto scale = lib.find("scale");
    REQUIRE(gemm);
    REQUIRE(scale);
    const ShareData g = shareDataOf(lib, *gemm, "sm_90", gemm->defaultConfig(), gemm->withSizes({{"M", "512"}}));
    CHECK(g.files.empty());
    CHECK(g.sizes == std::map<std::string, long long>{{"M", 512}});  // the sizes that differ from the defaults
    const ShareData s = shareDataOf(lib, *scale, "sm_90", scale->defaultConfig(), scale->defaultSizes());
    CHECK(s.files == templateForKernel(kKernel, "scale"));
}

TEST_CASE("opening a share string installs, reuses or renames the template it carries", "[share]") {
    ScratchFolder root("share_open");
    TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "templates", {root.path});
    const ShareData data = userShare();

    const OpenedShare first = openShare(data, lib, arches(), root.path);
    CHECK(first.carriedTemplate);
    CHECK(first.installed);
    CHECK(first.folder == root.path / "scale");
    CHECK(fs::exists(root.path / "scale" / "kernel.cu"));
    CHECK(first.tmpl->configName(first.config) == "scale_b128_r32");
    CHECK(first.sizes.at("n") == 4096);
    CHECK(lib.isUser("scale"));

    // The same string again (a second window on this machine): the same template, nothing written.
    const OpenedShare again = openShare(data, lib, arches(), root.path);
    CHECK_FALSE(again.installed);
    CHECK(again.tmpl == lib.find("scale"));

    // Another kernel under a taken id keeps the first one and arrives as scale_2.
    ShareData other = data;
    other.files["kernel.cu"] += "// another\n";
    const OpenedShare renamed = openShare(other, lib, arches(), root.path);
    CHECK(renamed.installed);
    CHECK(renamed.tmpl->id() == "scale_2");
    CHECK(renamed.folder == root.path / "scale_2");
    CHECK(renamed.config.templateId == "scale_2");
    CHECK_THAT(lib.find("scale")->kernelSource(), !Catch::Contains("// another"));

    // A shipped variant opens from the library alone.
    ShareData gemm;
    gemm.templateId = "gemm";
    gemm.arch = "sm_80";
    gemm.config = {{"BM", "64"}};
    const OpenedShare g = openShare(gemm, lib, arches(), root.path);
    CHECK_FALSE(g.carriedTemplate);
    CHECK(g.config.values.at("BM") == "64");
    CHECK(g.arch->name == "sm_80");
}

TEST_CASE("opening refuses what does not fit this installation, writing nothing", "[share]") {
    ScratchFolder root("share_refuse");
    TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "templates", {root.path});
    ShareData d = userShare();
    d.arch = "sm_7000";
    CHECK_THROWS_WITH(openShare(d, lib, arches(), root.path), Catch::Contains("arch 'sm_7000' is not known here"));
    d = userShare();
    d.config["BLOCK"] = "100";
    CHECK_THROWS_WITH(openShare(d, lib, arches(), root.path), Catch::Contains("BLOCK=100 is not allowed"));
    d = userShare();
    d.sizes["m"] = 5;
    CHECK_THROWS_WITH(openShare(d, lib, arches(), root.path), Catch::Contains("'m' is not a problem size"));
    d = userShare();
    std::string& manifest = d.files["manifest.xml"];
    manifest.replace(manifest.find("<name-pattern>"), 14, "<name-x>");
    manifest.replace(manifest.find("</name-pattern>"), 15, "</name-x>");
    CHECK_THROWS_WITH(openShare(d, lib, arches(), root.path), Catch::Contains("manifest.xml:") && Catch::Contains("<name-pattern>"));
    d = userShare();
    d.files.erase("kernel.cu");
    CHECK_THROWS_WITH(openShare(d, lib, arches(), root.path), Catch::Contains("kernel source 'kernel.cu' is missing"));
    d = userShare();
    d.templateId = "other";
    CHECK_THROWS_WITH(openShare(d, lib, arches(), root.path), Catch::Contains("manifest's id 'scale' is not its template 'other'"));
    ShareData unknown;
    unknown.templateId = "not_here";
    unknown.arch = "sm_90";
    CHECK_THROWS_WITH(openShare(unknown, lib, arches(), root.path), Catch::Contains("does not have"));
    CHECK(fs::is_empty(root.path));
    CHECK_FALSE(lib.find("scale"));
}

TEST_CASE("malformed share strings are refused with one line", "[share]") {
    const std::string good = encodeShareString(userShare());
    auto refusal = [](const std::string& text) {
        try {
            decodeShareString(text);
        } catch (const InputError& e) {
            const std::string what = e.what();
            CHECK(what.rfind("share string: ", 0) == 0);
            CHECK(what.find('\n') == std::string::npos);
            return what;
        }
        FAIL("accepted: " << text.substr(0, 80));
        return std::string();
    };
    CHECK_THAT(refusal(""), Catch::Contains("empty"));
    CHECK_THAT(refusal("hello"), Catch::Contains("must start with kx1:"));
    CHECK_THAT(refusal("kx2:" + good.substr(4)), Catch::Contains("version 2 is newer"));
    CHECK_THAT(refusal("kx1:abc$def"), Catch::Contains("'$' at position 8 is not a base64url character"));
    CHECK_THAT(refusal("kx1:abc\xff"), Catch::Contains("byte 0xff"));
    CHECK_THAT(refusal("kx1:AAAAA"), Catch::Contains("cut short"));
    CHECK_THAT(refusal("kx1:" + std::string(4000, 'A')), Catch::Contains("damaged"));
    CHECK_THAT(refusal(std::string("kx1:") + std::string(kMaxShareStringChars, 'A')), Catch::Contains("more than"));

    // Every truncation of a valid string fails cleanly (a partial copy).
    for (std::size_t n = 0; n < good.size(); ++n) refusal(good.substr(0, n));

    // JSON that is well-formed but not a share's.
    CHECK_THAT(refusal(shareStringOfJson("[1,2]")), Catch::Contains("not a JSON object"));
    CHECK_THAT(refusal(shareStringOfJson("{nope")), Catch::Contains("not a JSON object"));
    CHECK_THAT(refusal(shareStringOfJson(R"({"arch":"sm_90","config":{},"flags":""})")), Catch::Contains("'template' is missing"));
    CHECK_THAT(refusal(shareStringOfJson(R"({"template":7,"arch":"sm_90","config":{},"flags":""})")), Catch::Contains("'template' must be"));
    CHECK_THAT(refusal(shareStringOfJson(R"({"template":"../x","arch":"sm_90","config":{},"flags":""})")), Catch::Contains("not a template id"));
    CHECK_THAT(refusal(shareStringOfJson(R"({"template":"g","arch":"sm_90","config":{"BM":64},"flags":""})")), Catch::Contains("parameter 'BM' must be text"));
    CHECK_THAT(refusal(shareStringOfJson(R"({"template":"g","arch":"sm_90","config":{},"flags":"maxrregcount=9000"})")),
               Catch::Contains("0 (no cap) or 16 to 255"));
    CHECK_THAT(refusal(shareStringOfJson(R"({"template":"g","arch":"sm_90","config":{},"flags":"","sizes":{"M":1e300}})")),
               Catch::Contains("size 'M' must be an integer from 1 to 2^62"));
    CHECK_THAT(refusal(shareStringOfJson(R"({"template":"g","arch":"sm_90","config":{},"flags":"","sizes":{"M":9223372036854775807}})")),
               Catch::Contains("size 'M' must be an integer"));
    CHECK_THAT(refusal(shareStringOfJson(R"({"template":"g","arch":"sm_90","config":{},"flags":"","sizes":{"M":-4}})")),
               Catch::Contains("size 'M' must be an integer"));
    CHECK_THAT(refusal(shareStringOfJson(R"({"template":"g","arch":"sm_90","config":{},"flags":"","files":{"../evil":"x","manifest.xml":""}})")),
               Catch::Contains("'../evil' is not a template file name"));
    CHECK_THAT(refusal(shareStringOfJson(R"({"template":"g","arch":"sm_90","config":{},"flags":"","files":{"k.cu":"x"}})")),
               Catch::Contains("no manifest.xml"));
    CHECK_THAT(refusal(shareStringOfJson(R"({"template":"g","arch":"sm_90","config":{},"flags":"","extra":1})")), Catch::Contains("unknown field 'extra'"));

    // A small string that would inflate to gigabytes stops at the cap.
    CHECK_THAT(refusal(shareStringOfJson(std::string(kMaxShareJsonBytes + 1, ' '))), Catch::Contains("expands to more than"));
}

TEST_CASE("random corruptions of a share string decode or are refused, never worse", "[share][fuzz]") {
    const std::string good = encodeShareString(userShare());
    std::mt19937 rng(1234);
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    int refused = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string text = good;
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits; ++e) {
            const std::size_t at = 4 + rng() % (text.size() - 4);
            switch (rng() % 3) {
            case 0: text[at] = alphabet[rng() % alphabet.size()]; break;
            case 1: text.erase(at, 1); break;
            default: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
            }
        }
        try {
            decodeShareString(text);
        } catch (const InputError&) {
            ++refused;
        }
    }
    CHECK(refused > 2900);  // zlib's checksum catches nearly every change
}

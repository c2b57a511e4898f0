// User templates: a pasted kernel made into a template, user folders loaded beside the shipped
// templates (a bad one reported with file and line, never stopping the others), edits replacing
// a loaded template, and the helpers that name and write template folders.
#include "../test_support.hpp"
#include "arch/arch_database.hpp"
#include "compile/compiler.hpp"
#include "compile/variant_build.hpp"
#include "run/run_limits.hpp"
#include "templates/user_template.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using namespace kx::engine;
using kx::test::ScratchFolder;
using kx::test::sourceDir;
namespace fs = std::filesystem;

namespace {

const char* const kSaxpy = R"(// y = a*x + y, one element per thread
__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];   // not a __global__ void other( in a comment
}
)";


const ArchDatabase& arches() {
    static const ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    return db;
}

}  // namespace

TEST_CASE("a pasted kernel becomes a template that renders, validates and compiles", "[templates][user]") {
    CHECK(pastedKernelName(kSaxpy) == "saxpy");
    const TemplateFiles files = templateForKernel(kSaxpy, "saxpy");
    REQUIRE(files.count("manifest.xml"));
    REQUIRE(files.count("kernel.cu"));
    CHECK_THAT(files.at("kernel.cu"), Catch::Contains("extern \"C\" __global__ void ${KERNEL_NAME}(int n"));
    CHECK_THAT(files.at("kernel.cu"), Catch::Contains("// not a __global__ void other( in a comment"));

    ScratchFolder root("user_pasted");
    const auto tmpl = templateFromText(files.at("manifest.xml"), files, root.path / "saxpy");
    CHECK(tmpl->id() == "saxpy");
    CHECK(tmpl->manifest().category == "Your kernels");
    Config config = tmpl->defaultConfig();
    CHECK(tmpl->configName(config) == "saxpy_b256");
    const Arch& sm90 = *arches().findArch("sm_90");
    CHECK(tmpl->validate(config, sm90).empty());
    CHECK(tmpl->launch(config, sm90, tmpl->defaultSizes()).threadsPerBlock() == 256);
    CHECK(tmpl->launch(config, sm90, tmpl->defaultSizes()).grid[0] == 4096);
    // Not runnable until the manifest describes the arguments, and it says so.
    CHECK_THAT(notRunnableReason(*tmpl), Catch::Contains("describes no kernel arguments"));

    config.flags.maxRegisters = 16;
    const PreparedVariant v = prepareVariant(*tmpl, config, sm90);
    Compiler compiler("");
    const CompileResult r = compiler.compile(v.request, false);
    INFO(r.log);
    REQUIRE(r.ok);
    REQUIRE(r.kernels.size() == 1);
    CHECK(r.kernels.front().function == "saxpy_b256_r16");
    CHECK(r.kernels.front().registers <= 16);
    CHECK(ptxasAppliedRegisterCap(r.log, "saxpy_b256_r16"));
}

TEST_CASE("pasted kernels: what is kept, what is refused", "[templates][user]") {
    SECTION("extern C and launch bounds are kept") {
        const std::string text = "extern \"C\"\n__global__ void __launch_bounds__(128, 2) k1(float* p) { p[threadIdx.x] = 1; }\n";
        const std::string source = templateForKernel(text, "k1").at("kernel.cu");
        CHECK(source == "extern \"C\"\n__global__ void __launch_bounds__(128, 2) ${KERNEL_NAME}(float* p) { p[threadIdx.x] = 1; }\n");
    }
    SECTION("device helpers and strings mentioning __global__ are not kernels") {
        const std::string text = "__device__ float sq(float x) { return x * x; }\nconst char* s = \"__global__ void fake(\";\n"
                                 "/* __global__ void old( */ __global__ void real(float* p) { p[0] = sq(2); }";
        CHECK(pastedKernelName(text) == "real");
    }
    CHECK_THROWS_WITH(templateForKernel("int main() { return 0; }", "x"), Catch::Contains("no kernel found"));
    CHECK_THROWS_WITH(templateForKernel("__global__ void a() {}\n__global__ void b() {}", "x"), Catch::Contains("2 kernels (a, b)"));
    CHECK_THROWS_WITH(templateForKernel("template <int N>\n__global__ void t(float* p) {}", "x"), Catch::Contains("line 2: a templated kernel"));
    CHECK_THROWS_WITH(templateForKernel("\n__global__ int bad() {}", "x"), Catch::Contains("line 2: __global__ is not followed by 'void NAME('"));
    CHECK_THROWS_WITH(templateForKernel(kSaxpy, "Not An Id"), Catch::Contains("not a template id"));
    // A long comment is blank code to the scanner, not a stack-deep regex match.
    const std::string longComment = "__global__ /*" + std::string(2 << 20, ' ') + "*/ void wide(float* p) {}";
    CHECK(pastedKernelName(longComment) == "wide");
}

TEST_CASE("template ids, file names and copies of manifests", "[templates][user]") {
    CHECK(templateIdFrom("MyKernel v2!") == "mykernel_v2");
    CHECK(templateIdFrom("9lives") == "k9lives");
    CHECK(templateIdFrom("___") == "kernel");
    CHECK(templateIdFrom(std::string(100, 'a')).size() == 48);
    CHECK_NOTHROW(checkTemplateFileName("kernel.cu"));
    for (const char* bad : {"../x.cu", "/etc/passwd", ".hidden", "a/b.cu", "", "spa ce.cu"})
        CHECK_THROWS_WITH(checkTemplateFileName(bad), Catch::Contains("not a template file name"));

    const TemplateFiles files = templateForKernel(kSaxpy, "saxpy");
    const std::string renamed = manifestWithId(files.at("manifest.xml"), "saxpy_2");
    CHECK_THAT(renamed, Catch::Contains("id=\"saxpy_2\""));
    CHECK_THAT(renamed, Catch::Contains("<name-pattern>saxpy_b{BLOCK}</name-pattern>"));
    CHECK_THROWS_AS(manifestWithId("<oops", "x"), InputError);

    ScratchFolder root("user_ids");
    const TemplateLibrary shipped = TemplateLibrary::load(sourceDir() / "templates");
    CHECK(freeTemplateId(shipped, root.path, "gemm") == "gemm_2");
    fs::create_directories(root.path / "mine");
    CHECK(freeTemplateId(shipped, root.path, "mine") == "mine_2");
    CHECK(freeTemplateId(shipped, root.path, "fresh") == "fresh");
}

TEST_CASE("user folders load beside the shipped templates, and a bad one is reported and skipped", "[templates][user]") {
    ScratchFolder root("user_library");
    writeTemplateFolder(root.path / "saxpy", templateForKernel(kSaxpy, "saxpy"));
    TemplateFiles broken = templateForKernel(kSaxpy, "broken");
    broken["manifest.xml"].replace(broken["manifest.xml"].find("<launch "), 8, "<lunch ");
    writeTemplateFolder(root.path / "broken", broken);
    TemplateFiles clash = templateForKernel(kSaxpy, "gemm");  // a shipped template's id
    writeTemplateFolder(root.path / "gemm_clash", clash);

    const TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "templates", {root.path});
    CHECK(lib.find("gemm"));
    CHECK_FALSE(lib.isUser("gemm"));
    REQUIRE(lib.find("saxpy"));
    CHECK(lib.isUser("saxpy"));
    CHECK_FALSE(lib.find("broken"));
    REQUIRE(lib.errors().size() == 2);
    const LoadError& bad = lib.errors()[0];
    CHECK(bad.file == (root.path / "broken" / "manifest.xml").string());
    CHECK(bad.line > 1);
    CHECK_THAT(bad.message, Catch::Contains("<launch>"));
    CHECK_THAT(lib.errors()[1].message, Catch::Contains("template id 'gemm' is used twice"));

    // A folder given directly (one template) loads as well as a folder of them.
    TemplateLibrary one = TemplateLibrary::load(sourceDir() / "templates", {root.path / "saxpy"});
    CHECK(one.isUser("saxpy"));
    CHECK(one.errors().empty());
    TemplateLibrary missing = TemplateLibrary::load(sourceDir() / "templates", {root.path / "nope"});
    REQUIRE(missing.errors().size() == 1);
    CHECK(missing.errors().front().message == "template folder not found");
}

TEST_CASE("an edited user template replaces the loaded one, and shipped ones cannot be replaced", "[templates][user]") {
    ScratchFolder root("user_edit");
    const fs::path folder = root.path / "saxpy";
    TemplateFiles files = templateForKernel(kSaxpy, "saxpy");
    writeTemplateFolder(folder, files);
    TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "templates", {root.path});
    const auto before = lib.find("saxpy");
    REQUIRE(before);
    CHECK(filesOfTemplate(*before) == files);
    CHECK(readTemplateFolder(folder) == files);

    files["kernel.cu"] += "// edited\n";
    writeTemplateFolder(folder, files);
    lib.putUser(loadTemplateFolder(folder));
    CHECK_THAT(lib.find("saxpy")->kernelSource(), Catch::EndsWith("// edited\n"));
    CHECK_THAT(before->kernelSource(), !Catch::Contains("// edited"));  // handed-out versions stay as they were
    CHECK(lib.templates().size() == TemplateLibrary::load(sourceDir() / "templates").templates().size() + 1);

    CHECK_THROWS_WITH(lib.putUser(lib.find("gemm")), Catch::Contains("shipped template's id"));
}

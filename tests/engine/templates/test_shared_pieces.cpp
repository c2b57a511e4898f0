// Device pieces (templates/common/, and a template's own in its folder): an include line becomes
// the piece when a template renders; bad names, missing files and nested pieces are refused with
// file and line; the template's own lines keep their numbers in errors.
#include "../test_support.hpp"
#include "templates/shared_pieces.hpp"
#include "templates/template_library.hpp"
#include "templates/user_template.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <set>

using namespace kx::engine;
using kx::test::fakeArch;
using kx::test::ScratchFolder;
using kx::test::sourceDir;

namespace {

const char* kManifest =
    "<template id=\"scale\"><source file=\"kernel.cu\"/><name-pattern>scale_b{BLOCK}</name-pattern>"
    "<parameters><param name=\"BLOCK\" type=\"int\" values=\"128,256\" default=\"256\"/></parameters>"
    "<problem><size name=\"n\" default=\"1024\"/></problem><launch grid-x=\"ceil_div(n,BLOCK)\" block-x=\"BLOCK\"/></template>";

void writeFile(const std::filesystem::path& file, const std::string& text) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
}

// The scale template with kernel.cu as given and the pieces read from root/common/.
std::shared_ptr<const Template> scaleWith(const std::string& kernel, const std::filesystem::path& root) {
    const auto parsed = templateFromText(kManifest, {{"kernel.cu", "extern \"C\" __global__ void ${KERNEL_NAME}() {}\n"}}, root / "scale");
    return std::make_shared<const Template>(parsed->manifest(), std::map<std::string, std::string>{{"cuda", kernel}},
                                            readSharedPieces(kernel, root, "scale/kernel.cu"));
}

}  // namespace

TEST_CASE("a shared piece's include line becomes the piece, its placeholders filled", "[templates][pieces]") {
    ScratchFolder root("pieces_render");
    writeFile(root.path / "common/block_size.cuh", "constexpr int kBlock = ${BLOCK};\n");
    const std::string kernel =
        "// line 1\n"
        "  #include \"common/block_size.cuh\"  \n"
        "#include <cuda_fp16.h>\n"
        "extern \"C\" __global__ void ${KERNEL_NAME}() {}\n";
    const auto tmpl = scaleWith(kernel, root.path);
    const std::string out = tmpl->render(tmpl->defaultConfig(), fakeArch());
    CHECK(out == "// line 1\nconstexpr int kBlock = 256;\n#include <cuda_fp16.h>\nextern \"C\" __global__ void scale_b256() {}\n");
    CHECK(sharedPieceIncludes(kernel).size() == 1);
    CHECK(sharedPieceIncludes(kernel).front().line == 2);
}

TEST_CASE("errors after an include name the template's own line, errors in a piece the piece's", "[templates][pieces]") {
    ScratchFolder root("pieces_lines");
    writeFile(root.path / "common/two_lines.cuh", "// one\n// two\n");
    writeFile(root.path / "common/bad.cuh", "// one\nint x = ${NOPE};\n");
    const auto later = scaleWith("#include \"common/two_lines.cuh\"\n// 2\nint y = ${MISSING};\n", root.path);
    CHECK_THROWS_WITH(later->render(later->defaultConfig(), fakeArch()), Catch::Contains("kernel.cu:3:") && Catch::Contains("MISSING"));
    const auto inPiece = scaleWith("// 1\n#include \"common/bad.cuh\"\n", root.path);
    CHECK_THROWS_WITH(inPiece->render(inPiece->defaultConfig(), fakeArch()), Catch::Contains("templates/common/bad.cuh:2:") && Catch::Contains("NOPE"));
}

TEST_CASE("a shared piece must be common/NAME.cuh, exist and include no other piece", "[templates][pieces]") {
    ScratchFolder root("pieces_bad");
    writeFile(root.path / "common/nested.cuh", "#include \"common/nested.cuh\"\n");
    writeFile(root.path / "secret.cuh", "int secret;\n");
    CHECK_THROWS_WITH(readSharedPieces("\n#include \"common/../secret.cuh\"\n", root.path, "k.cu"),
                      Catch::Contains("k.cu:2:") && Catch::Contains("lower-case letters"));
    CHECK_THROWS_WITH(readSharedPieces("#include \"common/Upper.cuh\"\n", root.path, "k.cu"), Catch::Contains("k.cu:1:"));
    CHECK_THROWS_WITH(readSharedPieces("#include \"common/absent.cuh\"\n", root.path, "k.cu"),
                      Catch::Contains("k.cu:1:") && Catch::Contains("does not exist"));
    CHECK_THROWS_WITH(readSharedPieces("#include \"common/nested.cuh\"\n", root.path, "k.cu"), Catch::Contains("do not nest"));
    // Other includes are the compiler's business.
    CHECK(readSharedPieces("#include \"other/x.cuh\"\n#include <cuda_fp16.h>\n", root.path, "k.cu").empty());
}

TEST_CASE("a template whose piece was not loaded says so when it renders", "[templates][pieces]") {
    ScratchFolder root("pieces_unloaded");
    const auto parsed = templateFromText(kManifest, {{"kernel.cu", "// k\n"}}, root.path / "scale");
    const Template bare(parsed->manifest(), std::string("#include \"common/pack_pair.cuh\"\n"));
    CHECK_THROWS_WITH(bare.render(bare.defaultConfig(), fakeArch()), Catch::Contains("was not loaded"));
}

TEST_CASE("every shipped piece is used by a shipped template", "[templates][pieces]") {
    const auto lib = TemplateLibrary::load(sourceDir() / "templates");
    CHECK(lib.errors().empty());
    std::set<std::string> used;
    for (const auto& t : lib.templates())
        for (const char* lang : {"cuda", "hip"})
            for (const SharedPieceInclude& inc : sharedPieceIncludes(t->kernelSource(lang))) used.insert(inc.name);
    for (const auto& e : std::filesystem::directory_iterator(sourceDir() / "templates/common")) {
        INFO(e.path());
        CHECK(used.count("common/" + e.path().filename().string()) == 1);
    }
}

// A large template splits its source into pieces of its own folder, `#include "NAME.cuh"`: they
// render in place like the shared ones, their errors name their file, and a user template's own
// pieces travel with its files (a share string carries them; the carried text is what renders).
TEST_CASE("a template's own pieces come from its folder, or with its carried files", "[templates][pieces]") {
    ScratchFolder root("pieces_own");
    const std::string kernel =
        "#include \"common/block_order.cuh\"\n"
        "#include \"halo_gather.cuh\"\n"
        "extern \"C\" __global__ void ${KERNEL_NAME}() {}\n";
    TemplateFiles files = templateForKernel("extern \"C\" __global__ void scale() {}\n", "scale");
    const std::string source = "kernel.cu";  // templateForKernel's source
    REQUIRE(files.count(source));
    files[source] = kernel;
    files["halo_gather.cuh"] = "constexpr int kTile = ${BLOCK};\n";
    writeTemplateFolder(root.path / "scale", files);
    const auto tmpl = loadTemplateFolder(root.path / "scale");
    const std::string out = tmpl->render(tmpl->defaultConfig(), fakeArch());
    CHECK_THAT(out, Catch::Contains("constexpr int kTile = ") && Catch::Contains("block_order") && !Catch::Contains("#include \"halo_gather.cuh\""));
    CHECK(filesOfTemplate(*tmpl).at("halo_gather.cuh") == files["halo_gather.cuh"]);
    CHECK(filesOfTemplate(*tmpl).count("common/block_order.cuh") == 0);

    // Carried files: the piece comes from them, and must be among them.
    const auto carried = templateFromText(files.at("manifest.xml"), files, root.path / "elsewhere");
    CHECK(carried->render(carried->defaultConfig(), fakeArch()) == out);
    TemplateFiles without = files;
    without.erase("halo_gather.cuh");
    CHECK_THROWS_WITH(templateFromText(files.at("manifest.xml"), without, root.path / "elsewhere"),
                      Catch::Contains(source + ":2:") && Catch::Contains("not among the template's files"));

    // An error inside the piece names the piece in the template's folder.
    std::filesystem::remove(root.path / "scale" / "halo_gather.cuh");
    CHECK_THROWS_WITH(loadTemplateFolder(root.path / "scale"), Catch::Contains(source + ":2:") && Catch::Contains("does not exist"));
    writeFile(root.path / "scale" / "halo_gather.cuh", "// one\nint x = ${NOPE};\n");
    const auto broken = loadTemplateFolder(root.path / "scale");
    CHECK_THROWS_WITH(broken->render(broken->defaultConfig(), fakeArch()), Catch::Contains("scale/halo_gather.cuh:2:") && Catch::Contains("NOPE"));
}

TEST_CASE("a template's own piece has a plain name, nests nothing, and needs a folder", "[templates][pieces]") {
    ScratchFolder root("pieces_own_bad");
    writeFile(root.path / "own" / "nested.cuh", "#include \"common/pack_pair.cuh\"\n");
    const LocalPieceReader own = localPiecesIn(root.path / "own");
    CHECK_THROWS_WITH(readSharedPieces("#include \"Upper.cuh\"\n", root.path, "k.cu", own),
                      Catch::Contains("k.cu:1:") && Catch::Contains("own piece") && Catch::Contains("lower-case letters"));
    CHECK_THROWS_WITH(readSharedPieces("\n#include \"nested.cuh\"\n", root.path, "k.cu", own), Catch::Contains("k.cu:2:") && Catch::Contains("do not nest"));
    CHECK_THROWS_WITH(readSharedPieces("#include \"nested.cuh\"\n", root.path, "k.cu"), Catch::Contains("no template folder"));
    // A header of another kind, or in another folder, is the compiler's business.
    CHECK(readSharedPieces("#include \"helper.h\"\n#include \"sub/x.cuh\"\n", root.path, "k.cu", own).empty());
}

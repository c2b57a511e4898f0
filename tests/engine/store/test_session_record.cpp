// Recording into sessions (the path kx run --session and the app share), the editor state, and
// Save As copies.
#include "store/session_record.hpp"
#include "store/session_store.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace kx::engine;

namespace {

fs::path freshFolder(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("kx-record-test-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

Config reduceConfig(const std::string& block) {
    Config c;
    c.templateId = "reduce";
    c.values = {{"BLOCK", block}, {"ITEMS", "4"}};
    return c;
}

CompileResult compiled(int registers) {
    CompileResult r;
    r.ok = true;
    r.assembled = true;
    r.ptx = ".version 8.8\n.entry kx_reduce() { ret; }\n";
    KernelResources k;
    k.function = "kx_reduce";
    k.registers = registers;
    k.sharedBytes = 1024;
    k.spillStoreBytes = 8;
    k.barriers = 1;
    r.kernels = {k};
    return r;
}

}  // namespace

TEST_CASE("the resources artifact reads back what was written", "[store][record]") {
    const CompileResult c = compiled(40);
    const std::vector<KernelResources> back = parseResourcesJson(resourcesJson(c.kernels));
    REQUIRE(back.size() == 1);
    CHECK(back[0].function == "kx_reduce");
    CHECK(back[0].registers == 40);
    CHECK(back[0].sharedBytes == 1024);
    CHECK(back[0].spillStoreBytes == 8);
    CHECK(back[0].barriers == 1);
    CHECK_THROWS_AS(parseResourcesJson("{\"not\": \"a list\"}"), InputError);
    CHECK_THROWS_AS(parseResourcesJson("[{\"registers\": \"forty\"}]"), InputError);
}

TEST_CASE("recording finds the variant of the same config and names clashes apart", "[store][record]") {
    const fs::path dir = freshFolder("variants");
    SessionStore store = SessionStore::create(dir / "s.kxs");
    const VariantArtifacts a = artifactsOf("__global__ void kx_reduce() {}", compiled(40), "SASS listing");
    const std::int64_t first = recordVariant(store, "reduce_256", "sm_90", reduceConfig("256"), a);
    // The same config and arch again: the same variant, its artifacts replaced, not duplicated.
    CHECK(recordVariant(store, "reduce_256", "sm_90", reduceConfig("256"), a) == first);
    // The same name for another arch or config: new variants under distinct names.
    const std::int64_t otherArch = recordVariant(store, "reduce_256", "sm_80", reduceConfig("256"), a);
    const std::int64_t otherConfig = recordVariant(store, "reduce_256", "sm_90", reduceConfig("128"), a);
    CHECK(store.variant(otherArch)->name == "reduce_256@sm_80");
    CHECK(store.variant(otherConfig)->name == "reduce_256-2");
    CHECK(store.variants().size() == 3);
    CHECK(store.artifactOf(first, ArtifactKind::Sass) == std::optional<std::string>("SASS listing"));
    CHECK(parseResourcesJson(*store.artifactOf(first, ArtifactKind::Resources)).front().registers == 40);
    // Without ptxas (PTX only) there is no resources artifact to record.
    CompileResult ptxOnly = compiled(40);
    ptxOnly.assembled = false;
    CHECK(artifactsOf("src", ptxOnly).kernels.empty());
    fs::remove_all(dir);
}

TEST_CASE("the editor state is kept in the session and survives reopening", "[store][record]") {
    const fs::path dir = freshFolder("editor");
    const fs::path file = dir / "s.kxs";
    {
        SessionStore store = SessionStore::create(file);
        CHECK(store.editorState().empty());
        store.setEditorState(R"({"template":"gemm","arch":"sm_90"})");
        store.setEditorState(R"({"template":"reduce","arch":"sm_80"})");
    }
    CHECK(SessionStore::open(file).editorState() == R"({"template":"reduce","arch":"sm_80"})");
    fs::remove_all(dir);
}

TEST_CASE("Save As writes a whole copy, replaces an existing file and refuses its own file", "[store][record]") {
    const fs::path dir = freshFolder("save_as");
    const fs::path file = dir / "a.kxs";
    const fs::path copy = dir / "b.kxs";
    SessionStore store = SessionStore::create(file);
    const std::int64_t id = recordVariant(store, "reduce_256", "sm_90", reduceConfig("256"), artifactsOf("src", compiled(40)));
    store.setEditorState("{}");
    std::ofstream(copy) << "an old file in the way";
    store.saveCopyAs(copy);
    {
        const SessionStore back = SessionStore::open(copy);
        CHECK(back.integrityCheck() == "ok");
        REQUIRE(back.variants().size() == 1);
        CHECK(back.variants()[0].name == "reduce_256");
        CHECK(back.artifactOf(back.variants()[0].id, ArtifactKind::Source) == std::optional<std::string>("src"));
        CHECK(back.editorState() == "{}");
    }
    // No temporary file is left next to it.
    for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().filename().string().find(".saving-") == std::string::npos);
    CHECK_THROWS_AS(store.saveCopyAs(file), InputError);
    CHECK_THROWS_AS(store.saveCopyAs(dir / "no-such-folder" / "c.kxs"), InputError);
    // The original goes on working.
    store.setNotes(id, "still writable");
    CHECK(store.variant(id)->notes == "still writable");
    fs::remove_all(dir);
}

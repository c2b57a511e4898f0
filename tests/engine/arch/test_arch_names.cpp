// An arch file must define the arch it is named after, with a name fit for folders and caches.
#include "arch/arch_database.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

namespace fs = std::filesystem;
using namespace kx::engine;

namespace {

const fs::path kNamesDir = fs::path(KX_TEST_SOURCE_DIR) / "tests" / "engine" / "arch" / "data_names";

std::vector<LoadError> errorsOf(const ArchDatabase& db, const std::string& fileName) {
    std::vector<LoadError> out;
    for (const LoadError& e : db.errors())
        if (fs::path(e.file).filename() == fileName) out.push_back(e);
    return out;
}

}  // namespace

TEST_CASE("an arch whose name differs from its file name is refused", "[arch][reliability]") {
    const ArchDatabase db = ArchDatabase::load(kNamesDir / "arch", kNamesDir / "devices");
    const auto e = errorsOf(db, "sm_90.xml");
    REQUIRE(e.size() == 1);
    CHECK(e[0].line == 3);
    CHECK_THAT(e[0].message, Catch::Contains("\"sm_80\" differs from the file's name sm_90.xml"));
    // The file named after its arch still loads; sm_90 is not defined by the impostor.
    REQUIRE(db.findArch("sm_80") != nullptr);
    CHECK(fs::path(db.findArch("sm_80")->file).filename() == "sm_80.xml");
    CHECK(db.findArch("sm_90") == nullptr);
}

TEST_CASE("an arch name holding a path is refused", "[arch][reliability]") {
    const ArchDatabase db = ArchDatabase::load(kNamesDir / "arch", kNamesDir / "devices");
    const auto e = errorsOf(db, "sm_86.xml");
    REQUIRE(e.size() == 1);
    CHECK(e[0].line == 3);
    CHECK_THAT(e[0].message, Catch::Contains("sm_80/../sm_90") && Catch::Contains("only lower-case letters, digits and '_'"));
    CHECK(db.arches().size() == 1);
}

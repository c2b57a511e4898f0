// SessionModel without the GUI: a burst of changes lands in order, each snapshot says what the
// file says, a change to one variant leaves the other entries (and their VariantSnapshots) as
// they were, a failure leaves the session as it was, and the destructor writes every queued change.
#include "session_model.hpp"

#include "gui_harness.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <thread>

using namespace kx::test;
using kx::app::SessionDataPtr;
using kx::app::SessionEntry;
using kx::app::SessionModel;
using kx::engine::ArchDatabase;
using kx::engine::CompileResult;
using kx::engine::Config;
using kx::engine::SessionStore;
using kx::engine::TemplateLibrary;

namespace {

const ArchDatabase& arches() {
    static const ArchDatabase db = ArchDatabase::loadFromDataRoot(KX_TEST_SOURCE_DIR);
    return db;
}

const TemplateLibrary& library() {
    static const TemplateLibrary lib;
    return lib;
}

Config configOf(int i) {
    Config c;
    c.templateId = "gemm";
    c.values = {{"BM", std::to_string(16 * (i + 1))}, {"BN", "128"}, {"BK", "32"}, {"DTYPE", "f16"}};
    return c;
}

// A session file with `n` variants named v00, v01, ...; returns their ids in order.
std::vector<std::int64_t> makeSession(const fs::path& file, int n) {
    SessionStore s = SessionStore::create(file);
    std::vector<std::int64_t> ids;
    for (int i = 0; i < n; ++i) ids.push_back(s.addVariant(fmt::format("v{:02}", i), "sm_90", configOf(i)));
    return ids;
}

// Applies what the worker posts until every change asked for is in data().
void settle(SessionModel& model) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (model.busy()) {
        REQUIRE(std::chrono::steady_clock::now() < deadline);
        model.update();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

// A temporary folder holding a session of `n` variants, and models opening it.
struct Fixture {
    TempDir dir;
    fs::path file;
    std::vector<std::int64_t> ids;

    Fixture(const std::string& name, int n) : dir(name), file(dir.path / "session.kxs"), ids(makeSession(file, n)) {}

    // Asked to open the session; settled (the session open in data()) when `wait`.
    std::unique_ptr<SessionModel> open(bool wait) {
        auto model = std::make_unique<SessionModel>(library(), arches(), dir.path / "recent.json");
        model->open(file);
        if (wait) settle(*model);
        return model;
    }
};

// The snapshot agrees with the file read afresh: the same variants in id order, with their
// names, notes and run counts.
void requireMatchesFile(const SessionDataPtr& data, const fs::path& file) {
    REQUIRE(data);
    SessionStore s = SessionStore::open(file);
    const auto variants = s.variants();
    REQUIRE(data->entries.size() == variants.size());
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const SessionEntry& e = data->entries[i];
        CHECK(e.variant.id == variants[i].id);
        CHECK(e.variant.name == variants[i].name);
        CHECK(e.variant.notes == variants[i].notes);
        CHECK(e.runs.size() == s.runsOf(variants[i].id).size());
        CHECK(e.snapshot != nullptr);
    }
    CHECK(data->editorState == s.editorState());
}

}  // namespace

TEST_CASE("session model: a burst of notes on 20 variants lands in order", "[app][session]") {
    Fixture f("session_model_burst", 20);
    const auto& ids = f.ids;
    const auto opened = f.open(true);
    SessionModel& model = *opened;
    REQUIRE(model.error().empty());
    const SessionDataPtr before = model.data();
    REQUIRE(before->entries.size() == 20);

    for (std::size_t i = 0; i < ids.size(); ++i) model.setNotes(ids[i], fmt::format("note {}", i));
    // Every snapshot seen on the way has notes on a prefix of the variants: the changes ran in
    // the order asked. Variants not yet changed keep their entry's snapshot.
    std::uint64_t seen = model.revision();
    int snapshots = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (model.busy()) {
        REQUIRE(std::chrono::steady_clock::now() < deadline);
        model.update();
        if (model.revision() == seen) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            continue;
        }
        seen = model.revision();
        ++snapshots;
        const auto& entries = model.data()->entries;
        REQUIRE(entries.size() == 20);
        std::size_t done = 0;
        while (done < entries.size() && !entries[done].variant.notes.empty()) ++done;
        for (std::size_t i = 0; i < entries.size(); ++i) {
            CHECK(entries[i].variant.id == ids[i]);
            CHECK(entries[i].variant.notes == (i < done ? fmt::format("note {}", i) : ""));
            if (i >= done) CHECK(entries[i].snapshot == before->entries[i].snapshot);
        }
    }
    CHECK(snapshots >= 1);
    CHECK(model.error().empty());
    for (std::size_t i = 0; i < ids.size(); ++i) CHECK(model.data()->entries[i].variant.notes == fmt::format("note {}", i));
    requireMatchesFile(model.data(), f.file);
}

TEST_CASE("session model: each change re-reads its variant and keeps the rest", "[app][session]") {
    Fixture f("session_model_changes", 8);
    const auto& ids = f.ids;
    const fs::path& file = f.file;
    const auto opened = f.open(true);
    SessionModel& model = *opened;
    REQUIRE(model.data());
    const std::uint64_t serial = model.data()->openSerial;

    // Runs `ask`, waits for it, checks the snapshot against the file, and that every entry but
    // `changed` still has the VariantSnapshot it had.
    auto step = [&](const std::function<void()>& ask, std::int64_t changed) {
        const SessionDataPtr previous = model.data();
        ask();
        settle(model);
        REQUIRE(model.error().empty());
        requireMatchesFile(model.data(), file);
        CHECK(model.data()->openSerial == serial);
        for (const SessionEntry& e : model.data()->entries)
            if (const SessionEntry* old = previous->find(e.variant.id); old && e.variant.id != changed) CHECK(e.snapshot == old->snapshot);
        return model.data();
    };

    CHECK(step([&] { model.setNotes(ids[5], "five"); }, ids[5])->find(ids[5])->variant.notes == "five");
    CHECK(step([&] { model.rename(ids[3], "three"); }, ids[3])->find(ids[3])->variant.name == "three");
    const SessionDataPtr duplicated = step([&] { model.duplicate(ids[5]); }, -1);
    REQUIRE(duplicated->entries.size() == 9);
    CHECK(duplicated->entries.back().variant.name == "v05 copy");
    CHECK(duplicated->entries.back().variant.notes == "five");
    auto compiled = std::make_shared<CompileResult>();
    compiled->ok = true;
    compiled->ptx = "// ptx";
    const SessionDataPtr kept = step([&] { model.keep("fresh", "sm_90", configOf(40), "// source", compiled); }, -1);
    REQUIRE(kept->findByName("fresh"));
    CHECK(kept->entries.size() == 10);
    CHECK(step([&] { model.remove(ids[7]); }, ids[7])->find(ids[7]) == nullptr);
    CHECK(step([&] { model.saveEditorState(R"({"config":"v00"})"); }, -1)->editorState == R"({"config":"v00"})");

    // A taken name: an error, and the session as it was.
    const SessionDataPtr previous = model.data();
    model.rename(ids[0], "v01");
    settle(model);
    CHECK(model.error().find("cannot rename the variant") != std::string::npos);
    REQUIRE(model.data()->entries.size() == previous->entries.size());
    for (std::size_t i = 0; i < previous->entries.size(); ++i)
        CHECK(model.data()->entries[i].variant.name == previous->entries[i].variant.name);
    requireMatchesFile(model.data(), file);
}

TEST_CASE("session model: the destructor writes every queued change before closing", "[app][session]") {
    Fixture f("session_model_flush", 20);
    const auto& ids = f.ids;
    {
        const auto model = f.open(false);
        for (std::size_t i = 0; i < ids.size(); ++i) model->setNotes(ids[i], fmt::format("last words {}", i));
        model->saveEditorState("{}");
        // Gone without a single update(): nothing asked for may be lost.
    }
    SessionStore s = SessionStore::open(f.file);
    const auto variants = s.variants();
    REQUIRE(variants.size() == ids.size());
    for (std::size_t i = 0; i < variants.size(); ++i) CHECK(variants[i].notes == fmt::format("last words {}", i));
    CHECK(s.editorState() == "{}");
}

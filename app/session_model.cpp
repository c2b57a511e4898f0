#include "session_model.hpp"
#include "util/time_text.hpp"

#include "store/session_record.hpp"
#include "util/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>

namespace kx::app {

namespace fs = std::filesystem;
using namespace kx::engine;

const SessionEntry* SessionData::find(std::int64_t variantId) const {
    for (const SessionEntry& e : entries)
        if (e.variant.id == variantId) return &e;
    return nullptr;
}

const SessionEntry* SessionData::findByName(const std::string& name) const {
    for (const SessionEntry& e : entries)
        if (e.variant.name == name) return &e;
    return nullptr;
}

// Everything that touches the file, on the worker thread only.
struct SessionModel::Worker {
    const TemplateLibrary& library;
    const ArchDatabase& arches;
    fs::path recentFile;
    std::vector<fs::path> recent;
    std::optional<SessionStore> store;
    bool temporary = false;
    fs::path temporaryFolder;
    std::uint64_t openSerial = 0;
    // Snapshots by variant id, with the key they were built for: unchanged variants keep their
    // snapshot (and the Compare view its caches) across refreshes.
    std::map<std::int64_t, std::pair<std::string, SnapshotPtr>> snapshots;

    Worker(const TemplateLibrary& lib, const ArchDatabase& db, fs::path recentPath)
        : library(lib), arches(db), recentFile(std::move(recentPath)) {}

    ~Worker() {
        store.reset();
        dropTemporary();
    }

    void dropTemporary() {
        if (temporaryFolder.empty()) return;
        std::error_code ec;
        fs::remove_all(temporaryFolder, ec);
        temporaryFolder.clear();
    }

    SessionStore& open() {
        if (!store) throw InputError("no session is open");
        return *store;
    }

    void loadRecent() {
        std::ifstream in(recentFile);
        if (!in) return;
        const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
        if (!j.is_array()) return;  // a damaged list is only a convenience lost
        for (const auto& p : j)
            if (p.is_string()) recent.emplace_back(p.get<std::string>());
    }

    void remember(const fs::path& file) {
        std::error_code ec;
        const fs::path abs = fs::weakly_canonical(fs::absolute(file, ec), ec);
        std::erase_if(recent, [&](const fs::path& p) { return p == abs; });
        recent.insert(recent.begin(), abs);
        if (recent.size() > kMaxRecent) recent.resize(kMaxRecent);
        nlohmann::json j = nlohmann::json::array();
        for (const fs::path& p : recent) j.push_back(p.string());
        // Whole or not at all: a temporary file renamed over the list.
        fs::create_directories(recentFile.parent_path(), ec);
        const fs::path temp = recentFile.string() + ".tmp-" + std::to_string(::getpid());
        {
            std::ofstream out(temp, std::ios::trunc);
            out << j.dump(2) << "\n";
            if (!out) return;
        }
        fs::rename(temp, recentFile, ec);
        if (ec) fs::remove(temp, ec);
    }

    void switchTo(SessionStore next, bool isTemporary) {
        store.reset();
        if (!isTemporary) dropTemporary();
        store.emplace(std::move(next));
        temporary = isTemporary;
        snapshots.clear();
        ++openSerial;
        if (!temporary) remember(store->path());
    }

    std::string keyOf(const SessionVariant& v, const std::vector<ArtifactInfo>& artifacts, const std::vector<StoredRun>& runs) const {
        std::string key = v.name + '\n' + v.notes + '\n' + v.updatedAt + '\n' + v.arch + '\n' + v.config.canonical();
        for (const ArtifactInfo& a : artifacts) key += '\n' + a.hash;
        key += fmt::format("\n{}:{}", runs.size(), runs.empty() ? 0 : runs.back().id);
        return key;
    }

    std::shared_ptr<SessionData> snapshot() {
        auto data = std::make_shared<SessionData>();
        if (!store) return data;
        data->path = store->path();
        data->readOnly = store->readOnly();
        data->temporary = temporary;
        data->editorState = store->editorState();
        data->tutorialProgress = store->allTutorialProgress();
        data->openSerial = openSerial;
        std::map<std::int64_t, std::pair<std::string, SnapshotPtr>> kept;
        for (SessionVariant& v : store->variants()) {
            SessionEntry e;
            const std::vector<ArtifactInfo> artifacts = store->artifactsOf(v.id);
            e.runs = store->runsOf(v.id);
            const std::string key = keyOf(v, artifacts, e.runs);
            auto cached = snapshots.find(v.id);
            if (cached != snapshots.end() && cached->second.first == key) {
                e.snapshot = cached->second.second;
            } else {
                StoredVariant stored;
                stored.variant = v;
                stored.source = store->artifactOf(v.id, ArtifactKind::Source).value_or("");
                stored.ptx = store->artifactOf(v.id, ArtifactKind::Ptx).value_or("");
                stored.sass = store->artifactOf(v.id, ArtifactKind::Sass).value_or("");
                if (const auto resources = store->artifactOf(v.id, ArtifactKind::Resources)) {
                    try {
                        stored.kernels = parseResourcesJson(*resources);
                    } catch (const InputError&) {
                        // Shown as "no ptxas report"; the rest of the variant is still worth seeing.
                    }
                }
                stored.runs = e.runs;
                e.snapshot = makeSnapshot(stored, library, arches);
            }
            kept[v.id] = {key, e.snapshot};
            e.variant = std::move(v);
            data->entries.push_back(std::move(e));
        }
        snapshots = std::move(kept);
        return data;
    }

    // The variant of a compiled config, with its artifacts; SASS only when it has none yet
    // (disassembling takes a moment and never changes for the same CUBIN).
    std::int64_t keep(const std::string& name, const std::string& arch, const Config& config, const std::string& source,
                      const CompileResult& compiled) {
        SessionStore& s = open();
        std::int64_t id = recordVariant(s, name, arch, config, artifactsOf(source, compiled));
        if (!compiled.cubin.empty() && !s.artifactOf(id, ArtifactKind::Sass)) {
            std::string why;
            if (const auto sass = disassembleCubin(compiled.cubin, &why)) s.storeArtifact(id, ArtifactKind::Sass, *sass);
        }
        return id;
    }
};

SessionModel::SessionModel(const TemplateLibrary& library, const ArchDatabase& arches, fs::path recentFile)
    : m_worker(std::make_unique<Worker>(library, arches, std::move(recentFile))) {
    m_thread = std::thread([this] {
        for (;;) {
            std::function<void(Worker&)> change;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
                // Stopping still writes everything that was asked for.
                if (m_queue.empty()) return;
                change = std::move(m_queue.front());
                m_queue.pop_front();
            }
            change(*m_worker);
            std::lock_guard lock(m_mutex);
            --m_inFlight;
        }
    });
    enqueue("read the recent sessions", [this](Worker& w) {
        w.loadRecent();
        std::lock_guard lock(m_mutex);
        m_posted.push_back([this, recent = w.recent] { m_recent = recent; });
    });
}

SessionModel::~SessionModel() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

bool SessionModel::busy() const {
    std::lock_guard lock(m_mutex);
    return m_inFlight > 0 || !m_posted.empty();
}

void SessionModel::enqueue(std::string what, std::function<void(Worker&)> change) {
    auto wrapped = [this, what = std::move(what), change = std::move(change)](Worker& w) {
        std::string error;
        std::shared_ptr<SessionData> data;
        std::vector<fs::path> recent;
        try {
            change(w);
        } catch (const std::exception& e) {
            error = fmt::format("cannot {}: {}", what, e.what());
        }
        try {
            data = w.snapshot();
        } catch (const std::exception& e) {
            if (error.empty()) error = fmt::format("cannot read the session: {}", e.what());
        }
        recent = w.recent;
        const bool open = w.store.has_value();
        std::lock_guard lock(m_mutex);
        m_posted.push_back([this, error, data, recent, open] {
            if (!error.empty()) m_error = error;
            if (open && data) {
                m_data = data;
                ++m_revision;
            }
            m_recent = recent;
        });
    };
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(std::move(wrapped));
        ++m_inFlight;
    }
    m_wake.notify_one();
}

void SessionModel::update() {
    std::vector<std::function<void()>> posted;
    {
        std::lock_guard lock(m_mutex);
        posted.swap(m_posted);
    }
    for (auto& fn : posted) fn();
}

void SessionModel::open(const fs::path& file) {
    m_message.clear();
    enqueue("open " + file.string(), [file](Worker& w) { w.switchTo(SessionStore::open(file), false); });
}

void SessionModel::create(const fs::path& file) {
    m_message.clear();
    enqueue("create " + file.string(), [file](Worker& w) { w.switchTo(SessionStore::create(file), false); });
}

void SessionModel::openOrCreate(const fs::path& file) {
    m_message.clear();
    enqueue("open " + file.string(), [file](Worker& w) {
        std::error_code ec;
        w.switchTo(fs::exists(file, ec) ? SessionStore::open(file) : SessionStore::create(file), false);
    });
}

void SessionModel::saveAs(const fs::path& file) {
    m_message.clear();
    enqueue("save as " + file.string(), [this, file](Worker& w) {
        w.open().saveCopyAs(file);
        w.switchTo(SessionStore::open(file), false);
        std::lock_guard lock(m_mutex);
        m_posted.push_back([this, file] { m_message = "saved as " + file.string(); });
    });
}

void SessionModel::openDefault() {
    enqueue("open a session", [](Worker& w) {
        for (const fs::path& p : std::vector<fs::path>(w.recent)) {
            try {
                w.switchTo(SessionStore::open(p), false);
                return;
            } catch (const std::exception&) {
                // Moved, deleted or damaged since: try the next one. It stays in the list so
                // File > Open Recent can still say what is wrong with it.
            }
        }
        const std::string stamp = engine::localNowText("%Y-%m-%d-%H%M%S");
        const fs::path folder = sessionsRoot();
        fs::path file = folder / fmt::format("session-{}.kxs", stamp);
        std::error_code ec;
        for (int i = 2; fs::exists(file, ec); ++i) file = folder / fmt::format("session-{}-{}.kxs", stamp, i);
        w.switchTo(SessionStore::create(file), false);
    });
}

void SessionModel::openDemo(const fs::path& demoFile) {
    m_message.clear();
    enqueue("open the demo session", [demoFile](Worker& w) {
        const fs::path copy = sessionsRoot() / "demo.kxs";
        std::error_code ec;
        if (!fs::exists(copy, ec)) {
            if (!fs::exists(demoFile, ec)) throw InputError(demoFile.string() + " is missing");
            // Through a temporary name: an interrupted copy never looks like a session.
            const fs::path temp = copy.string() + ".copying";
            fs::copy_file(demoFile, temp, fs::copy_options::overwrite_existing);
            fs::permissions(temp, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::add);
            fs::rename(temp, copy);
        }
        w.switchTo(SessionStore::open(copy), false);
    });
}

void SessionModel::openTemporary() {
    enqueue("create a scratch session", [](Worker& w) {
        std::string pattern = (fs::temp_directory_path() / "kernel-explorer-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) throw InputError("no temporary folder could be made");
        const fs::path folder = pattern;
        w.switchTo(SessionStore::create(folder / "scratch.kxs"), true);
        w.temporaryFolder = folder;
    });
}

void SessionModel::keep(const std::string& name, const std::string& arch, const Config& config, const std::string& source,
                        std::shared_ptr<const CompileResult> compiled) {
    enqueue("keep " + name, [=](Worker& w) { w.keep(name, arch, config, source, *compiled); });
}

void SessionModel::recordRun(const std::string& name, const std::string& arch, const Config& config, const std::string& source,
                             std::shared_ptr<const CompileResult> compiled, const RunReport& report) {
    enqueue("record the run of " + name, [=](Worker& w) {
        const std::int64_t id = w.keep(name, arch, config, source, *compiled);
        w.open().addRun(id, report, calibrationJsonFor(report.deviceName));
    });
}

void SessionModel::rename(std::int64_t id, const std::string& newName) {
    enqueue("rename the variant", [=](Worker& w) { w.open().renameVariant(id, newName); });
}

void SessionModel::duplicate(std::int64_t id) {
    enqueue("duplicate the variant", [=](Worker& w) {
        SessionStore& s = w.open();
        const auto v = s.variant(id);
        if (!v) throw InputError("the variant is gone");
        std::string name = v->name + " copy";
        for (int i = 2; s.findVariant(name); ++i) name = fmt::format("{} copy {}", v->name, i);
        s.duplicateVariant(id, name);
    });
}

void SessionModel::remove(std::int64_t id) {
    enqueue("delete the variant", [=](Worker& w) { w.open().deleteVariant(id); });
}

void SessionModel::setNotes(std::int64_t id, const std::string& notes) {
    enqueue("save the notes", [=](Worker& w) { w.open().setNotes(id, notes); });
}

void SessionModel::setTutorialProgress(const std::string& tutorialId, int step, const std::string& state) {
    enqueue("save the tutorial progress", [=](Worker& w) {
        if (w.store && !w.store->readOnly()) w.store->setTutorialProgress(tutorialId, step, state);
    });
}

void SessionModel::saveEditorState(const std::string& json) {
    enqueue("save the editor state", [=](Worker& w) {
        if (w.store && !w.store->readOnly()) w.store->setEditorState(json);
    });
}

}  // namespace kx::app

#include "session_model.hpp"
#include "util/time_text.hpp"

#include "store/session_record.hpp"
#include "util/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <future>
#include <map>
#include <utility>

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

struct SessionModel::Touched {
    enum class Part { Everything, Variant, EditorState, Tutorials };
    Part part = Part::Everything;
    std::int64_t variantId = 0;  // for Part::Variant: the one variant added, changed or deleted

    static Touched everything() { return {}; }
    static Touched variant(std::int64_t id) { return {Part::Variant, id}; }
};

// Everything that touches the file, on the worker thread only.
struct SessionModel::Worker {
    using SnapshotCache = std::map<std::int64_t, std::pair<std::string, SnapshotPtr>>;

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
    SnapshotCache snapshots;
    // The last snapshot posted, which a change to one variant copies; null when it must be read whole.
    std::shared_ptr<const SessionData> current;
    std::string message;  // a success worth telling, taken by the next post

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
        current.reset();
        ++openSerial;
        if (!temporary) remember(store->path());
    }

    std::string keyOf(const SessionVariant& v, const std::vector<ArtifactInfo>& artifacts, const std::vector<StoredRun>& runs) const {
        std::string key = v.name + '\n' + v.notes + '\n' + v.updatedAt + '\n' + v.arch + '\n' + v.config.canonical();
        for (const ArtifactInfo& a : artifacts) key += '\n' + a.hash;
        key += fmt::format("\n{}:{}", runs.size(), runs.empty() ? 0 : runs.back().id);
        return key;
    }

    // The entry of `v` as the file has it now, reusing its snapshot from `previous` when its
    // key is unchanged; records the snapshot in `snapshots`.
    SessionEntry entryOf(SessionVariant v, const SnapshotCache& previous) {
        SessionEntry e;
        const std::vector<ArtifactInfo> artifacts = store->artifactsOf(v.id);
        e.runs = store->runsOf(v.id);
        std::string key = keyOf(v, artifacts, e.runs);
        auto cached = previous.find(v.id);
        if (cached != previous.end() && cached->second.first == key) {
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
        snapshots[v.id] = {std::move(key), e.snapshot};
        e.variant = std::move(v);
        return e;
    }

    // The whole session, read again.
    std::shared_ptr<SessionData> readAll() {
        auto data = std::make_shared<SessionData>();
        data->path = store->path();
        data->readOnly = store->readOnly();
        data->temporary = temporary;
        data->editorState = store->editorState();
        data->tutorialProgress = store->allTutorialProgress();
        data->openSerial = openSerial;
        const SnapshotCache previous = std::move(snapshots);
        snapshots.clear();
        for (SessionVariant& v : store->variants()) data->entries.push_back(entryOf(std::move(v), previous));
        return data;
    }

    // Variant `id`'s entry in `data` as the file has it now: replaced, added (in id order) or,
    // when the variant is gone, removed. The other entries are left as they are.
    void readVariant(SessionData& data, std::int64_t id) {
        auto at = std::lower_bound(data.entries.begin(), data.entries.end(), id,
                                   [](const SessionEntry& e, std::int64_t wanted) { return e.variant.id < wanted; });
        const bool present = at != data.entries.end() && at->variant.id == id;
        std::optional<SessionVariant> v = store->variant(id);
        if (!v) {
            if (present) data.entries.erase(at);
            snapshots.erase(id);
            return;
        }
        SessionEntry e = entryOf(std::move(*v), snapshots);
        if (present)
            *at = std::move(e);
        else
            data.entries.insert(at, std::move(e));
    }

    // The session after a change that touched `touched`: that part read again, the rest copied
    // from the last snapshot. Null when no session is open.
    SessionDataPtr snapshot(const Touched& touched) {
        if (!store) {
            current.reset();
            return nullptr;
        }
        // Null until this read succeeds: after a failed one the next is read whole.
        const std::shared_ptr<const SessionData> previous = std::move(current);
        current.reset();
        std::shared_ptr<SessionData> data;
        if (!previous || touched.part == Touched::Part::Everything) {
            data = readAll();
        } else {
            data = std::make_shared<SessionData>(*previous);
            switch (touched.part) {
            case Touched::Part::Variant: readVariant(*data, touched.variantId); break;
            case Touched::Part::EditorState: data->editorState = store->editorState(); break;
            case Touched::Part::Tutorials: data->tutorialProgress = store->allTutorialProgress(); break;
            case Touched::Part::Everything: break;
            }
        }
        current = data;
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
    enqueue("read the recent sessions", [](Worker& w) {
        w.loadRecent();
        return Touched::everything();
    });
}

SessionModel::~SessionModel() {
    // The queue cancels whatever has not started when it goes, so first wait for a last job:
    // with one worker taking jobs in order, it runs after every change asked for.
    std::promise<void> flushed;
    m_jobs.submit("close the session", [&flushed](Job&) { flushed.set_value(); });
    flushed.get_future().wait();
}

void SessionModel::enqueue(std::string what, std::function<Touched(Worker&)> change) {
    ++m_unapplied;
    m_jobs.submit(what, [this, what, change = std::move(change)](Job&) {
        Worker& w = *m_worker;
        std::string error;
        Touched touched;
        try {
            touched = change(w);
        } catch (const std::exception& e) {
            error = fmt::format("cannot {}: {}", what, e.what());
            touched = Touched::everything();  // what is in the file now, whatever the change did
        }
        SessionDataPtr data;
        try {
            data = w.snapshot(touched);
        } catch (const std::exception& e) {
            if (error.empty()) error = fmt::format("cannot read the session: {}", e.what());
        }
        m_mailbox.post([this, error, data, recent = w.recent, message = std::exchange(w.message, {})] {
            --m_unapplied;
            if (!error.empty()) m_error = error;
            if (!message.empty()) m_message = message;
            if (data) {
                m_data = data;
                ++m_revision;
            }
            m_recent = recent;
        });
    });
}

void SessionModel::update() { m_mailbox.drain(); }

void SessionModel::open(const fs::path& file) {
    m_message.clear();
    enqueue("open " + file.string(), [file](Worker& w) {
        w.switchTo(SessionStore::open(file), false);
        return Touched::everything();
    });
}

void SessionModel::create(const fs::path& file) {
    m_message.clear();
    enqueue("create " + file.string(), [file](Worker& w) {
        w.switchTo(SessionStore::create(file), false);
        return Touched::everything();
    });
}

void SessionModel::openOrCreate(const fs::path& file) {
    m_message.clear();
    enqueue("open " + file.string(), [file](Worker& w) {
        std::error_code ec;
        w.switchTo(fs::exists(file, ec) ? SessionStore::open(file) : SessionStore::create(file), false);
        return Touched::everything();
    });
}

void SessionModel::saveAs(const fs::path& file) {
    m_message.clear();
    enqueue("save as " + file.string(), [file](Worker& w) {
        w.open().saveCopyAs(file);
        w.switchTo(SessionStore::open(file), false);
        w.message = "saved as " + file.string();
        return Touched::everything();
    });
}

void SessionModel::openDefault() {
    enqueue("open a session", [](Worker& w) {
        for (const fs::path& p : std::vector<fs::path>(w.recent)) {
            try {
                w.switchTo(SessionStore::open(p), false);
                return Touched::everything();
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
        return Touched::everything();
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
        return Touched::everything();
    });
}

void SessionModel::openTemporary() {
    enqueue("create a scratch session", [](Worker& w) {
        std::string pattern = (fs::temp_directory_path() / "kernel-explorer-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) throw InputError("no temporary folder could be made");
        const fs::path folder = pattern;
        w.switchTo(SessionStore::create(folder / "scratch.kxs"), true);
        w.temporaryFolder = folder;
        return Touched::everything();
    });
}

void SessionModel::keep(const std::string& name, const std::string& arch, const Config& config, const std::string& source,
                        std::shared_ptr<const CompileResult> compiled) {
    enqueue("keep " + name, [=](Worker& w) { return Touched::variant(w.keep(name, arch, config, source, *compiled)); });
}

void SessionModel::recordRun(const std::string& name, const std::string& arch, const Config& config, const std::string& source,
                             std::shared_ptr<const CompileResult> compiled, const RunReport& report) {
    enqueue("record the run of " + name, [=](Worker& w) {
        const std::int64_t id = w.keep(name, arch, config, source, *compiled);
        w.open().addRun(id, report, calibrationJsonFor(report.deviceName));
        return Touched::variant(id);
    });
}

void SessionModel::rename(std::int64_t id, const std::string& newName) {
    enqueue("rename the variant", [=](Worker& w) {
        w.open().renameVariant(id, newName);
        return Touched::variant(id);
    });
}

void SessionModel::duplicate(std::int64_t id) {
    enqueue("duplicate the variant", [=](Worker& w) {
        SessionStore& s = w.open();
        const auto v = s.variant(id);
        if (!v) throw InputError("the variant is gone");
        std::string name = v->name + " copy";
        for (int i = 2; s.findVariant(name); ++i) name = fmt::format("{} copy {}", v->name, i);
        return Touched::variant(s.duplicateVariant(id, name));
    });
}

void SessionModel::remove(std::int64_t id) {
    enqueue("delete the variant", [=](Worker& w) {
        w.open().deleteVariant(id);
        return Touched::variant(id);  // its entry goes; no other variant changes
    });
}

void SessionModel::setNotes(std::int64_t id, const std::string& notes) {
    enqueue("save the notes", [=](Worker& w) {
        w.open().setNotes(id, notes);
        return Touched::variant(id);
    });
}

void SessionModel::setTutorialProgress(const std::string& tutorialId, int step, const std::string& state) {
    enqueue("save the tutorial progress", [=](Worker& w) {
        if (w.store && !w.store->readOnly()) w.store->setTutorialProgress(tutorialId, step, state);
        return Touched{Touched::Part::Tutorials};
    });
}

void SessionModel::saveEditorState(const std::string& json) {
    enqueue("save the editor state", [=](Worker& w) {
        if (w.store && !w.store->readOnly()) w.store->setEditorState(json);
        return Touched{Touched::Part::EditorState};
    });
}

}  // namespace kx::app

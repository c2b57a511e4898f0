// Template folders (or a template from text alone) loaded and checked, and the library of every
// template found; manifest.xml itself is read in manifest.cpp.
#include "templates/template_library.hpp"

#include "templates/manifest_checks.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <fstream>
#include <map>

namespace kx::engine {
namespace fs = std::filesystem;

namespace {

// Errors in a manifest always carry "file:line: ".
[[noreturn]] void fail(const fs::path& file, int line, const std::string& message) {
    throw InputError(file.string() + ":" + std::to_string(line) + ": " + message);
}

}  // namespace

std::string readTemplateFile(const TemplateManifest& m, const std::string& relative, int line) {
    const fs::path manifestFile = m.manifestFile;
    const std::string what = "kernel source '" + relative + "'";
    if (relative.empty()) fail(manifestFile, line, "the kernel source's file name is empty");
    if (fs::path(relative).is_absolute()) fail(manifestFile, line, what + " must be a path inside the template's folder, not an absolute one");
    // Resolved with links followed, so that neither '..' nor a link can lead out of the folder.
    std::error_code ec;
    const fs::path folder = fs::weakly_canonical(m.folder, ec);
    const fs::path target = ec ? fs::path() : fs::weakly_canonical(fs::path(m.folder) / relative, ec);
    if (ec) fail(manifestFile, line, what + " cannot be read: " + ec.message());
    if (std::mismatch(folder.begin(), folder.end(), target.begin(), target.end()).first != folder.end())
        fail(manifestFile, line, what + " lies outside the template's folder " + folder.string());
    if (!fs::exists(target, ec)) fail(manifestFile, line, what + " does not exist");
    if (!fs::is_regular_file(target, ec)) fail(manifestFile, line, what + " is not a regular file");
    const auto size = fs::file_size(target, ec);
    if (ec) fail(manifestFile, line, what + " cannot be read: " + ec.message());
    if (size > kMaxTemplateFileBytes)
        fail(manifestFile, line, what + " is " + std::to_string(size) + " bytes; a kernel source may be at most " +
                                     std::to_string(kMaxTemplateFileBytes) + " bytes");
    std::ifstream in(target, std::ios::binary);
    std::string text(size, '\0');
    if (!in || !in.read(text.data(), static_cast<std::streamsize>(size)))
        fail(manifestFile, line, what + " cannot be read");
    return text;
}

namespace {

// An exception's "file:line: message" split back into a LoadError of `file`.
LoadError loadErrorOf(const fs::path& file, const std::string& what) {
    LoadError err{file.string(), 0, what};
    const std::string prefix = file.string() + ":";
    if (what.rfind(prefix, 0) == 0) {
        const std::size_t colon = what.find(':', prefix.size());
        if (colon != std::string::npos) {
            err.line = std::atoi(what.substr(prefix.size(), colon - prefix.size()).c_str());
            err.message = what.substr(colon + 2);
        }
    }
    return err;
}

}  // namespace

std::shared_ptr<const Template> loadTemplateFolder(const fs::path& folder) {
    TemplateManifest m = parseManifest(folder / "manifest.xml");
    std::map<std::string, std::string> sources;
    SharedPieces pieces;
    for (const auto& [lang, relative] : m.sourceFiles) {
        sources[lang] = readTemplateFile(m, relative, m.sourceFileLines[lang]);
        pieces.merge(readSharedPieces(sources[lang], sharedPiecesRoot(), (fs::path(m.folder) / relative).string(), localPiecesIn(folder)));
    }
    auto tmpl = std::make_shared<const Template>(std::move(m), std::move(sources), std::move(pieces));
    checkManifestValues(*tmpl);
    return tmpl;
}

std::shared_ptr<const Template> templateFromText(const std::string& manifestXml, const std::map<std::string, std::string>& files,
                                                 const fs::path& folder) {
    const fs::path manifestFile = folder / "manifest.xml";
    TemplateManifest m = parseManifestText(manifestXml, manifestFile);
    std::map<std::string, std::string> sources;
    SharedPieces pieces;
    for (const auto& [lang, relative] : m.sourceFiles) {
        const auto it = files.find(relative);
        if (it == files.end()) fail(manifestFile, m.sourceFileLines[lang], "kernel source '" + relative + "' is missing");
        if (it->second.size() > kMaxTemplateFileBytes)
            fail(manifestFile, m.sourceFileLines[lang], "kernel source '" + relative + "' is over " + std::to_string(kMaxTemplateFileBytes) + " bytes");
        sources[lang] = it->second;
        // The template's own pieces come with the carried files.
        const LocalPieceReader carried = [&](const std::string& name, const std::string& location) {
            const auto piece = files.find(name);
            if (piece == files.end()) throw InputError(location + "piece " + name + " is not among the template's files");
            return piece->second;
        };
        pieces.merge(readSharedPieces(it->second, sharedPiecesRoot(), (folder / relative).string(), carried));
    }
    auto tmpl = std::make_shared<const Template>(std::move(m), std::move(sources), std::move(pieces));
    checkManifestValues(*tmpl);
    return tmpl;
}

TemplateLibrary::TemplateLibrary() : m_mutex(std::make_unique<std::mutex>()) {}
TemplateLibrary::TemplateLibrary(TemplateLibrary&&) noexcept = default;
TemplateLibrary& TemplateLibrary::operator=(TemplateLibrary&&) noexcept = default;
TemplateLibrary::~TemplateLibrary() = default;

TemplateLibrary TemplateLibrary::load(const fs::path& dir) {
    TemplateLibrary lib;
    lib.addFolder(dir, TemplateOrigin::Shipped);
    return lib;
}

TemplateLibrary TemplateLibrary::load(const fs::path& shipped, const std::vector<fs::path>& userDirs) {
    TemplateLibrary lib = load(shipped);
    for (const fs::path& dir : userDirs) lib.addFolder(dir, TemplateOrigin::User);
    return lib;
}

void TemplateLibrary::addFolder(const fs::path& dir, TemplateOrigin origin) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        m_errors.push_back({dir.string(), 0, "template folder not found"});
        return;
    }
    std::vector<fs::path> manifests;
    if (fs::exists(dir / "manifest.xml", ec)) {
        manifests.push_back(dir / "manifest.xml");  // one template's folder
    } else {
        for (const auto& entry : fs::directory_iterator(dir, ec))
            if (entry.is_directory() && fs::exists(entry.path() / "manifest.xml")) manifests.push_back(entry.path() / "manifest.xml");
    }
    std::sort(manifests.begin(), manifests.end());
    for (const fs::path& file : manifests) loadOne(file, origin);
}

void TemplateLibrary::loadOne(const fs::path& file, TemplateOrigin origin) {
    try {
        auto tmpl = loadTemplateFolder(file.parent_path());
        if (find(tmpl->id())) fail(file, 0, "template id '" + tmpl->id() + "' is used twice");
        std::lock_guard lock(*m_mutex);
        if (origin == TemplateOrigin::User) m_userIds.push_back(tmpl->id());
        m_templates.push_back(std::move(tmpl));
    } catch (const std::exception& e) {
        // Anything else that goes wrong with one template (a filesystem or library error)
        // is that template's problem too: the others still load.
        m_errors.push_back(loadErrorOf(file, e.what()));
    }
}

void TemplateLibrary::putUser(std::shared_ptr<const Template> tmpl) {
    const std::string id = tmpl->id();
    std::lock_guard lock(*m_mutex);
    const auto it = std::find_if(m_templates.begin(), m_templates.end(), [&](const auto& t) { return t->id() == id; });
    const bool user = std::find(m_userIds.begin(), m_userIds.end(), id) != m_userIds.end();
    if (it != m_templates.end() && !user) throw InputError("'" + id + "' is a shipped template's id: give the user template another id");
    if (it != m_templates.end()) {
        *it = std::move(tmpl);
    } else {
        m_userIds.push_back(id);
        m_templates.push_back(std::move(tmpl));
    }
}

bool TemplateLibrary::isUser(std::string_view id) const {
    std::lock_guard lock(*m_mutex);
    return std::find(m_userIds.begin(), m_userIds.end(), id) != m_userIds.end();
}

std::vector<TemplateLibrary::Category> TemplateLibrary::byCategory() const {
    std::map<std::string, std::vector<std::shared_ptr<const Template>>> groups;
    for (const auto& t : m_templates) groups[t->manifest().category].push_back(t);
    std::vector<Category> out;
    for (auto& [name, list] : groups) {
        std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a->manifest().title < b->manifest().title; });
        out.push_back({name, std::move(list)});
    }
    return out;
}

std::shared_ptr<const Template> TemplateLibrary::find(std::string_view id) const {
    std::lock_guard lock(*m_mutex);
    for (const auto& t : m_templates)
        if (t->id() == id) return t;
    return nullptr;
}

}  // namespace kx::engine
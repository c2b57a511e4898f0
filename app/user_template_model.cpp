#include "user_template_model.hpp"

#include "explorer_model.hpp"
#include "templates/share_string.hpp"
#include "util/error.hpp"
#include "util/output_file.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kx::app {

namespace fs = std::filesystem;

namespace {

// Long enough to let a word be typed, short enough that the compile follows the typing.
constexpr auto kSaveDelay = std::chrono::milliseconds(300);

}  // namespace

void UserTemplateModel::install(const engine::TemplateFiles& files, const std::string& id) {
    const fs::path folder = m_model.userTemplatesDir() / id;
    engine::writeTemplateFolder(folder, files);
    auto tmpl = engine::loadTemplateFolder(folder);
    m_model.putUserTemplate(tmpl);
    m_model.selectTemplate(tmpl->id());
    open(folder);
    m_status = "saved in " + folder.string();
}

void UserTemplateModel::createFromKernel(const std::string& kernelText) {
    const std::string base = engine::templateIdFrom(engine::pastedKernelName(kernelText));
    const std::string id = engine::freeTemplateId(m_model.library(), m_model.userTemplatesDir(), base);
    install(engine::templateForKernel(kernelText, id), id);
}

void UserTemplateModel::duplicateCurrent() {
    const engine::Template* current = m_model.currentTemplate();
    if (current == nullptr) throw engine::InputError("no template is selected");
    const std::string id = engine::freeTemplateId(m_model.library(), m_model.userTemplatesDir(), current->id() + "_mine");
    engine::TemplateFiles files = engine::filesOfTemplate(*current);
    files[engine::kManifestFileName] = engine::manifestWithId(files[engine::kManifestFileName], id);
    const engine::Config config = m_model.config();
    install(files, id);
    // The copy starts where the original was: same values, same flags.
    for (const auto& [key, value] : config.values) m_model.setParam(key, value);
    m_model.setFlags(config.flags);
}

void UserTemplateModel::open(const fs::path& folder) {
    engine::TemplateFiles files = engine::readTemplateFolder(folder);
    if (!files.count(engine::kManifestFileName)) throw engine::InputError(folder.string() + " holds no manifest.xml");
    m_folder = folder;
    m_id = folder.filename().string();
    m_files = std::move(files);
    m_dirty.clear();
    m_saveDue.reset();
    m_error.clear();
    m_status = "editing " + folder.string();
}

void UserTemplateModel::followEditor() {
    const engine::Template* t = m_model.currentTemplate();
    if (t == nullptr || !m_model.library().isUser(t->id()) || t->id() == m_id || m_saveDue) return;
    try {
        open(t->manifest().folder);
    } catch (const engine::InputError& e) {
        m_error = e.what();
    }
}

std::vector<std::string> UserTemplateModel::fileNames() const {
    std::vector<std::string> names;
    if (m_files.count(engine::kManifestFileName)) names.push_back(engine::kManifestFileName);
    for (const auto& [name, text] : m_files)
        if (name != engine::kManifestFileName) names.push_back(name);
    return names;
}

std::string* UserTemplateModel::text(const std::string& file) {
    const auto it = m_files.find(file);
    return it == m_files.end() ? nullptr : &it->second;
}

void UserTemplateModel::edited(const std::string& file) {
    if (std::find(m_dirty.begin(), m_dirty.end(), file) == m_dirty.end()) m_dirty.push_back(file);
    m_saveDue = Clock::now() + kSaveDelay;
}

bool UserTemplateModel::replaceText(const std::string& file, const std::string& from, const std::string& to) {
    std::string* t = text(file);
    const std::size_t at = t == nullptr || from.empty() ? std::string::npos : t->find(from);
    if (at == std::string::npos) return false;
    t->replace(at, from.size(), to);
    edited(file);
    return true;
}

void UserTemplateModel::update() {
    if (m_saveDue && Clock::now() >= *m_saveDue) save();
}

void UserTemplateModel::save() {
    m_saveDue.reset();
    engine::TemplateFiles changed;
    for (const std::string& name : m_dirty) changed[name] = m_files[name];
    m_dirty.clear();
    try {
        // The user's text is kept even when it does not load yet, as an editor saves a file.
        engine::writeTemplateFolder(m_folder, changed);
    } catch (const std::exception& e) {
        m_error = e.what();
        return;
    }
    try {
        auto tmpl = engine::loadTemplateFolder(m_folder);
        if (tmpl->id() != m_id)
            throw engine::InputError(fmt::format("{}: the template's id must stay '{}', its folder's name", (m_folder / engine::kManifestFileName).string(),
                                                 m_id));
        m_model.putUserTemplate(tmpl);
        m_error.clear();
        m_status = "saved and loaded";
    } catch (const engine::InputError& e) {
        m_error = e.what();
        m_status = "saved; the last version that loaded is still in use";
    }
}

std::string UserTemplateModel::shareString() const {
    const engine::Template* t = m_model.currentTemplate();
    const engine::Arch* arch = m_model.currentArch();
    if (t == nullptr || arch == nullptr) throw engine::InputError("pick a template and an arch first");
    engine::SizeMap sizes = t->defaultSizes();
    try {
        sizes = t->withSizes(m_model.runs().sizeText());
    } catch (const engine::InputError&) {
        // A size being typed in the Run panel: share the defaults rather than nothing.
    }
    return engine::encodeShareString(engine::shareDataOf(m_model.library(), *t, arch->name, m_model.config(), sizes));
}

std::string UserTemplateModel::openShareString(const std::string& text) {
    const engine::ShareData data = engine::decodeShareString(text);
    const engine::OpenedShare opened = m_model.openShare(data);
    if (opened.carriedTemplate) open(opened.folder);
    std::string line = fmt::format("opened {} for {}", opened.tmpl->configName(opened.config), opened.arch->name);
    if (opened.installed) line += fmt::format("; its template was saved in {}", opened.folder.string());
    return line;
}

}  // namespace kx::app

// The user's own kernels in the app: making a user template (from a pasted kernel, or a copy of
// the editor's template), editing its files with every edit saved and reloaded as the user types,
// and share strings of the editor's variant in both directions.
//
// A user template is an ordinary template folder under ExplorerModel::userTemplatesDir(). Its
// files are edited here as text; shortly after the last keystroke the edited file is written to
// disk and the folder loaded again (engine::loadTemplateFolder, a few milliseconds): a template
// that loads replaces the old one in the library, and when it is the editor's, the editor
// recompiles it through the same background path as every template. One that does not load
// keeps the last good version in use and reports the manifest's file and line in error().
// Not thread-safe: call everything from the UI thread.
#pragma once

#include "templates/user_template.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kx::app {

class ExplorerModel;

class UserTemplateModel {
public:
    using Clock = std::chrono::steady_clock;

    explicit UserTemplateModel(ExplorerModel& model) : m_model(model) {}
    UserTemplateModel(const UserTemplateModel&) = delete;
    UserTemplateModel& operator=(const UserTemplateModel&) = delete;

    // [SECTION] Making user templates. Each selects the new template in the editor and opens it
    // here; each throws engine::InputError with the reason (no kernel in the text, ...) or
    // engine::OutputError when the folder cannot be written.
    // From a kernel pasted as text (engine::templateForKernel), under an id made from its name.
    void createFromKernel(const std::string& kernelText);
    // A copy of the editor's template under a new id (a shipped one, to change it).
    void duplicateCurrent();

    // [SECTION] Editing. open() reads every file of the folder, even one whose manifest does not
    // load (to fix it). Throws engine::InputError when the folder cannot be read.
    void open(const std::filesystem::path& folder);
    // Opens the editor's template here when it is a user template and another one is open.
    void followEditor();
    bool isOpen() const { return !m_folder.empty(); }
    const std::filesystem::path& folder() const { return m_folder; }
    const std::string& id() const { return m_id; }
    std::vector<std::string> fileNames() const;  // manifest.xml first, then the others by name
    // The text of a file, for the editor widget to change in place; call edited() after a change.
    std::string* text(const std::string& file);
    void edited(const std::string& file);
    // Replaces the first `from` in `file` with `to`, as typing would (scripts). False when the
    // file has no `from`.
    bool replaceText(const std::string& file, const std::string& from, const std::string& to);
    // Writes and reloads what is due; once per frame.
    void update();
    // No edit is waiting to be saved.
    bool settled() const { return !m_saveDue; }
    // "FILE:LINE: reason" of the last reload that failed; empty when the files loaded.
    const std::string& error() const { return m_error; }
    const std::string& status() const { return m_status; }

    // [SECTION] Share strings (engine/templates/share_string.hpp).
    // The editor's variant as a share string; throws engine::InputError when nothing is selected.
    std::string shareString() const;
    // Opens a share string in the editor (installing a user template it carries) and returns a
    // line saying what it opened; throws engine::InputError with one line when the string is
    // not a valid one, engine::OutputError when a carried template cannot be written.
    std::string openShareString(const std::string& text);
    // The outcome of the last share action, for the Edit menu's callers to show.
    std::string lastShareMessage;
    bool lastShareFailed = false;

private:
    void save();
    void install(const engine::TemplateFiles& files, const std::string& id);

    ExplorerModel& m_model;
    std::filesystem::path m_folder;
    std::string m_id;
    engine::TemplateFiles m_files;
    std::vector<std::string> m_dirty;  // files edited since the last save
    std::optional<Clock::time_point> m_saveDue;
    std::string m_error;
    std::string m_status;
};

}  // namespace kx::app

// The desktop's own file dialogs, through zenity (GNOME) or kdialog (KDE) when one is installed:
// they know the user's bookmarks and recent folders, which a built-in dialog cannot. Each runs
// as a child process on a worker thread; the answer comes back through update() on the UI
// thread. Where neither program exists (or KX_NATIVE_DIALOGS=0), available() is false and the
// app uses its built-in dialog (views/file_dialog_view.hpp).
// Not thread-safe: call everything from the UI thread.
#pragma once

#include "jobs/job_queue.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace kx::app {

struct FileRequest {
    enum class Mode { Open, Save };
    Mode mode = Mode::Open;
    std::string title;                  // "Open session"
    std::filesystem::path folder;       // where the dialog starts
    std::string suggestedName;          // Save: the name typed in at first
    // Called on the UI thread with the chosen file; not called when the user cancels. A Save
    // answer gets the ".kxs" extension when it has none.
    std::function<void(const std::filesystem::path&)> onChosen;
};

class NativeFileDialog {
public:
    NativeFileDialog();
    ~NativeFileDialog();

    // "zenity", "kdialog", or "" when neither is usable.
    const std::string& program() const { return m_program; }
    bool available() const { return !m_program.empty(); }
    // True while a dialog is open (a second request is ignored meanwhile).
    bool busy() const { return m_job && !m_job->finished(); }
    // Opens the dialog; false when none is available or one is open already.
    bool request(FileRequest request);
    // The last failure to run the program, in plain words; empty when none.
    const std::string& error() const { return m_error; }

    void update();  // once per frame: delivers the answer

private:
    std::string m_program;
    std::string m_error;
    std::shared_ptr<engine::Job> m_job;
    engine::Mailbox m_mailbox;
    engine::JobQueue m_jobs{1};  // last: joins before the mailbox goes
};

// Adds ".kxs" to a session file name without an extension.
std::filesystem::path withSessionExtension(std::filesystem::path file);

}  // namespace kx::app

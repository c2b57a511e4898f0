// The built-in file dialog, for desktops without zenity or kdialog (native_file_dialog.hpp):
// a floating window listing one folder (sub-folders first, then *.kxs sessions), a path field
// that takes a typed or pasted path, Up, and Open / Save. Saving over an existing file asks
// first. Reading a folder is one directory listing, done when the folder changes.
#pragma once

#include "native_file_dialog.hpp"
#include "views/view.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kx::app {

class FileDialogView final : public View {
public:
    explicit FileDialogView(ViewContext context);

    bool inViewMenu() const override { return false; }
    void show(FileRequest request);
    const std::filesystem::path& folder() const { return m_folder; }

protected:
    void drawContent() override;
    void placeWindow() override;
    ImGuiWindowFlags windowFlags() const override { return ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings; }

private:
    struct Entry {
        std::string name;
        bool folder = false;
        std::uintmax_t size = 0;
    };
    void enter(const std::filesystem::path& folder);
    void choose(const std::filesystem::path& file);

    FileRequest m_request;
    std::filesystem::path m_folder;
    std::vector<Entry> m_entries;
    std::string m_listError;
    std::string m_name;           // the file name field
    std::string m_confirmReplace; // a Save over this existing file waits for a yes
    bool m_focusName = false;
};

}  // namespace kx::app

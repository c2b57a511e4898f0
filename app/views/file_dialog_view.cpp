#include "views/file_dialog_view.hpp"

#include "theme.hpp"

#include <fmt/format.h>
#include <imgui_stdlib.h>

#include <algorithm>

namespace kx::app {

namespace fs = std::filesystem;

FileDialogView::FileDialogView(ViewContext context) : View("Session file", Slot::Floating, context) { setOpen(false); }

void FileDialogView::show(FileRequest request) {
    m_request = std::move(request);
    m_name = m_request.suggestedName;
    m_confirmReplace.clear();
    m_focusName = true;
    enter(m_request.folder.empty() ? fs::current_path() : m_request.folder);
    setOpen(true);
}

void FileDialogView::placeWindow() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    centreNextWindow(ImVec2(std::min(760.0f, vp->WorkSize.x * 0.8f), std::min(520.0f, vp->WorkSize.y * 0.8f)));
    ImGui::SetNextWindowFocus();
}

void FileDialogView::enter(const fs::path& folder) {
    m_entries.clear();
    m_listError.clear();
    std::error_code ec;
    m_folder = fs::weakly_canonical(folder, ec);
    if (ec) m_folder = folder;
    for (fs::directory_iterator it(m_folder, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.starts_with(".")) continue;  // hidden files, and sessions' own temporary copies
        std::error_code e2;
        const bool isFolder = it->is_directory(e2);
        if (!isFolder && it->path().extension() != ".kxs") continue;
        m_entries.push_back({name, isFolder, isFolder ? 0 : it->file_size(e2)});
    }
    if (ec) m_listError = fmt::format("cannot list {}: {}", m_folder.string(), ec.message());
    std::sort(m_entries.begin(), m_entries.end(), [](const Entry& a, const Entry& b) {
        return a.folder != b.folder ? a.folder : a.name < b.name;
    });
}

void FileDialogView::choose(const fs::path& file) {
    setOpen(false);
    if (m_request.onChosen) m_request.onChosen(file);
}

void FileDialogView::drawContent() {
    const Palette& pal = theme().palette();
    const bool save = m_request.mode == FileRequest::Mode::Save;
    ImGui::TextUnformatted(m_request.title.c_str());
    if (ImGui::Button("Up")) enter(m_folder.parent_path());
    ImGui::SameLine();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", m_folder.string().c_str());

    const float footer = ImGui::GetFrameHeightWithSpacing() * 2 + ImGui::GetStyle().ItemSpacing.y;
    if (ImGui::BeginChild("##entries", ImVec2(0, -footer), true)) {
        if (!m_listError.empty()) ImGui::TextColored(Theme::toVec4(pal.error), "%s", m_listError.c_str());
        if (m_entries.empty() && m_listError.empty()) ImGui::TextColored(Theme::toVec4(pal.textFaint), "no sessions or folders here");
        fs::path enterFolder;
        for (const Entry& e : m_entries) {
            const std::string label = e.folder ? e.name + "/" : e.name;
            const bool picked = !e.folder && m_name == e.name;
            if (ImGui::Selectable(label.c_str(), picked, ImGuiSelectableFlags_AllowDoubleClick)) {
                if (e.folder) {
                    enterFolder = m_folder / e.name;
                } else {
                    m_name = e.name;
                    if (ImGui::IsMouseDoubleClicked(0) && !save) choose(m_folder / e.name);
                }
            }
            if (!e.folder) {
                ImGui::SameLine(ImGui::GetContentRegionAvail().x - 80);
                ImGui::TextColored(Theme::toVec4(pal.textFaint), "%8.1f KiB", static_cast<double>(e.size) / 1024.0);
            }
        }
        if (!enterFolder.empty()) enter(enterFolder);
    }
    ImGui::EndChild();

    ImGui::SetNextItemWidth(-FLT_MIN);
    if (m_focusName) {
        ImGui::SetKeyboardFocusHere();
        m_focusName = false;
    }
    const bool entered = ImGui::InputTextWithHint("##name", save ? "file name (.kxs is added)" : "file name or path", &m_name,
                                                  ImGuiInputTextFlags_EnterReturnsTrue);
    fs::path target;
    if (!m_name.empty()) {
        const fs::path typed(m_name);
        target = typed.is_absolute() ? typed : m_folder / typed;
        if (save) target = withSessionExtension(target);
    }
    std::error_code ec;
    const bool exists = !target.empty() && fs::exists(target, ec);
    const bool isFolder = exists && fs::is_directory(target, ec);
    const char* action = save ? "Save" : "Open";
    ImGui::BeginDisabled(target.empty() || (!save && !exists));
    bool go = ImGui::Button(action, ImVec2(120, 0)) || (entered && !target.empty());
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Cancel", ImVec2(120, 0))) setOpen(false);
    if (go && isFolder) {
        enter(target);
        m_name.clear();
        go = false;
    }
    if (go && !save && !exists) {
        m_confirmReplace.clear();
        go = false;
    }
    if (go && save && exists && m_confirmReplace != target.string()) {
        m_confirmReplace = target.string();  // the next click replaces it
        go = false;
    }
    if (!m_confirmReplace.empty() && m_confirmReplace == target.string()) {
        ImGui::SameLine();
        ImGui::TextColored(Theme::toVec4(pal.warn), "%s exists: press %s again to replace it", target.filename().c_str(), action);
    }
    if (go) choose(target);
}

}  // namespace kx::app

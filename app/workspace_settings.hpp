// The workspace the user arranged: where the splitters between panels sit, which panel is
// maximised, the theme and the zoom. Pure data (no ImGui), saved as JSON under the user's config
// folder and restored at start; the shipped defaults live in assets/layout/default.json.
//
// Sizes are shares of the window, not pixels, so one layout serves 1280x720 and 1920x1080; the
// layout code clamps them to minimum pixel widths when it places the panels.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kx::app {

enum class ThemeKind { Dark, Light };

struct WorkspaceSettings {
    // Column widths, as shares of the window width.
    float leftWidth = 0.2f;
    float rightWidth = 0.19f;
    // The code tabs' share of the centre's height when analysis panels sit below them.
    float centreTop = 0.48f;
    // Boundaries between the panels below the code tabs, as shares of the centre's width,
    // ascending; empty (or not one fewer than the panels) means equal widths.
    std::vector<float> belowSplits;
    // Heights as shares of the body (under the menu, above the status bar); below zero means
    // "follow the content" (the Kernel panel and the Variants list size to what they show).
    float kernelHeight = -1.0f;
    float variantsHeight = -1.0f;
    // Where the Run panel starts in the right column, as a share of the body; below zero: under
    // the content-sized Resources and Launch panels.
    float runTop = -1.0f;
    // The title of the maximised panel; empty when none is.
    std::string maximised;
    ThemeKind theme = ThemeKind::Dark;
    // The user's zoom (Ctrl +/-), multiplied by the monitor's content scale.
    float zoom = 1.0f;

    static constexpr float kMinZoom = 0.7f;
    static constexpr float kMaxZoom = 2.5f;
    static constexpr float kZoomStep = 0.1f;

    // Throws engine::InputError "FILE: reason" (or "FILE:LINE: reason" for malformed JSON) on a
    // file that is not a workspace; unknown keys are ignored, out-of-range values clamped.
    static WorkspaceSettings load(const std::filesystem::path& file);
    // The shipped defaults (dataRoot/assets/layout/default.json) overlaid by the user's file when
    // there is one; a broken file is reported in `warning` and skipped.
    static WorkspaceSettings loadOrDefault(const std::filesystem::path& defaults, const std::filesystem::path& user, std::string& warning);
    // Writes the file (creating its folder); false with `error` set when it cannot.
    bool save(const std::filesystem::path& file, std::string& error) const;

    std::string toJson() const;
    // Applies the keys present in `json` over this; throws engine::InputError on a bad value.
    void merge(const std::string& json, const std::string& fileName);
    // Keeps every share in a range where no panel vanishes.
    void clamp();
    // Everything but the appearance back to the shipped layout.
    void resetLayout(const WorkspaceSettings& defaults);

    bool operator==(const WorkspaceSettings&) const = default;
};

// Where the user's workspace is kept: configRoot()/workspace.json.
std::filesystem::path userWorkspaceFile();

}  // namespace kx::app

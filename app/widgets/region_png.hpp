// Saves a screen region of the frame being rendered as PNG: a draw-list callback reads the pixels
// back from the GL back buffer while ImGui_ImplOpenGL3_RenderDrawData runs, after the region was
// drawn and before anything drawn later (tooltips included), so the file holds exactly what the
// view shows. Used by the views' "Export PNG" (Roofline, Tiles).
//
//   request(file)                         when the user or a script asks
//   if (capture.wanted()) capture.queue(dl, min, max);   while drawing the region, each frame
//   capture.takeOutcome(message, failed);   on a later frame, to show what happened
//
// The object must outlive the frame that queued it: views hold it by shared_ptr.
#pragma once

#include <imgui.h>

#include <filesystem>
#include <string>

namespace kx::app {

struct RegionPng {
    std::filesystem::path file;
    ImVec2 min{}, max{};            // region, ImGui screen coordinates
    ImVec2 displayPos{}, fbScale{1, 1};
    bool requested = false;         // set by request()
    bool queued = false;            // a callback is in this frame's draw list
    bool done = false;              // the callback ran
    bool ok = false;
    std::string message;            // "wrote FILE (WxH)" or why not

    void request(std::filesystem::path target) {
        *this = RegionPng{};
        file = std::move(target);
        requested = true;
    }
    bool wanted() const { return requested && !queued; }
    bool pending() const { return requested && !done; }
    void reset() { requested = queued = done = false; }
    // Once the callback ran: copies its outcome into message and failed, resets, returns true.
    bool takeOutcome(std::string& outMessage, bool& failed) {
        if (!done) return false;
        outMessage = message;
        failed = !ok;
        reset();
        return true;
    }
    // Adds the read-back callback for [regionMin, regionMax) to dl (then resets the render state).
    void queue(ImDrawList* dl, ImVec2 regionMin, ImVec2 regionMax);

    static void callback(const ImDrawList*, const ImDrawCmd* cmd);
    void write();  // reads the pixels and writes the PNG; sets done, ok, message
};

}  // namespace kx::app

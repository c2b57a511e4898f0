#include "widgets/region_png.hpp"

#include <GL/gl.h>
#include <fmt/format.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace kx::app {

void RegionPng::queue(ImDrawList* dl, ImVec2 regionMin, ImVec2 regionMax) {
    min = regionMin;
    max = regionMax;
    displayPos = ImGui::GetMainViewport()->Pos;
    fbScale = ImGui::GetIO().DisplayFramebufferScale;
    queued = true;
    dl->AddCallback(&RegionPng::callback, this);
    dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

void RegionPng::callback(const ImDrawList*, const ImDrawCmd* cmd) { static_cast<RegionPng*>(cmd->UserCallbackData)->write(); }

void RegionPng::write() {
    done = true;
    GLint viewport[4] = {0, 0, 0, 0};
    glGetIntegerv(GL_VIEWPORT, viewport);
    const int fbH = viewport[3];
    const int x0 = static_cast<int>(std::floor((min.x - displayPos.x) * fbScale.x));
    const int y0 = static_cast<int>(std::floor((min.y - displayPos.y) * fbScale.y));
    const int x1 = static_cast<int>(std::ceil((max.x - displayPos.x) * fbScale.x));
    const int y1 = static_cast<int>(std::ceil((max.y - displayPos.y) * fbScale.y));
    const int w = std::min(x1, viewport[2]) - std::max(x0, 0);
    const int h = std::min(y1, fbH) - std::max(y0, 0);
    if (w <= 0 || h <= 0) {
        message = "the region is not on screen";
        return;
    }
    std::vector<unsigned char> rows(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
    GLint packAlignment = 4;
    glGetIntegerv(GL_PACK_ALIGNMENT, &packAlignment);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    // GL's origin is bottom-left: the region's lowest row is fbH - (top + h).
    glReadPixels(std::max(x0, 0), fbH - (std::max(y0, 0) + h), w, h, GL_RGB, GL_UNSIGNED_BYTE, rows.data());
    glPixelStorei(GL_PACK_ALIGNMENT, packAlignment);
    // Flip here rather than through stb's global flag, which the screenshot path also sets.
    std::vector<unsigned char> flipped(rows.size());
    const std::size_t stride = static_cast<std::size_t>(w) * 3;
    for (int r = 0; r < h; ++r)
        std::copy_n(&rows[static_cast<std::size_t>(h - 1 - r) * stride], stride, &flipped[static_cast<std::size_t>(r) * stride]);
    std::error_code ec;
    if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
    stbi_flip_vertically_on_write(0);
    ok = stbi_write_png(file.c_str(), w, h, 3, flipped.data(), w * 3) != 0;
    message = ok ? fmt::format("wrote {} ({}x{})", file.string(), w, h) : "cannot write " + file.string();
}

}  // namespace kx::app

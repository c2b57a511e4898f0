// Images from files as OpenGL textures for ImGui::Image (the tutorials' prose images). Each file
// is decoded once (stb_image) and uploaded once; a file changed on disk is read again. A file that
// cannot be read or decoded gives the reason instead, once, without retrying every frame.
//
// Call from the UI thread with the GL context current. The textures are not deleted at exit:
// they go with the GL context; after a new context (a GPU reset) every file is loaded again.
#pragma once

#include <imgui.h>

#include <filesystem>
#include <map>
#include <string>

namespace kx::app {

class ImageTextures {
public:
    struct Image {
        ImTextureID texture{};  // null when the file could not be shown
        int width = 0, height = 0;
        std::string error;      // why not
        std::filesystem::file_time_type written{};
    };

    // The image of the file, loaded on first use (or when the file changed since).
    const Image& get(const std::filesystem::path& file);

private:
    std::map<std::filesystem::path, Image> m_images;
    unsigned m_generation = 0;  // the GL context the textures belong to (gl_context.hpp)
};

}  // namespace kx::app

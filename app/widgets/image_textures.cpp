#include "widgets/image_textures.hpp"

#include "gl_context.hpp"

#include <GL/gl.h>
#include <fmt/format.h>
#include <stb/stb_image.h>

#include <cstdint>

namespace kx::app {

const ImageTextures::Image& ImageTextures::get(const std::filesystem::path& file) {
    if (m_generation != glContextGeneration()) {
        m_images.clear();  // their textures went with the old context: nothing to delete
        m_generation = glContextGeneration();
    }
    std::error_code ec;
    const auto written = std::filesystem::last_write_time(file, ec);
    Image& image = m_images[file];
    if ((image.texture != ImTextureID{} || !image.error.empty()) && written == image.written) return image;
    if (image.texture != ImTextureID{}) {
        const auto name = static_cast<GLuint>(reinterpret_cast<std::uintptr_t>(image.texture));
        glDeleteTextures(1, &name);
    }
    image = Image{};
    image.written = written;
    if (ec) {
        image.error = fmt::format("cannot read {}: {}", file.filename().string(), ec.message());
        return image;
    }
    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load(file.c_str(), &w, &h, &channels, 4);
    if (pixels == nullptr) {
        image.error = fmt::format("cannot decode {}: {}", file.filename().string(), stbi_failure_reason());
        return image;
    }
    GLint lastTexture = 0, lastAlignment = 4;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &lastTexture);
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &lastAlignment);
    GLuint name = 0;
    glGenTextures(1, &name);
    glBindTexture(GL_TEXTURE_2D, name);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    glPixelStorei(GL_UNPACK_ALIGNMENT, lastAlignment);
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(lastTexture));
    stbi_image_free(pixels);
    image.texture = reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(name));
    image.width = w;
    image.height = h;
    return image;
}

}  // namespace kx::app

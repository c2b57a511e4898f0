#include "gl_context.hpp"

#include <GLFW/glfw3.h>

#include <atomic>

namespace kx::app {

namespace {

// GL_ARB_robustness (core in OpenGL 4.5); the values of glGetGraphicsResetStatus.
constexpr unsigned kNoError = 0;
constexpr unsigned kGuiltyContextReset = 0x8253;
constexpr unsigned kInnocentContextReset = 0x8254;
constexpr unsigned kUnknownContextReset = 0x8255;
using ResetStatusFn = unsigned (*)();

std::atomic<unsigned> g_generation{1};

}  // namespace

void hintContextRobustness(bool withReset) {
    glfwWindowHint(GLFW_CONTEXT_ROBUSTNESS, withReset ? GLFW_LOSE_CONTEXT_ON_RESET : GLFW_NO_ROBUSTNESS);
}

std::string contextResetStatus() {
    // Looked up for each context: a new context may come from another driver entry point.
    static unsigned lookedUpFor = 0;
    static ResetStatusFn query = nullptr;
    if (lookedUpFor != g_generation.load()) {
        lookedUpFor = g_generation.load();
        query = reinterpret_cast<ResetStatusFn>(glfwGetProcAddress("glGetGraphicsResetStatusARB"));
        if (query == nullptr) query = reinterpret_cast<ResetStatusFn>(glfwGetProcAddress("glGetGraphicsResetStatus"));
    }
    if (query == nullptr) return {};
    switch (query()) {
    case kNoError: return {};
    case kGuiltyContextReset: return "a reset caused by this window's own drawing";
    case kInnocentContextReset: return "an innocent reset: another context on the GPU faulted (a kernel that faulted)";
    case kUnknownContextReset: return "a reset of unknown cause";
    default: return "a reset the driver did not name";
    }
}

std::string rendererName() {
    const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    return name != nullptr ? name : "";
}

unsigned glContextGeneration() { return g_generation.load(); }
void nextGlContextGeneration() { ++g_generation; }

}  // namespace kx::app

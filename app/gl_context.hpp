// The window's OpenGL context when the GPU resets it.
//
// On a GPU that also runs the kernels, a kernel that faults makes the driver recover the
// graphics engine, and the window's context may be reset with it (seen on an H200 rendering
// through the NVIDIA driver: a context that carries on after the reset faults at address 0 on
// every frame, and each of those faults disturbs the next kernel run). The window asks for a
// context that reports a reset (GL_ARB_robustness, "lose context on reset"); the frame loop
// asks each frame, and on a reset makes the window anew. The GL objects the app made (the
// tutorials' image textures) went with the old context: they check glContextGeneration().
#pragma once

#include <string>

namespace kx::app {

// Asks GLFW for a context that loses itself on a GPU reset and reports it (window hints; call
// before glfwCreateWindow). withReset false asks for an ordinary context (the fallback where
// the driver offers no robustness).
void hintContextRobustness(bool withReset);

// The current context's reset status: "" while it is fine, else what happened ("an innocent
// reset: another context's fault", ...). Always "" for a context made without robustness.
std::string contextResetStatus();

// The current context's GL_RENDERER ("NVIDIA H200/PCIe/SSE2", "llvmpipe (LLVM 15.0.6, 256 bits)").
std::string rendererName();

// Counts the contexts made so far; the app's own GL objects are valid only in the generation
// that made them.
unsigned glContextGeneration();
void nextGlContextGeneration();

}  // namespace kx::app

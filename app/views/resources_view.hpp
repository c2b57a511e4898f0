// Right column: the ptxas resource report of the compiled kernel, or for AMD arches the HIP
// compile's code-object metadata (Resources), and the launch
// geometry for the template's default problem sizes (Launch).
#pragma once

#include "views/view.hpp"

namespace kx::engine {
struct KernelResources;
struct AmdKernelResources;
struct CompileResult;
}

namespace kx::app {

class ResourcesView final : public View {
public:
    explicit ResourcesView(ViewContext context) : View("Resources", Slot::RightTop, context) {}

protected:
    void drawContent() override;

private:
    void drawKernel(const engine::KernelResources& k, bool dimmed);
    // AMD arches: clang's HIP compile (VGPRs, AGPRs, SGPRs, LDS, scratch, occupancy).
    void drawHip();
    void drawAmdKernel(const engine::AmdKernelResources& k, bool dimmed);
    // The section under either result (defined in resources_view.cpp): the compiler's name and
    // version (in the warning colour when not found), and the result's compile time.
    template <class Result>
    void drawCompiler(const char* id, const char* compiler, const std::string& version, bool found, const Result* r, bool current) const;
    // The kernel's (mangled) name, whole on hover.
    void drawKernelName(const std::string& function) const;
    int m_kernelIndex = 0;  // which kernel of a multi-kernel result
    const engine::CompileResult* m_kernelPickedFor = nullptr;  // the result m_kernelIndex was first set for
};

class LaunchView final : public View {
public:
    explicit LaunchView(ViewContext context) : View("Launch", Slot::RightTop, context) {}

protected:
    void drawContent() override;
};

}  // namespace kx::app

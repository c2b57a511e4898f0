// "copy": a device-to-device copy of `bytes` bytes (cuMemcpyDtoD), the device's practical
// bandwidth ceiling for a kernel that streams memory. A manifest asks for BYTES/2, so that the
// copy reads and writes as many bytes as the kernel's byte formula counts.
#include "baselines/baseline_factories.hpp"

namespace kx::runner {
namespace {

class CopyBaseline : public BaselineInstance {
public:
    CopyBaseline(DeviceContext& ctx, std::size_t bytes) : m_ctx(ctx), m_bytes(bytes), m_src(ctx, bytes), m_dst(ctx, bytes) {
        ctx.check(ctx.driver().cuMemsetD8(m_src.ptr, 1, bytes), "filling the copy source");
    }
    std::string label() const override { return "device copy"; }
    void run() override { m_ctx.check(m_ctx.driver().cuMemcpyDtoD(m_dst.ptr, m_src.ptr, m_bytes), "copying"); }

private:
    DeviceContext& m_ctx;
    std::size_t m_bytes;
    DeviceBuffer m_src, m_dst;
};

}  // namespace

KX_BASELINE_FACTORY(makeCopy) {
    (void)buffers;
    const long long bytes = paramInt(params, "bytes", "copy");
    if (bytes <= 0) throw RunnerError("baseline 'copy': bytes must be positive", false);
    return std::make_unique<CopyBaseline>(ctx, static_cast<std::size_t>(bytes));
}

}  // namespace kx::runner

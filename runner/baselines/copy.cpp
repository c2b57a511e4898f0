// "copy": a device-to-device copy of `bytes` bytes (cuMemcpyDtoD), the device's practical
// bandwidth ceiling for a kernel that streams memory. A manifest asks for BYTES/2, so that the
// copy reads and writes as many bytes as the kernel's byte formula counts.
#include "baselines/baseline_factories.hpp"

namespace kx::runner {
namespace {

// The copy's own source and destination, one pair per rotation set (allocated when a set is
// first used), so that a copy small enough for L2 streams from DRAM as the kernel's rotated
// inputs do.
class CopyBaseline : public BaselineInstance {
public:
    CopyBaseline(DeviceContext& ctx, std::size_t bytes) : m_ctx(ctx), m_bytes(bytes) {}
    std::string label() const override { return "device copy"; }
    void run() override {
        prepareSet(rotationSet());  // set 0's pair, for the checked run before any rotation
        const Pair& p = m_pairs[static_cast<std::size_t>(rotationSet()) % m_pairs.size()];
        m_ctx.check(m_ctx.driver().cuMemcpyDtoD(p.dst->ptr, p.src->ptr, m_bytes), "copying");
    }

private:
    struct Pair {
        std::unique_ptr<DeviceBuffer> src, dst;
    };
    // A pair per set while at least half the device's free memory would remain; the sets beyond
    // share the pairs in turn.
    void prepareSet(int set) override {
        while (m_pairs.size() <= static_cast<std::size_t>(set)) {
            std::size_t freeBytes = 0, totalBytes = 0;
            m_ctx.driver().cuMemGetInfo(&freeBytes, &totalBytes);
            if (!m_pairs.empty() && 2 * m_bytes > freeBytes / 2) return;
            Pair p{std::make_unique<DeviceBuffer>(m_ctx, m_bytes), std::make_unique<DeviceBuffer>(m_ctx, m_bytes)};
            m_ctx.check(m_ctx.driver().cuMemsetD8(p.src->ptr, 1, m_bytes), "filling the copy source");
            m_pairs.push_back(std::move(p));
        }
    }

    DeviceContext& m_ctx;
    std::size_t m_bytes;
    std::vector<Pair> m_pairs;
};

}  // namespace

KX_BASELINE_FACTORY(makeCopy) {
    (void)buffers;
    const long long bytes = paramInt(params, "bytes", "copy");
    if (bytes <= 0) throw RunnerError("baseline 'copy': bytes must be positive", false);
    return std::make_unique<CopyBaseline>(ctx, static_cast<std::size_t>(bytes));
}

}  // namespace kx::runner

// Baselines by name: a library's implementation of the same operation (cuBLAS, CUB) or a device
// copy of the same bytes, timed in the same process as the kernel. A template's manifest lists
// the ones it is measured against (<baselines>); the engine sends them in the run request;
// this table is the only place that knows each one.
#pragma once

#include "device_context.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace kx::runner {

// One kernel argument lent to a baseline: its device buffer (the checked launch's set, with
// its inputs as uploaded) and size.
struct BaselineArg {
    std::string name;
    CUdeviceptr ptr = 0;
    std::size_t bytes = 0;
    std::size_t elemBytes = 0;
};

struct BaselineBuffers {
    std::vector<BaselineArg> args;  // in the order the manifest's args="..." lists them
    // Where the baseline writes its result when the manifest asked for one (output="C"): a
    // fresh buffer of that argument's size, read back after the first call. 0 when none.
    CUdeviceptr output = 0;
    std::size_t outputBytes = 0;
};

// A baseline set up for one run: run() does the whole operation once on the default stream
// (asynchronously; the caller synchronises and times). Owns whatever it allocated.
//
// Its timed runs go round the kernel's rotation sets as the kernel's own do, so that a problem
// small enough for L2 is timed from DRAM for both, not the kernel cold and the baseline warm.
// Before each (untimed) the runner names the set; run() reaches every lent buffer through lent(),
// which moves a pointer into the checked set's buffer (or the output) to the same offset in that
// set's copy, and a baseline that streams buffers of its own keeps one per set (rotationSet()).
class BaselineInstance {
public:
    using Translation = std::function<CUdeviceptr(CUdeviceptr)>;
    virtual ~BaselineInstance() = default;
    virtual std::string label() const = 0;  // "CUB DeviceScan::InclusiveSum i32"
    virtual void run() = 0;                 // throws RunnerError
    // A baseline that wraps another passes the set on.
    virtual void useSet(int set, int sets, Translation lentInSet) {
        m_set = set, m_sets = sets;
        m_lentInSet = std::move(lentInSet);
        prepareSet(set);
    }

protected:
    CUdeviceptr lent(CUdeviceptr ptr) const { return m_lentInSet && ptr ? m_lentInSet(ptr) : ptr; }
    int rotationSet() const { return m_set; }
    // Untimed, before a run on `set`: where a baseline readies what it keeps per set.
    virtual void prepareSet(int set) { (void)set; }

private:
    int m_set = 0, m_sets = 1;
    Translation m_lentInSet;
};

// params: the manifest's <param>s, evaluated (numbers) or substituted (strings). Throws
// RunnerError (not fatal) naming a missing or unsupported parameter or buffer.
using BaselineFactory =
    std::function<std::unique_ptr<BaselineInstance>(DeviceContext&, const nlohmann::json& params, const BaselineBuffers&)>;

// nullptr when no baseline has that name.
const BaselineFactory* findBaseline(const std::string& name);
std::vector<std::string> baselineNames();

// Helpers for factories: params[key] as T, or RunnerError naming the baseline and key.
std::string paramText(const nlohmann::json& params, const char* key, const std::string& baseline);
long long paramInt(const nlohmann::json& params, const char* key, const std::string& baseline);
double paramNumber(const nlohmann::json& params, const char* key, const std::string& baseline);
// The index of params[key] in `choices`, or RunnerError "key 'x' is not a, b or c".
int paramChoice(const nlohmann::json& params, const char* key, std::initializer_list<const char*> choices, const std::string& baseline);
const BaselineArg& bufferAt(const BaselineBuffers& buffers, std::size_t index, const std::string& baseline);
// bufferAt, also checking that the buffer holds at least `bytes` (what: "n = 1000 f32 elements").
const BaselineArg& bufferAt(const BaselineBuffers& buffers, std::size_t index, std::size_t bytes, const std::string& what,
                            const std::string& baseline);

// A device allocation freed when it goes out of scope.
struct DeviceBuffer {
    const CudaDriver& d;
    CUdeviceptr ptr = 0;
    DeviceBuffer(DeviceContext& ctx, std::size_t bytes);
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// Where a baseline writes its result: the manifest's output buffer when it asked for one (which
// must hold `bytes`), else a buffer of the baseline's own, kept in `own`.
CUdeviceptr outputOrOwn(DeviceContext& ctx, const BaselineBuffers& buffers, std::size_t bytes, const std::string& baseline,
                        std::unique_ptr<DeviceBuffer>& own);

}  // namespace kx::runner

#include "kernel_run.hpp"

#include "baselines/baseline.hpp"
#include "memory_counters.hpp"
#include "pc_sampling.hpp"
#include "request_parsing.hpp"
#include "timing.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <functional>
#include <optional>

namespace kx::runner {
namespace {

// [SECTION] Files and resources

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw RunnerError("cannot read '" + path + "'", false);
    std::string bytes(static_cast<size_t>(in.tellg()), '\0');
    in.seekg(0);
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!in) throw RunnerError("cannot read '" + path + "'", false);
    return bytes;
}

void writeFile(const std::string& path, const void* data, size_t bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    if (!out) throw RunnerError("cannot write '" + path + "'", false);
}

// Frees every allocation and the module however the run ends.
struct Resources {
    const CudaDriver& d;
    CUmodule module = nullptr;
    std::vector<CUdeviceptr> allocations;
    ~Resources() {
        for (CUdeviceptr p : allocations) d.cuMemFree(p);
        if (module) d.cuModuleUnload(module);
    }
    CUdeviceptr alloc(DeviceContext& ctx, size_t bytes, const std::string& what) {
        CUdeviceptr p = 0;
        ctx.check(d.cuMemAlloc(&p, bytes), "allocating " + std::to_string(bytes) + " bytes for '" + what + "'");
        allocations.push_back(p);
        return p;
    }
};

// [SECTION] Tensor maps

// The TMA descriptor of `map` over `buffer` (one rotation set's allocation), tiled or im2col,
// after checking the rules the encoder would otherwise refuse with a bare error code.
CUtensorMap encodeTensorMap(DeviceContext& ctx, const Arg& map, const Arg& buffer, CUdeviceptr address) {
    static const std::map<std::string, std::pair<CUtensorMapDataType, size_t>> kTypes = {
        {"f16", {CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2}}, {"bf16", {CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2}},
        {"f32", {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4}}, {"f64", {CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 8}},
        {"i32", {CU_TENSOR_MAP_DATA_TYPE_INT32, 4}},   {"u32", {CU_TENSOR_MAP_DATA_TYPE_UINT32, 4}},
        {"i64", {CU_TENSOR_MAP_DATA_TYPE_INT64, 8}},   {"u64", {CU_TENSOR_MAP_DATA_TYPE_UINT64, 8}},
        {"u8", {CU_TENSOR_MAP_DATA_TYPE_UINT8, 1}},    {"i8", {CU_TENSOR_MAP_DATA_TYPE_UINT8, 1}},
        // fp8 as bytes: the TMA only copies them.
        {"e4m3", {CU_TENSOR_MAP_DATA_TYPE_UINT8, 1}},  {"e5m2", {CU_TENSOR_MAP_DATA_TYPE_UINT8, 1}},
    };
    static const std::map<std::string, std::pair<CUtensorMapSwizzle, unsigned>> kSwizzles = {
        {"none", {CU_TENSOR_MAP_SWIZZLE_NONE, 0}}, {"32B", {CU_TENSOR_MAP_SWIZZLE_32B, 32}},
        {"64B", {CU_TENSOR_MAP_SWIZZLE_64B, 64}},  {"128B", {CU_TENSOR_MAP_SWIZZLE_128B, 128}},
    };
    const std::string what = "tensor map '" + map.name + "' of '" + map.of + "'";
    const auto type = kTypes.find(map.dtype);
    if (type == kTypes.end()) throw RunnerError(what + ": TMA has no element type for '" + map.dtype + "'", false);
    const auto swizzle = kSwizzles.find(map.swizzle);
    if (swizzle == kSwizzles.end()) throw RunnerError(what + ": unknown swizzle '" + map.swizzle + "' (none, 32B, 64B, 128B)", false);
    const size_t elem = type->second.second;
    const size_t rank = map.dims.size();
    // Byte strides of dimensions 1.. (dimension 0 is contiguous), dense.
    std::vector<cuuint64_t> strides;
    size_t pitch = elem, span = 1;
    for (size_t i = 0; i < rank; ++i) {
        span *= map.dims[i];
        if (i + 1 < rank) {
            pitch *= map.dims[i];
            if (pitch % 16 != 0)
                throw RunnerError(what + ": the pitch of dimension " + std::to_string(i + 1) + " is " + std::to_string(pitch) + " bytes (dims[0] = " +
                                      std::to_string(map.dims[0]) + " x " + std::to_string(elem) +
                                      " bytes ...), not a multiple of 16; TMA needs 16-byte aligned strides",
                                  false);
            strides.push_back(pitch);
        }
    }
    if (span * elem > buffer.bytes)
        throw RunnerError(what + " spans " + std::to_string(span * elem) + " bytes; the buffer has " + std::to_string(buffer.bytes), false);
    if (address % 16 != 0) throw RunnerError(what + ": the buffer's address is not 16-byte aligned", false);
    if (map.box[0] * elem % 16 != 0)
        throw RunnerError(what + ": the box's inner size is " + std::to_string(map.box[0] * elem) + " bytes, not a multiple of 16", false);
    if (swizzle->second.second && map.box[0] * elem > swizzle->second.second)
        throw RunnerError(what + ": the box's inner size is " + std::to_string(map.box[0] * elem) + " bytes, more than the " +
                              std::to_string(swizzle->second.second) + "-byte swizzle span",
                          false);
    std::vector<cuuint64_t> dims(map.dims.begin(), map.dims.end());
    std::vector<cuuint32_t> box(map.box.begin(), map.box.end());
    std::vector<cuuint32_t> elementStrides(rank, 1);
    if (!map.strides.empty()) elementStrides.assign(map.strides.begin(), map.strides.end());
    CUtensorMap encoded{};
    const bool im2col = map.mode == "im2col";
    const CUresult status =
        im2col ? ctx.driver().cuTensorMapEncodeIm2col(&encoded, type->second.first, static_cast<cuuint32_t>(rank), reinterpret_cast<void*>(address),
                                                      dims.data(), strides.data(), map.lower.data(), map.upper.data(), box[0], box[1],
                                                      elementStrides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle->second.first,
                                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
               : ctx.driver().cuTensorMapEncodeTiled(&encoded, type->second.first, static_cast<cuuint32_t>(rank), reinterpret_cast<void*>(address),
                                                     dims.data(), strides.data(), box.data(), elementStrides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE,
                                                     swizzle->second.first, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (status != CUDA_SUCCESS)
        throw RunnerError(what + ": " + (im2col ? "cuTensorMapEncodeIm2col" : "cuTensorMapEncodeTiled") + " refused it: " + ctx.driver().describe(status),
                          false);
    return encoded;
}

// [SECTION] Baselines

// Set s's copies of the buffers lent from set 0 (and of the output): a pointer into one of them
// moves to the same offset in its set-s copy.
BaselineInstance::Translation lentInSet(std::vector<std::pair<CUdeviceptr, std::size_t>> from, std::vector<CUdeviceptr> to) {
    return [from = std::move(from), to = std::move(to)](CUdeviceptr ptr) {
        for (std::size_t i = 0; i < from.size(); ++i)
            if (ptr >= from[i].first && ptr < from[i].first + from[i].second) return to[i] + (ptr - from[i].first);
        return ptr;
    };
}

// A baseline ready to be timed: its reply entry (with "error" when it cannot run, and no
// instance then), the instance, and set s's translation of the buffers it borrows.
struct PreparedBaseline {
    nlohmann::json entry;
    std::unique_ptr<BaselineInstance> instance;
    std::vector<BaselineInstance::Translation> translations;
};

// Makes each baseline, gives it its buffers (set 0's, and its output's copies per set), and runs
// it once on set 0, writing its output for the check. Timing is the caller's, interleaved with
// the kernel's (timeInterleaved).
std::vector<PreparedBaseline> prepareBaselines(DeviceContext& ctx, const nlohmann::json& list, std::vector<Arg>& args, Resources& res, int sets,
                                               const std::function<void(int)>& restoreInputs) {
    const CudaDriver& d = ctx.driver();
    std::vector<PreparedBaseline> out;
    for (const auto& b : list) {
        const std::string name = b.at("name");
        PreparedBaseline prepared{{{"id", name}, {"name", name}}, nullptr, {}};
        nlohmann::json& entry = prepared.entry;
        try {
            const BaselineFactory* factory = findBaseline(name);
            if (!factory) throw RunnerError("this kx-runner has no baseline named '" + name + "'", false);
            BaselineBuffers buffers;
            // from[i] is lent from set 0; to[s][i] is its copy in set s.
            std::vector<std::pair<CUdeviceptr, std::size_t>> from;
            std::vector<std::vector<CUdeviceptr>> to(static_cast<std::size_t>(sets));
            for (const std::string& argName : b.value("args", std::vector<std::string>{})) {
                auto it = std::find_if(args.begin(), args.end(), [&](const Arg& a) { return a.name == argName; });
                if (it == args.end() || it->sets.empty()) throw RunnerError("baseline '" + name + "' asks for '" + argName + "', which is no buffer", false);
                buffers.args.push_back({it->name, it->sets[0], it->bytes, it->elemBytes});
                from.emplace_back(it->sets[0], it->bytes);
                for (int s = 0; s < sets; ++s) to[s].push_back(it->sets[static_cast<std::size_t>(s)]);
            }
            std::string outputFile;
            if (b.contains("output")) {
                const std::string like = b["output"].at("like");
                auto it = std::find_if(args.begin(), args.end(), [&](const Arg& a) { return a.name == like; });
                if (it == args.end() || it->sets.empty()) throw RunnerError("baseline '" + name + "' output is like '" + like + "', which is no buffer", false);
                buffers.outputBytes = it->bytes;
                buffers.output = res.alloc(ctx, it->bytes, name + " output");
                ctx.check(d.cuMemsetD8(buffers.output, 0xFF, it->bytes), "poisoning the baseline's output");
                outputFile = b["output"].at("file");
                // A copy of the output per set as memory allows (at most half of what is free);
                // the sets beyond share them in turn.
                std::size_t freeBytes = 0, totalBytes = 0;
                d.cuMemGetInfo(&freeBytes, &totalBytes);
                const int copies = static_cast<int>(std::clamp<std::size_t>(freeBytes / 2 / std::max<std::size_t>(it->bytes, 1), 1,
                                                                            static_cast<std::size_t>(sets)));
                std::vector<CUdeviceptr> outputs{buffers.output};
                for (int c = 1; c < copies; ++c) outputs.push_back(res.alloc(ctx, it->bytes, name + " output"));
                from.emplace_back(buffers.output, it->bytes);
                for (int s = 0; s < sets; ++s) to[s].push_back(outputs[static_cast<std::size_t>(s % copies)]);
            }
            restoreInputs(0);
            prepared.instance = (*factory)(ctx, b.value("params", nlohmann::json::object()), buffers);
            entry["name"] = prepared.instance->label();
            prepared.instance->run();
            ctx.check(d.cuCtxSynchronize(), "running the baseline " + name);
            if (!outputFile.empty()) {
                std::vector<char> host(buffers.outputBytes);
                ctx.check(d.cuMemcpyDtoH(host.data(), buffers.output, buffers.outputBytes), "downloading the baseline's output");
                writeFile(outputFile, host.data(), host.size());
                entry["output"] = outputFile;
            }
            for (int s = 0; s < sets; ++s) prepared.translations.push_back(lentInSet(from, to[s]));
            entry["rotation_sets"] = sets;
        } catch (const RunnerError& e) {
            // A baseline that cannot run (no CUB in this build, a shape it does not take) is
            // reported, and the kernel's own figures still stand; a fault is not survivable.
            if (e.fatal()) throw;
            entry["error"] = e.what();
            prepared.instance.reset();
        }
        out.push_back(std::move(prepared));
    }
    return out;
}

// [SECTION] The parts of a run request

// Wall time of each phase of the request, in the reply: where a sweep's time goes.
class PhaseClock {
public:
    void mark(const char* name) {
        const auto now = std::chrono::steady_clock::now();
        m_phases[name] = std::chrono::duration<double, std::milli>(now - m_start).count();
        m_start = now;
    }
    const nlohmann::json& phases() const { return m_phases; }

private:
    nlohmann::json m_phases = nlohmann::json::object();
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

std::optional<PcSamplingOptions> samplingOptions(const nlohmann::json& req) {
    if (!req.contains("pc_sampling")) return std::nullopt;
    const nlohmann::json& s = req["pc_sampling"];
    PcSamplingOptions options;
    options.period = s.value("period", 0);
    options.runs = std::clamp(s.value("runs", 10), 1, 100000);
    if (options.period != 0 && (options.period < 5 || options.period > 31))
        throw RunnerError("pc_sampling.period is the log2 of the interval in cycles, 5 to 31", false);
    return options;
}

// The cuLaunchKernelEx form of a launch with a cluster: `attr` receives the cluster's shape.
CUlaunchConfig clusterConfig(const Launch& l, CUlaunchAttribute& attr) {
    attr = {};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = l.cluster[0];
    attr.value.clusterDim.y = l.cluster[1];
    attr.value.clusterDim.z = l.cluster[2];
    CUlaunchConfig config = {};
    config.gridDimX = l.grid[0], config.gridDimY = l.grid[1], config.gridDimZ = l.grid[2];
    config.blockDimX = l.block[0], config.blockDimY = l.block[1], config.blockDimZ = l.block[2];
    config.sharedMemBytes = l.dynamicSmem;
    config.attrs = &attr;
    config.numAttrs = 1;
    return config;
}

// A persistent launch's grid-x: as many blocks (whole clusters) as the device runs at once.
void capPersistentGrid(DeviceContext& ctx, Launch& l) {
    const CudaDriver& d = ctx.driver();
    long long resident = 0;
    if (l.clusterSize() > 1) {
        CUlaunchAttribute attr;
        const CUlaunchConfig config = clusterConfig(l, attr);
        int clusters = 0;
        ctx.check(d.cuOccupancyMaxActiveClusters(&clusters, l.fn, &config), "asking how many clusters of '" + l.kernel + "' the device holds");
        resident = static_cast<long long>(std::max(1, clusters)) * l.clusterSize();
    } else {
        int blocksPerSm = 0;
        ctx.check(d.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocksPerSm, l.fn, static_cast<int>(l.block[0] * l.block[1] * l.block[2]),
                                                                         l.dynamicSmem, 0),
                  "asking how many blocks of '" + l.kernel + "' an SM holds");
        resident = static_cast<long long>(std::max(1, blocksPerSm)) * std::max(1, ctx.info().smCount);
    }
    // The y and z extents stay; x shrinks to a whole number of clusters.
    long long x = std::max(1LL, resident / (static_cast<long long>(l.grid[1]) * l.grid[2]));
    x = std::max<long long>(l.cluster[0], x / l.cluster[0] * l.cluster[0]);
    l.grid[0] = static_cast<unsigned>(std::min<long long>(l.grid[0], x));
}

std::vector<Launch> loadLaunches(DeviceContext& ctx, const nlohmann::json& req, Resources& res) {
    const CudaDriver& d = ctx.driver();
    const std::string image = readFile(req.at("module").get<std::string>());
    ctx.check(d.cuModuleLoadData(&res.module, image.c_str()), "loading the module");
    std::vector<Launch> launches = parseLaunches(req);
    for (Launch& l : launches) {
        ctx.check(d.cuModuleGetFunction(&l.fn, res.module, l.kernel.c_str()), "finding kernel '" + l.kernel + "'");
        // A block may use 48 KB of shared memory, static and dynamic together, unless the kernel
        // is allowed more: a few bytes of static barriers push 48 KB of dynamic memory over.
        int staticSmem = 0;
        ctx.check(d.cuFuncGetAttribute(&staticSmem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, l.fn), "reading kernel '" + l.kernel + "''s static shared memory");
        if (l.dynamicSmem + staticSmem > 48 * 1024)
            ctx.check(d.cuFuncSetAttribute(l.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(l.dynamicSmem)),
                      "allowing " + std::to_string(l.dynamicSmem) + " bytes of dynamic shared memory");
        if (l.clusterSize() > 1 && (!d.cuLaunchKernelEx || !d.cuOccupancyMaxActiveClusters))
            throw RunnerError("launch '" + l.kernel + "' runs in clusters of blocks, which need a CUDA 12 driver or later (cuLaunchKernelEx)", false);
        if (l.persistent) capPersistentGrid(ctx, l);  // the kernel strides over the rest
    }
    return launches;
}

// Rotate whole input/output sets so that the timed launches do not find their data in L2 from
// the previous launch: enough sets to cover three times the L2, at most 64, as memory allows.
int rotationSets(DeviceContext& ctx, const nlohmann::json& req, size_t workingSet) {
    int sets = 1;
    const std::string rotate = req.contains("rotate") && req["rotate"].is_string() ? req["rotate"].get<std::string>() : "";
    if (req.contains("rotate") && req["rotate"].is_number_integer()) {
        sets = std::max(1, req["rotate"].get<int>());
    } else if (rotate == "auto" || rotate.empty()) {
        const double l2 = static_cast<double>(ctx.info().l2Bytes);
        if (workingSet > 0 && workingSet < 2 * l2) sets = static_cast<int>(std::min(64.0, std::ceil(3 * l2 / workingSet)));
    }
    size_t freeBytes = 0, totalBytes = 0;
    ctx.driver().cuMemGetInfo(&freeBytes, &totalBytes);
    while (sets > 1 && workingSet * static_cast<size_t>(sets) > freeBytes / 2) --sets;
    return sets;
}

// Allocates every buffer once per set, uploads the inputs (and keeps an in-place input's
// pristine copy), zeroes scratch, and encodes each tensor map over each set's buffer.
void uploadArgs(DeviceContext& ctx, std::vector<Arg>& args, int sets, Resources& res) {
    const CudaDriver& d = ctx.driver();
    for (Arg& arg : args) {
        if (arg.bytes == 0) continue;  // size, scalar, pass
        for (int s = 0; s < sets; ++s) arg.sets.push_back(res.alloc(ctx, arg.bytes, arg.name));
        if (arg.role == "in" || arg.role == "inout") {
            const std::string data = readFile(arg.file);
            if (data.size() != arg.bytes)
                throw RunnerError("'" + arg.file + "' holds " + std::to_string(data.size()) + " bytes; '" + arg.name + "' needs " +
                                      std::to_string(arg.bytes), false);
            ctx.check(d.cuMemcpyHtoD(arg.sets[0], data.data(), arg.bytes), "uploading '" + arg.name + "'");
            for (int s = 1; s < sets; ++s) ctx.check(d.cuMemcpyDtoD(arg.sets[s], arg.sets[0], arg.bytes), "copying '" + arg.name + "'");
            if (arg.role == "inout") {
                arg.pristine = res.alloc(ctx, arg.bytes, arg.name + " (pristine)");
                ctx.check(d.cuMemcpyDtoD(arg.pristine, arg.sets[0], arg.bytes), "keeping '" + arg.name + "'");
            }
        } else if (arg.role == "scratch") {
            for (CUdeviceptr p : arg.sets) ctx.check(d.cuMemsetD8(p, 0, arg.bytes), "zeroing '" + arg.name + "'");
        }
    }
    for (Arg& arg : args) {
        if (arg.role != "tensor_map") continue;
        const auto buffer = std::find_if(args.begin(), args.end(), [&](const Arg& b) { return b.name == arg.of && !b.sets.empty(); });
        if (buffer == args.end()) throw RunnerError("tensor map '" + arg.name + "' describes '" + arg.of + "', which is no buffer", false);
        for (CUdeviceptr p : buffer->sets) arg.maps.push_back(encodeTensorMap(ctx, arg, *buffer, p));
    }
}

// The launch sequence over the uploaded sets: kernel parameters (an array of pointers to each
// argument's value, per set; a "pass" argument's slot is rewritten before each launch of a
// repeated kernel; a slot holds the largest parameter, a 128-byte tensor map, with its 64-byte
// alignment), one run of the sequence, and the restore of in-place inputs.
class Sequence {
public:
    Sequence(DeviceContext& ctx, const std::vector<Arg>& args, const std::vector<Launch>& launches, int sets)
        : m_ctx(ctx), m_args(args), m_launches(launches), m_storage(static_cast<size_t>(sets), std::vector<Slot>(args.size())),
          m_params(static_cast<size_t>(sets), std::vector<void*>(args.size())) {
        for (size_t i = 0; i < args.size(); ++i)
            if (args[i].role == "pass") m_passSlots.push_back(i);
        for (int s = 0; s < sets; ++s) {
            for (size_t i = 0; i < args.size(); ++i) {
                if (!args[i].sets.empty()) std::memcpy(m_storage[s][i].bytes, &args[i].sets[s], sizeof(CUdeviceptr));
                else if (!args[i].maps.empty()) std::memcpy(m_storage[s][i].bytes, &args[i].maps[s], sizeof(CUtensorMap));
                else std::memcpy(m_storage[s][i].bytes, args[i].scalar, 8);
                m_params[s][i] = m_storage[s][i].bytes;
            }
        }
    }

    // One run of the whole sequence on set s: the per-run zeroing, then every kernel in order
    // (the prepare launches excepted: they ran once, in prepare()).
    void run(int s, const std::string& what) {
        const CudaDriver& d = m_ctx.driver();
        for (const Arg& arg : m_args)
            if (arg.zeroEachRun) m_ctx.check(d.cuMemsetD8Async(arg.sets[s], 0, arg.bytes, nullptr), "zeroing '" + arg.name + "'");
        launchAll(s, false, what);
    }

    // The prepare launches on every set (a layout the kernel reads, made from the uploaded
    // inputs), before the checked run: never timed.
    void prepare() {
        for (size_t s = 0; s < m_params.size(); ++s) launchAll(static_cast<int>(s), true, "preparing the inputs");
        m_ctx.check(m_ctx.driver().cuCtxSynchronize(), "preparing the inputs");
    }

    // In-place kernels change their input: put it back before every timed run.
    void restore(int s) {
        for (const Arg& arg : m_args)
            if (arg.pristine)
                m_ctx.check(m_ctx.driver().cuMemcpyDtoDAsync(arg.sets[s], arg.pristine, arg.bytes, nullptr), "restoring '" + arg.name + "'");
    }

private:
    struct alignas(64) Slot {
        unsigned char bytes[sizeof(CUtensorMap)];
    };

    // The launches of set s whose prepare flag is `prepare`, in order, each `repeat` times.
    void launchAll(int s, bool prepare, const std::string& what) {
        const CudaDriver& d = m_ctx.driver();
        for (const Launch& l : m_launches) {
            if (l.prepare != prepare) continue;
            for (long long r = 0; r < l.repeat; ++r) {
                const int pass = static_cast<int>(r);
                for (size_t slot : m_passSlots) std::memcpy(m_storage[s][slot].bytes, &pass, sizeof pass);  // copied at launch
                CUresult status;
                if (l.clusterSize() > 1) {
                    CUlaunchAttribute attr;
                    const CUlaunchConfig config = clusterConfig(l, attr);
                    status = d.cuLaunchKernelEx(&config, l.fn, m_params[s].data(), nullptr);
                } else {
                    status = d.cuLaunchKernel(l.fn, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], l.dynamicSmem, nullptr,
                                              m_params[s].data(), nullptr);
                }
                m_ctx.check(status, what + " (" + l.kernel + ")");
            }
        }
    }

    DeviceContext& m_ctx;
    const std::vector<Arg>& m_args;
    const std::vector<Launch>& m_launches;
    std::vector<std::vector<Slot>> m_storage;
    std::vector<std::vector<void*>> m_params;
    std::vector<size_t> m_passSlots;
};

// Correctness run on set 0 with poisoned outputs (0xFF bytes: NaN in every float format, -1 in
// every integer), so an element the kernel forgets to write cannot pass. Returns the files the
// outputs were written to, by argument name.
nlohmann::json checkedRun(DeviceContext& ctx, std::vector<Arg>& args, Sequence& sequence) {
    const CudaDriver& d = ctx.driver();
    for (Arg& arg : args)
        if (arg.role == "out") ctx.check(d.cuMemsetD8(arg.sets[0], 0xFF, arg.bytes), "poisoning '" + arg.name + "'");
    sequence.run(0, "launching the kernel");
    ctx.check(d.cuCtxSynchronize(), "running the kernel");
    nlohmann::json outputs = nlohmann::json::object();
    for (Arg& arg : args) {
        if ((arg.role == "out" || arg.role == "inout") && !arg.file.empty()) {
            std::vector<char> host(arg.bytes);
            ctx.check(d.cuMemcpyDtoH(host.data(), arg.sets[0], arg.bytes), "downloading '" + arg.name + "'");
            writeFile(arg.file, host.data(), arg.bytes);
            outputs[arg.name] = arg.file;
        }
    }
    return outputs;
}

// The resources and occupancy of the kernel that does the work: the launch marked primary, else
// the first that runs.
void describePrimaryKernel(DeviceContext& ctx, const std::vector<Launch>& launches, nlohmann::json& reply) {
    const CudaDriver& d = ctx.driver();
    const auto runs = [](const Launch& l) { return l.repeat > 0 && !l.prepare; };
    auto chosen = std::find_if(launches.begin(), launches.end(), [&](const Launch& l) { return l.primary && runs(l); });
    if (chosen == launches.end()) chosen = std::find_if(launches.begin(), launches.end(), runs);
    const Launch& first = chosen == launches.end() ? launches.front() : *chosen;
    int regs = 0, staticSmem = 0;
    d.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, first.fn);
    d.cuFuncGetAttribute(&staticSmem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, first.fn);
    const unsigned threads = first.block[0] * first.block[1] * first.block[2];
    int blocksPerSm = 0;
    d.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocksPerSm, first.fn, static_cast<int>(threads), first.dynamicSmem, 0);
    reply["registers"] = regs;
    reply["static_smem"] = staticSmem;
    reply["driver_blocks_per_sm"] = blocksPerSm;
    if (first.persistent) reply["persistent_blocks"] = first.grid[0];
}

}  // namespace

// [SECTION] The run request

nlohmann::json runKernel(DeviceContext& ctx, const nlohmann::json& req) {
    PhaseClock clock;
    // Sampling is enabled before the module loads, so that CUPTI knows its functions.
    std::optional<PcSampler> sampler;
    if (const auto options = samplingOptions(req)) sampler.emplace(ctx, *options);
    Resources res{ctx.driver(), nullptr, {}};
    const std::vector<Launch> launches = loadLaunches(ctx, req, res);
    clock.mark("load_module");

    std::vector<Arg> args = parseArgs(req.at("args"));
    size_t workingSet = 0;
    for (const Arg& a : args)
        if (a.bytes && a.role != "scratch") workingSet += a.bytes;
    const int sets = rotationSets(ctx, req, workingSet);
    uploadArgs(ctx, args, sets, res);
    clock.mark("upload");

    Sequence sequence(ctx, args, launches, sets);
    if (std::any_of(launches.begin(), launches.end(), [](const Launch& l) { return l.prepare && l.repeat > 0; })) {
        sequence.prepare();
        clock.mark("prepare");
    }
    const nlohmann::json outputs = checkedRun(ctx, args, sequence);
    clock.mark("checked_run");

    std::vector<PreparedBaseline> baselines;
    if (req.contains("baselines") && req["baselines"].is_array()) {
        baselines = prepareBaselines(ctx, req["baselines"], args, res, sets, [&](int s) { sequence.restore(s); });
        clock.mark("baselines_checked_run");
    }

    // The kernel and its baselines timed in turns, so that a drift of the clocks touches them alike.
    const int warmup = req.value("warmup", 5);
    const int reps = std::max(1, req.value("reps", 20));
    const int rounds = std::clamp(req.value("rounds", 5), 1, reps);
    std::vector<TimedCalls> timed = {{[&](int i) { sequence.restore(i % sets); }, [&](int i) { sequence.run(i % sets, "timing the kernel"); }}};
    std::vector<std::size_t> timedBaseline;  // timed[k + 1] is baselines[timedBaseline[k]]
    for (std::size_t b = 0; b < baselines.size(); ++b) {
        PreparedBaseline& base = baselines[b];
        if (!base.instance) continue;
        timedBaseline.push_back(b);
        timed.push_back({[&base, &sequence, sets](int i) {
                             sequence.restore(i % sets);
                             base.instance->useSet(i % sets, sets, base.translations[static_cast<std::size_t>(i % sets)]);
                         },
                         [&base](int) { base.instance->run(); }});
    }
    const std::vector<nlohmann::json> timings =
        timeInterleaved(ctx, warmup, reps, rounds, timed, [&](std::size_t k, const RunnerError& e) {
            // The kernel's own failure, or a fault anywhere, ends the run; a baseline that cannot
            // go on is reported, and the kernel's figures still stand.
            if (k == 0 || e.fatal()) throw e;
            baselines[timedBaseline[k - 1]].entry["error"] = e.what();
        });
    for (std::size_t k = 1; k < timings.size(); ++k)
        if (!timings[k].is_null()) baselines[timedBaseline[k - 1]].entry["timing"] = timings[k];
    clock.mark("timing");

    nlohmann::json reply = {{"ok", true},         {"device", ctx.info().toJson()}, {"timing", timings[0]},
                            {"warmup", warmup},   {"reps", reps},                  {"rounds", rounds},
                            {"rotation_sets", sets}, {"working_set_bytes", workingSet}, {"outputs", outputs}};
    describePrimaryKernel(ctx, launches, reply);
    // Sampled and counted runs come after the timed ones (on set 0), so the timing is not theirs.
    if (sampler) {
        reply["pc_sampling"] = sampler->sample([&] { sequence.run(0, "sampling the kernel"); });
        sampler.reset();  // CUPTI's counters cannot be read while PC sampling is enabled on the context
        clock.mark("pc_sampling");
    }
    if (req.value("memory_counters", false)) {
        reply["memory_counters"] = measureMemoryCounters(ctx, [&] { sequence.restore(0); }, [&] { sequence.run(0, "counting the kernel's traffic"); });
        clock.mark("memory_counters");
    }
    if (req.contains("baselines") && req["baselines"].is_array()) {
        reply["baselines"] = nlohmann::json::array();
        for (PreparedBaseline& b : baselines) reply["baselines"].push_back(std::move(b.entry));
    }
    reply["phases_ms"] = clock.phases();
    return reply;
}

}  // namespace kx::runner

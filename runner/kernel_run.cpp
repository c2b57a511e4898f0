#include "kernel_run.hpp"

#include "baselines.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace kx::runner {
namespace {

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw RunnerError("cannot read '" + path + "'", false);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeFile(const std::string& path, const void* data, size_t bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    if (!out) throw RunnerError("cannot write '" + path + "'", false);
}

struct Arg {
    std::string name;
    std::string role;  // in, out, inout, scratch, size
    size_t bytes = 0;
    std::string file;
    long long value = 0;  // size
    std::vector<CUdeviceptr> sets;  // one allocation per rotation set
};

// Frees every allocation and the module however the run ends.
struct Resources {
    const CudaDriver& d;
    CUmodule module = nullptr;
    std::vector<CUdeviceptr> allocations;
    std::vector<CUevent> events;
    ~Resources() {
        for (CUevent e : events) d.cuEventDestroy(e);
        for (CUdeviceptr p : allocations) d.cuMemFree(p);
        if (module) d.cuModuleUnload(module);
    }
};

}  // namespace

nlohmann::json timingSummary(std::vector<double> ms) {
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    const double median = n == 0 ? 0 : (n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]));
    return {{"median_ms", median}, {"min_ms", n ? sorted.front() : 0}, {"max_ms", n ? sorted.back() : 0}, {"samples_ms", ms}};
}

nlohmann::json runKernel(DeviceContext& ctx, const nlohmann::json& req) {
    const CudaDriver& d = ctx.driver();
    Resources res{d, nullptr, {}, {}};

    const std::string image = readFile(req.at("module").get<std::string>());
    ctx.check(d.cuModuleLoadData(&res.module, image.c_str()), "loading the module");
    CUfunction fn;
    const std::string kernel = req.at("kernel");
    ctx.check(d.cuModuleGetFunction(&fn, res.module, kernel.c_str()), "finding kernel '" + kernel + "'");

    const auto grid = req.at("grid").get<std::vector<unsigned>>();
    const auto block = req.at("block").get<std::vector<unsigned>>();
    const unsigned dynamicSmem = req.value("dynamic_smem", 0u);
    if (grid.size() != 3 || block.size() != 3) throw RunnerError("grid and block need 3 dimensions", false);
    if (dynamicSmem > 48 * 1024)
        ctx.check(d.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(dynamicSmem)),
                  "allowing " + std::to_string(dynamicSmem) + " bytes of dynamic shared memory");

    std::vector<Arg> args;
    size_t workingSet = 0;
    for (const auto& a : req.at("args")) {
        Arg arg;
        arg.name = a.at("name");
        arg.role = a.at("role");
        if (arg.role == "size") {
            arg.value = a.at("value");
        } else {
            arg.bytes = a.at("count").get<size_t>() * a.at("elem_bytes").get<size_t>();
            arg.file = a.value("file", "");
            if (arg.bytes == 0) arg.bytes = 1;
            if (arg.role != "scratch") workingSet += arg.bytes;
        }
        args.push_back(std::move(arg));
    }

    // Rotate whole input/output sets so that the timed launches do not find their data in L2
    // from the previous launch: enough sets to cover three times the L2, at most 64.
    int sets = 1;
    const std::string rotate = req.contains("rotate") && req["rotate"].is_string() ? req["rotate"].get<std::string>() : "";
    if (req.contains("rotate") && req["rotate"].is_number_integer()) {
        sets = std::max(1, req["rotate"].get<int>());
    } else if (rotate == "auto" || rotate.empty()) {
        const double l2 = static_cast<double>(ctx.info().l2Bytes);
        if (workingSet > 0 && workingSet < 2 * l2) sets = static_cast<int>(std::min(64.0, std::ceil(3 * l2 / workingSet)));
    }
    size_t freeBytes = 0, totalBytes = 0;
    d.cuMemGetInfo(&freeBytes, &totalBytes);
    while (sets > 1 && workingSet * static_cast<size_t>(sets) > freeBytes / 2) --sets;

    for (Arg& arg : args) {
        if (arg.role == "size") continue;
        for (int s = 0; s < sets; ++s) {
            CUdeviceptr p = 0;
            ctx.check(d.cuMemAlloc(&p, arg.bytes), "allocating " + std::to_string(arg.bytes) + " bytes for '" + arg.name + "'");
            res.allocations.push_back(p);
            arg.sets.push_back(p);
        }
        if (arg.role == "in" || arg.role == "inout") {
            const std::string data = readFile(arg.file);
            if (data.size() != arg.bytes)
                throw RunnerError("'" + arg.file + "' holds " + std::to_string(data.size()) + " bytes; '" + arg.name + "' needs " +
                                      std::to_string(arg.bytes), false);
            ctx.check(d.cuMemcpyHtoD(arg.sets[0], data.data(), arg.bytes), "uploading '" + arg.name + "'");
            for (int s = 1; s < sets; ++s) ctx.check(d.cuMemcpyDtoD(arg.sets[s], arg.sets[0], arg.bytes), "copying '" + arg.name + "'");
        } else if (arg.role == "scratch") {
            for (CUdeviceptr p : arg.sets) ctx.check(d.cuMemsetD8(p, 0, arg.bytes), "zeroing '" + arg.name + "'");
        }
    }

    // Kernel parameters: an array of pointers to each argument's value, per set.
    std::vector<std::vector<long long>> storage(static_cast<size_t>(sets), std::vector<long long>(args.size()));
    std::vector<std::vector<void*>> params(static_cast<size_t>(sets), std::vector<void*>(args.size()));
    for (int s = 0; s < sets; ++s) {
        for (size_t i = 0; i < args.size(); ++i) {
            if (args[i].role == "size") {
                // Sizes are C int: store the 32-bit value at the slot's address.
                int* slot = reinterpret_cast<int*>(&storage[s][i]);
                *slot = static_cast<int>(args[i].value);
            } else {
                std::memcpy(&storage[s][i], &args[i].sets[s], sizeof(CUdeviceptr));
            }
            params[s][i] = &storage[s][i];
        }
    }
    auto launch = [&](int s, const std::string& what) {
        ctx.check(d.cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], dynamicSmem, nullptr,
                                   params[s].data(), nullptr),
                  what);
    };

    // Correctness launch on set 0 with poisoned outputs (0xFF bytes: NaN in every float format),
    // so an element the kernel forgets to write cannot pass.
    for (Arg& arg : args)
        if (arg.role == "out") ctx.check(d.cuMemsetD8(arg.sets[0], 0xFF, arg.bytes), "poisoning '" + arg.name + "'");
    launch(0, "launching the kernel");
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

    // Timing: warm-up, then one event pair per launch, the sets taken in turn.
    const int warmup = req.value("warmup", 5);
    const int reps = std::max(1, req.value("reps", 20));
    for (int i = 0; i < warmup; ++i) launch(i % sets, "warming up");
    res.events.resize(static_cast<size_t>(2 * reps));
    for (CUevent& e : res.events) ctx.check(d.cuEventCreate(&e, CU_EVENT_DEFAULT), "creating events");
    for (int i = 0; i < reps; ++i) {
        ctx.check(d.cuEventRecord(res.events[2 * i], nullptr), "recording an event");
        launch((warmup + i) % sets, "timing the kernel");
        ctx.check(d.cuEventRecord(res.events[2 * i + 1], nullptr), "recording an event");
    }
    ctx.check(d.cuEventSynchronize(res.events.back()), "timing the kernel");
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
        float ms = 0;
        ctx.check(d.cuEventElapsedTime(&ms, res.events[2 * i], res.events[2 * i + 1]), "reading the timer");
        times.push_back(ms);
    }

    int regs = 0, staticSmem = 0;
    d.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
    d.cuFuncGetAttribute(&staticSmem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn);
    const unsigned threads = block[0] * block[1] * block[2];
    int blocksPerSm = 0;
    d.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocksPerSm, fn, static_cast<int>(threads), dynamicSmem, 0);

    nlohmann::json reply = {{"ok", true},
                            {"device", ctx.info().toJson()},
                            {"timing", timingSummary(times)},
                            {"warmup", warmup},
                            {"reps", reps},
                            {"rotation_sets", sets},
                            {"working_set_bytes", workingSet},
                            {"outputs", outputs},
                            {"registers", regs},
                            {"static_smem", staticSmem},
                            {"driver_blocks_per_sm", blocksPerSm}};

    if (req.contains("baseline") && req["baseline"].is_object()) {
        // The baseline reads this run's own input buffers (set 0).
        std::map<std::string, CUdeviceptr> buffers;
        for (const Arg& arg : args)
            if (arg.role != "size") buffers[arg.name] = arg.sets[0];
        reply["baseline"] = runBaseline(ctx, req["baseline"], buffers, warmup, reps);
        // A library's own implementation of the operation, when one is asked for (CUB for the
        // reduction); its failure (a runner built without nvcc) is reported, not fatal.
        if (req.contains("library_baseline") && req["library_baseline"].is_object()) {
            try {
                reply["library_baseline"] = runBaseline(ctx, req["library_baseline"], buffers, warmup, reps);
            } catch (const RunnerError& e) {
                if (e.fatal()) throw;
                reply["library_baseline"] = {{"error", e.what()}};
            }
        }
    }
    return reply;
}

}  // namespace kx::runner

// kx-runner: the only program of Kernel Explorer that loads the CUDA driver. It reads one JSON
// request per line on stdin and answers one JSON line on stdout (PROTOCOL.md). It may be killed
// at any moment: it holds nothing its caller needs to recover.
#include "calibrate.hpp"
#include "cuda_driver.hpp"
#include "device_context.hpp"
#include "kernel_run.hpp"
#include "occupancy_query.hpp"

#include <nlohmann/json.hpp>

#include <csignal>
#include <iostream>
#include <map>
#include <memory>
#include <string>

using namespace kx::runner;

namespace {

constexpr int kProtocolVersion = 2;

void reply(const nlohmann::json& j) {
    std::cout << j.dump() << "\n" << std::flush;
}

// A planted fault for the tests: kernels that write out of bounds, trap or never end, as PTX,
// so the fault paths can be checked without a template.
const char* plantedFaultPtx(const std::string& kind) {
    if (kind == "out_of_bounds")
        return ".version 8.0\n.target sm_75\n.address_size 64\n"
               ".visible .entry fault(.param .u64 p) {\n .reg .b64 %rd<3>;\n .reg .b32 %r<2>;\n"
               " ld.param.u64 %rd1, [p];\n add.s64 %rd2, %rd1, 1099511627776;\n mov.u32 %r1, 7;\n"
               " st.global.u32 [%rd2], %r1;\n ret;\n}\n";
    if (kind == "trap")
        return ".version 8.0\n.target sm_75\n.address_size 64\n"
               ".visible .entry fault(.param .u64 p) {\n trap;\n ret;\n}\n";
    if (kind == "hang")
        return ".version 8.0\n.target sm_75\n.address_size 64\n"
               ".visible .entry fault(.param .u64 p) {\n$L_spin:\n bra.uni $L_spin;\n ret;\n}\n";
    return nullptr;
}

nlohmann::json runPlantedFault(DeviceContext& ctx, const std::string& kind) {
    const char* ptx = plantedFaultPtx(kind);
    if (!ptx) throw RunnerError("unknown planted fault '" + kind + "' (out_of_bounds, trap, hang)", false);
    const CudaDriver& d = ctx.driver();
    CUmodule module;
    ctx.check(d.cuModuleLoadData(&module, ptx), "loading the planted kernel");
    CUfunction fn;
    ctx.check(d.cuModuleGetFunction(&fn, module, "fault"), "finding the planted kernel");
    CUdeviceptr buffer;
    ctx.check(d.cuMemAlloc(&buffer, 256), "allocating");
    void* params[] = {&buffer};
    ctx.check(d.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), "launching the kernel");
    ctx.check(d.cuCtxSynchronize(), "running the kernel");
    return {{"ok", true}};
}

}  // namespace

int main() {
    // A caller that goes away closes our stdout: exit quietly rather than die on SIGPIPE.
    std::signal(SIGPIPE, SIG_IGN);
    CudaDriver driver;
    std::string driverError;
    const bool haveDriver = driver.load(&driverError);
    std::map<int, std::unique_ptr<DeviceContext>> contexts;

    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        nlohmann::json request;
        try {
            request = nlohmann::json::parse(line);
        } catch (const std::exception& e) {
            reply({{"ok", false}, {"error", std::string("the request is not JSON: ") + e.what()}});
            continue;
        }
        const std::string cmd = request.value("cmd", "");
        try {
            if (cmd == "hello") {
                nlohmann::json r = {{"ok", true}, {"protocol", kProtocolVersion}, {"driver", haveDriver}};
                if (haveDriver) {
                    int version = 0;
                    driver.cuDriverGetVersion(&version);
                    r["driver_version"] = std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
                } else {
                    r["error"] = driverError;
                }
                reply(r);
                continue;
            }
            if (cmd == "exit") {
                reply({{"ok", true}});
                return 0;
            }
            if (!haveDriver) throw RunnerError(driverError, false);
            if (cmd == "devices") {
                int count = 0;
                driver.cuDeviceGetCount(&count);
                nlohmann::json list = nlohmann::json::array();
                for (int i = 0; i < count; ++i) list.push_back(queryDevice(driver, i).toJson());
                reply({{"ok", true}, {"devices", list}});
                continue;
            }
            const int device = request.value("device", 0);
            auto& ctx = contexts[device];
            if (!ctx) ctx = std::make_unique<DeviceContext>(driver, device);
            if (cmd == "run") reply(runKernel(*ctx, request));
            else if (cmd == "calibrate") reply(calibrate(*ctx, request));
            else if (cmd == "occupancy") reply(occupancyQuery(*ctx, request));
            else if (cmd == "fault") reply(runPlantedFault(*ctx, request.value("kind", "")));
            else throw RunnerError("unknown command '" + cmd + "'", false);
        } catch (const RunnerError& e) {
            reply({{"ok", false}, {"error", e.what()}, {"fatal", e.fatal()}});
            // After a fault the context cannot be used again: leave, and let the caller start anew.
            if (e.fatal()) return 3;
        } catch (const std::exception& e) {
            reply({{"ok", false}, {"error", std::string("bad request: ") + e.what()}, {"fatal", false}});
        }
    }
    return 0;
}

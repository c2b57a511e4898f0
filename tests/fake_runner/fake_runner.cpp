// A stand-in for kx-runner in tests without a GPU: it answers every "run" with fixed timings,
// writes zero-filled outputs of the right sizes, and appends each request to the file named by
// $KX_FAKE_RUNNER_LOG, so a test can see what the engine asked for. With KX_FAKE_RUNNER_DRIVER=1
// it claims a driver and one device, and answers "fault" the way kx-runner does (a fatal reply,
// then exit status 3; "hang" never answers), for tests of the app's fault handling. Asked for
// "memory_counters", it counts the inputs' bytes as DRAM reads and the outputs' as DRAM writes,
// with L2 serving three times that. Kernel and baselines report 3 rotation sets, as a small
// problem's would.
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <thread>

constexpr int kRotationSets = 3;

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        const nlohmann::json request = nlohmann::json::parse(line);
        if (const char* log = std::getenv("KX_FAKE_RUNNER_LOG")) std::ofstream(log, std::ios::app) << line << "\n";
        const std::string cmd = request.value("cmd", "");
        const bool driver = std::getenv("KX_FAKE_RUNNER_DRIVER") != nullptr;
        const char* nameVar = std::getenv("KX_FAKE_GPU_NAME");  // the GPU's name, as the driver would give it
        const std::string gpuName = nameVar != nullptr && *nameVar ? nameVar : "Fake GPU";
        if (driver && cmd == "hello") {
            std::cout << nlohmann::json{{"ok", true}, {"protocol", 2}, {"driver", true}, {"driver_version", "13.0"}}.dump() << "\n" << std::flush;
            continue;
        }
        if (driver && cmd == "devices") {
            const nlohmann::json device = {{"index", 0}, {"name", gpuName}, {"compute_capability", "9.0"}, {"arch", "sm_90"}, {"sm_count", 132},
                                           {"memory_bytes", 85899345920LL}, {"l2_bytes", 52428800}};
            std::cout << nlohmann::json{{"ok", true}, {"devices", {device}}}.dump() << "\n" << std::flush;
            continue;
        }
        if (cmd == "fault") {
            if (request.value("kind", "") == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
            if (const char* delay = std::getenv("KX_FAKE_RUNNER_DELAY_MS")) std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(delay)));
            std::cout << nlohmann::json{{"ok", false}, {"fatal", true}, {"error", "the kernel faulted (stand-in runner)"}}.dump() << "\n" << std::flush;
            return 3;
        }
        if (cmd != "run") {
            std::cout << nlohmann::json{{"ok", true}, {"protocol", 2}, {"driver", false}}.dump() << "\n" << std::flush;
            continue;
        }
        std::map<std::string, size_t> bytes;
        double readBytes = 0, writtenBytes = 0;
        nlohmann::json outputs = nlohmann::json::object();
        for (const auto& arg : request.at("args")) {
            if (!arg.contains("count")) continue;
            bytes[arg.at("name")] = arg.at("count").get<size_t>() * arg.at("elem_bytes").get<size_t>();
            (arg.at("role") == "out" ? writtenBytes : readBytes) += static_cast<double>(bytes[arg.at("name")]);
            if ((arg.at("role") == "out" || arg.at("role") == "inout") && arg.contains("file")) {
                std::ofstream(arg.at("file").get<std::string>(), std::ios::binary) << std::string(bytes[arg.at("name")], '\0');
                outputs[arg.at("name").get<std::string>()] = arg.at("file");
            }
        }
        nlohmann::json baselines = nlohmann::json::array();
        for (const auto& b : request.value("baselines", nlohmann::json::array())) {
            nlohmann::json entry = {{"id", b.at("name")}, {"name", b.at("name")}, {"timing", {{"median_ms", 2.0}, {"min_ms", 2.0}, {"max_ms", 2.0}}},
                                    {"rotation_sets", kRotationSets}};
            if (b.contains("output")) {
                const std::string file = b["output"].at("file");
                std::ofstream(file, std::ios::binary) << std::string(bytes[b["output"].at("like")], '\0');
                entry["output"] = file;
            }
            baselines.push_back(entry);
        }
        nlohmann::json reply = {{"ok", true},
                                      {"device", {{"name", gpuName}, {"arch", "sm_90"}, {"sm_count", 132}}},
                                      {"driver_blocks_per_sm", 2},
                                      {"timing", {{"median_ms", 1.0}, {"min_ms", 1.0}, {"max_ms", 1.0}}},
                                      {"reps", request.value("reps", 1)},
                                      {"rotation_sets", kRotationSets},
                                      {"outputs", outputs},
                                      {"baselines", baselines}};
        if (request.value("memory_counters", false))
            reply["memory_counters"] = {{"dram_read_bytes", readBytes}, {"dram_write_bytes", writtenBytes},
                                        {"l2_bytes", 3 * (readBytes + writtenBytes)}, {"l1_bytes", 4 * (readBytes + writtenBytes)}, {"passes", 1}};
        std::cout << reply.dump() << "\n" << std::flush;
    }
    return 0;
}

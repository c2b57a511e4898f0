// The runner client against the real kx-runner process (no GPU needed: without a driver the
// runner still answers, and says so).
#include "run/runner_client.hpp"
#include "run/variant_run.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <thread>
#include <unistd.h>

using namespace kx::engine;

namespace {
std::filesystem::path runnerPath() { return std::filesystem::path(KX_TEST_BINARY_DIR) / "bin" / "kx-runner"; }
}  // namespace

TEST_CASE("the runner answers hello, with or without a driver", "[runner]") {
    RunnerClient client(runnerPath());
    const nlohmann::json reply = client.request({{"cmd", "hello"}}, 30);
    REQUIRE(reply.value("ok", false));
    CHECK(reply["protocol"] == 2);
    if (!reply.value("driver", false)) CHECK(reply.value("error", std::string()).find("no CUDA driver") != std::string::npos);
    CHECK(client.starts() == 1);
    // The same process serves the next request.
    CHECK(client.request({{"cmd", "hello"}}, 30).value("ok", false));
    CHECK(client.starts() == 1);
}

TEST_CASE("bad requests get a reason, not a crash", "[runner]") {
    RunnerClient client(runnerPath());
    const nlohmann::json unknown = client.request({{"cmd", "frobnicate"}}, 30);
    CHECK_FALSE(unknown.value("ok", true));
    CHECK_FALSE(unknown.value("error", std::string()).empty());
    CHECK(client.request({{"cmd", "hello"}}, 30).value("ok", false));
}

TEST_CASE("a missing runner is reported in plain words", "[runner]") {
    RunnerClient client("/nonexistent/kx-runner");
    const nlohmann::json reply = client.request({{"cmd", "hello"}}, 5);
    CHECK_FALSE(reply.value("ok", true));
    CHECK(reply.value("error", std::string()).find("cannot start the GPU runner") != std::string::npos);
}

TEST_CASE("a runner that does not answer in time is killed and replaced", "[runner]") {
    // A stand-in runner that reads requests and never answers: the deadline path, without a GPU.
    const auto script = std::filesystem::temp_directory_path() / ("kx-silent-runner-" + std::to_string(::getpid()));
    std::ofstream(script) << "#!/bin/sh\nread line\nexec sleep 3600\n";  // exec: the kill reaches the sleep
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    RunnerClient client(script);
    const auto start = std::chrono::steady_clock::now();
    const nlohmann::json reply = client.request({{"cmd", "hello"}}, 1);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK_FALSE(reply.value("ok", true));
    CHECK(reply.value("error", std::string()).find("did not finish within 1 s") != std::string::npos);
    CHECK(seconds < 5);
    client.request({{"cmd", "hello"}}, 1);
    CHECK(client.starts() == 2);
    std::filesystem::remove(script);
}

TEST_CASE("stop() from another thread ends a request in flight", "[runner]") {
    const auto script = std::filesystem::temp_directory_path() / ("kx-silent-runner2-" + std::to_string(::getpid()));
    std::ofstream(script) << "#!/bin/sh\nread line\nexec sleep 3600\n";  // exec: the kill reaches the sleep
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    RunnerClient client(script);
    std::thread killer([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        client.stop();
    });
    const auto start = std::chrono::steady_clock::now();
    const nlohmann::json reply = client.request({{"cmd", "hello"}}, 30);
    killer.join();
    CHECK_FALSE(reply.value("ok", true));
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 10);
    std::filesystem::remove(script);
}

TEST_CASE("the pool keeps one runner per device", "[runner]") {
    RunnerPool pool(runnerPath());
    RunnerClient& a = pool.forDevice(0);
    RunnerClient& b = pool.forDevice(1);
    CHECK(&a != &b);
    CHECK(&pool.forDevice(0) == &a);
    CHECK(pool.size() == 2);
    CHECK(a.request({{"cmd", "hello"}}, 30).value("ok", false));
    CHECK(b.request({{"cmd", "hello"}}, 30).value("ok", false));
}

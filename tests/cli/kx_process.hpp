// Running build/bin/kx as a user does, for the CLI tests: exit code, stdout and stderr.
#pragma once

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kx::test {

namespace fs = std::filesystem;

struct Outcome {
    int exitCode = -1;
    std::string out;
    std::string err;
};

// A folder private to this test process.
inline fs::path scratchDir() {
    fs::path dir = fs::temp_directory_path() / ("kx-cli-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir;
}

inline std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Runs "kx ARGS" through the shell (so ARGS may redirect stdin); `env` goes before it
// ("XDG_DATA_HOME=/tmp/x").
inline Outcome runKx(const std::string& args, const std::string& env = "") {
    const fs::path errFile = scratchDir() / "stderr.txt";
    const std::string command = (env.empty() ? std::string() : "env " + env + " ") + std::string(KX_TEST_BINARY_DIR) + "/bin/kx " + args +
                                " 2>" + errFile.string();
    Outcome o;
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe);
    std::array<char, 4096> buffer;
    std::size_t n;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) o.out.append(buffer.data(), n);
    const int status = pclose(pipe);
    o.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o.err = slurp(errFile);
    return o;
}

}  // namespace kx::test

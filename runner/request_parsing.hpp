// The "run" request's arguments and launches as kx-runner reads them (PROTOCOL.md), apart from
// the driver so that they can be fuzzed where no GPU is.
#pragma once

#include "device_context.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kx::runner {

struct Arg {
    std::string name;
    std::string role;  // in, out, inout, scratch, size, scalar, pass
    size_t bytes = 0;
    size_t elemBytes = 0;
    std::string file;
    bool zeroEachRun = false;
    unsigned char scalar[8] = {};   // size, scalar: the value's bytes as the kernel reads them
    std::vector<CUdeviceptr> sets;  // buffers: one allocation per rotation set
    CUdeviceptr pristine = 0;       // inout: the uploaded input, restored before every timed run
    // tensor_map: the buffer it describes, its element type, dimensions and box (innermost
    // first), swizzle; one encoded map per rotation set. im2col mode: the box is channels per
    // pixel and pixels per column, lower and upper the bounding box's spatial corners; strides
    // the traversal strides (empty: all 1).
    std::string of, dtype, swizzle, mode = "tile";
    std::vector<unsigned long long> dims;
    std::vector<unsigned> box, strides;
    std::vector<int> lower, upper;
    std::vector<CUtensorMap> maps;
};

struct Launch {
    CUfunction fn = nullptr;
    std::string kernel;
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    unsigned cluster[3] = {1, 1, 1};  // thread-block cluster (sm_90+): blocks per cluster along each axis
    unsigned clusterSize() const { return cluster[0] * cluster[1] * cluster[2]; }
    unsigned dynamicSmem = 0;
    long long repeat = 1;
    bool primary = false;
    bool persistent = false;  // grid[0] is capped at the blocks the device holds at once
    bool prepare = false;     // run once per set after the upload, outside the checked and timed runs
};

// Throw RunnerError (or nlohmann::json::exception for a missing key or a wrong type) on a
// malformed request; never anything worse, whatever the JSON.
std::vector<Arg> parseArgs(const nlohmann::json& list);
std::vector<Launch> parseLaunches(const nlohmann::json& req);

}  // namespace kx::runner

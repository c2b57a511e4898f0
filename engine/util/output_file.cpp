#include "util/output_file.hpp"

#include "util/error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

namespace kx::engine {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& file, int error) {
    throw OutputError("cannot write " + file.string() + ": " + std::strerror(error));
}

// Writes all of bytes to fd, retrying short writes and interrupted calls; returns errno or 0.
int writeAll(int fd, std::string_view bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        done += static_cast<std::size_t>(n);
    }
    return 0;
}

}  // namespace

void writeOutputFile(const fs::path& file, std::string_view bytes) {
    struct stat st {};
    const bool exists = ::stat(file.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) fail(file, EISDIR);
    if (exists && !S_ISREG(st.st_mode)) {
        // A device or FIFO: there is nothing to rename over, and renaming over it would replace it.
        const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) fail(file, errno);
        const int error = writeAll(fd, bytes);
        const int closed = ::close(fd) == 0 ? 0 : errno;
        if (error || closed) fail(file, error ? error : closed);
        return;
    }
    const fs::path temp = file.string() + ".tmp-" + std::to_string(::getpid());
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) fail(file, errno);
    int error = writeAll(fd, bytes);
    if (::close(fd) != 0 && !error) error = errno;
    if (!error && ::rename(temp.c_str(), file.c_str()) != 0) error = errno;
    if (error) {
        ::unlink(temp.c_str());
        fail(file, error);
    }
}

void writeStandardOutput(std::string_view bytes) {
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    flushStandardOutput();
}

void flushStandardOutput() {
    errno = 0;
    std::cout.flush();
    const bool streamFailed = !std::cout.good();
    const bool stdioFailed = std::fflush(stdout) != 0 || std::ferror(stdout);
    if (streamFailed || stdioFailed) {
        const int error = errno;
        std::cout.clear();
        std::clearerr(stdout);
        throw OutputError(std::string("cannot write to standard output: ") + (error ? std::strerror(error) : "the write failed"));
    }
}

namespace {
const char* g_program = "kx";
void flushAtExit() {
    try {
        flushStandardOutput();
    } catch (const OutputError& e) {
        std::fprintf(stderr, "%s: %s\n", g_program, e.what());
        std::_Exit(1);
    }
}
}  // namespace

void failExitWhenStandardOutputIsLost(const char* program) {
    static bool registered = false;
    g_program = program;
    if (!registered) registered = std::atexit(flushAtExit) == 0;
}

}  // namespace kx::engine

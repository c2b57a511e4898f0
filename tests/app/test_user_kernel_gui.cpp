// Your own kernels in the real app under Xvfb, as a new user meets them: paste a kernel, set
// maxrregcount, share it, and open the share string in a second instance on another machine
// (another data folder); edits of the source and manifest compile live, and bad input is refused.
#include "gui_harness.hpp"

#include <catch2/catch.hpp>

#include <regex>

namespace fs = std::filesystem;
using namespace kx::test;

namespace {

// A kernel as one copies it from an editor: a plain __global__ function, no extern "C", no
// launch bounds, with enough live values to need more than 32 registers (the README's picture).
const fs::path kKernel = fs::path(KX_TEST_SOURCE_DIR) / "docs/screenshots/user_kernel.cu";

void requirePrerequisites() {
    if (!haveXvfbRun()) FAIL("xvfb-run is not installed: the GUI tests need it (apt-get install xvfb)");
    if (!fs::exists(kAppBinary)) FAIL("kernel-explorer is not built: " << kAppBinary << " (build target kernel-explorer)");
}

// One machine: its own HOME and data folder, so its user templates are its own.
std::string machine(const TempDir& dir, const std::string& name) {
    const fs::path home = dir.path / name;
    fs::create_directories(home);
    return "HOME='" + home.string() + "' XDG_CONFIG_HOME='" + (home / ".config").string() + "' XDG_DATA_HOME='" + (home / ".local/share").string() +
           "' KX_NATIVE_DIALOGS=0";
}

// The "kernel-explorer: kernel: ..." lines `kernel print` wrote: (variant, registers, status).
struct Printed {
    std::string variant, flags;
    int registers = -1;
    std::string status;
};
std::vector<Printed> printedKernels(const std::string& stderrText) {
    static const std::regex line(R"(kernel-explorer: kernel: \S+: (\S+) on sm_90: flags ([^;]*); (?:(\d+) registers[^;]*|not compiled); (.*))");
    std::vector<Printed> out;
    for (auto it = std::sregex_iterator(stderrText.begin(), stderrText.end(), line); it != std::sregex_iterator(); ++it)
        out.push_back({(*it)[1], (*it)[2], (*it)[3].matched ? std::stoi((*it)[3]) : -1, (*it)[4]});
    return out;
}

}  // namespace

TEST_CASE("gui: paste a kernel, cap its registers, share it, open the string in a second instance", "[app][gui][user]") {
    requirePrerequisites();
    TempDir dir("user_kernel_share");
    const fs::path& kernel = kKernel;

    // Alice pastes her kernel, caps it at 32 registers and copies the share string.
    const fs::path alicePng = dir.path / "alice.png";
    const fs::path first = writeScript(dir, "template gemm\narch sm_90\nkernel paste " + kernel.string() +
                                                "\nkernel wait\nkernel print\nflag maxrregcount=32\nexpect maxrregcount=32 BLOCK=256\n"
                                                "kernel wait\nkernel print\nshare copy\nshare open\n");
    const RunResult alice = runApp(dir, "--script '" + first.string() + "' --screenshot '" + alicePng.string() + "'", machine(dir, "alice"));
    INFO(alice.stderrText);
    REQUIRE(alice.exitCode == 0);
    const std::vector<Printed> a = printedKernels(alice.stderrText);
    REQUIRE(a.size() == 2);
    CHECK(a[0].variant == "heavy_b256");
    CHECK(a[0].flags == "defaults");
    CHECK(a[0].registers > 32);
    CHECK(a[1].variant == "heavy_b256_r32");
    CHECK(a[1].flags == "maxrregcount=32 (cap applied)");
    CHECK(a[1].registers <= 32);
    CHECK(a[1].status == "loaded");
    CHECK(fs::exists(dir.path / "alice/.local/share/kernel-explorer/templates/heavy/manifest.xml"));
    CHECK(fs::file_size(alicePng) > 10000);
    std::smatch shared;
    REQUIRE(std::regex_search(alice.stderrText, shared, std::regex(R"(kernel-explorer: share: (kx1:[A-Za-z0-9_-]+))")));
    // Opened from the clipboard in the same instance: the same template, nothing installed.
    CHECK_THAT(alice.stderrText, Catch::Contains("kernel-explorer: share: opened heavy_b256_r32 for sm_90\n"));

    // Bob, on another machine, opens the string: the template arrives with the flags.
    const fs::path second = writeScript(dir, "share open " + shared[1].str() + "\nexpect maxrregcount=32 BLOCK=256\nkernel wait\nkernel print\n");
    const RunResult bob = runApp(dir, "--script '" + second.string() + "' --screenshot '" + (dir.path / "bob.png").string() + "'",
                                 machine(dir, "bob"));
    INFO(bob.stderrText);
    REQUIRE(bob.exitCode == 0);
    const fs::path bobTemplates = dir.path / "bob/.local/share/kernel-explorer/templates";
    CHECK_THAT(bob.stderrText, Catch::Contains("kernel-explorer: share: opened heavy_b256_r32 for sm_90; its template was saved in " +
                                               (bobTemplates / "heavy").string()));
    const std::vector<Printed> b = printedKernels(bob.stderrText);
    REQUIRE(b.size() == 1);
    CHECK(b[0].variant == "heavy_b256_r32");
    CHECK(b[0].registers == a[1].registers);
    CHECK(readFile(bobTemplates / "heavy/kernel.cu") == readFile(dir.path / "alice/.local/share/kernel-explorer/templates/heavy/kernel.cu"));
}

TEST_CASE("gui: edits of a user template's files compile live, and a broken manifest keeps the last good one", "[app][gui][user]") {
    requirePrerequisites();
    TempDir dir("user_kernel_edit");
    const fs::path& kernel = kKernel;
    const fs::path script = writeScript(dir, "kernel paste " + kernel.string() +
                                                 "\narch sm_90\nkernel wait\nkernel print\n"
                                                 "kernel replace manifest.xml block-x=\"BLOCK\" block-x=\"BLOCKS\"\nkernel wait\nkernel print\n"
                                                 "kernel replace manifest.xml block-x=\"BLOCKS\" block-x=\"BLOCK\"\n"
                                                 "kernel replace manifest.xml values=\"32,64,128,256,512,1024\" values=\"512,1024\"\n"
                                                 "kernel replace manifest.xml default=\"256\" default=\"512\"\nkernel wait\nkernel print\n"
                                                 "kernel replace kernel.cu x[threadIdx.x] y[threadIdx.x]\nkernel wait\nkernel print\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'", machine(dir, "m"));
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    const std::vector<Printed> p = printedKernels(r.stderrText);
    REQUIRE(p.size() == 4);
    CHECK(p[0].variant == "heavy_b256");
    CHECK(p[0].status == "loaded");
    // The broken manifest is reported with its file and line; the last good version stays in use.
    CHECK(p[1].variant == "heavy_b256");
    CHECK_THAT(p[1].status, Catch::StartsWith("error: ") && Catch::Contains("heavy/manifest.xml:") && Catch::Contains("BLOCKS"));
    // Fixed, with 256 threads no longer allowed: the editor moves to the new default.
    CHECK(p[2].variant == "heavy_b512");
    CHECK(p[2].status == "loaded");
    // A source edit that does not compile: the template loads, the compile fails.
    CHECK(p[3].registers == -1);
    CHECK(p[3].status == "loaded");
}

TEST_CASE("gui: a pasted text without a kernel and a damaged share string are refused with the reason", "[app][gui][user]") {
    requirePrerequisites();
    TempDir dir("user_kernel_refuse");
    const fs::path notKernel = dir.path / "notes.txt";
    std::ofstream(notKernel) << "int main() { return 0; }\n";
    const fs::path pasted = writeScript(dir, "kernel paste " + notKernel.string() + "\n");
    const RunResult r1 = runApp(dir, "--script '" + pasted.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'", machine(dir, "m"));
    CHECK(r1.exitCode == 2);
    CHECK_THAT(r1.stderrText, Catch::Contains(pasted.string() + ":1: no kernel found"));

    const fs::path share = writeScript(dir, "share open kx1:AAAA$\n");
    const RunResult r2 = runApp(dir, "--script '" + share.string() + "' --screenshot '" + (dir.path / "y.png").string() + "'", machine(dir, "m"));
    CHECK(r2.exitCode == 2);
    CHECK_THAT(r2.stderrText, Catch::Contains(share.string() + ":1: share string: '$' at position 9 is not a base64url character"));
}

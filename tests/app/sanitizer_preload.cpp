// Sanitizer builds only (tests/CMakeLists.txt defines KX_TEST_APP_PRELOAD there): every process
// the GUI tests start (xvfb-run, the app) gets Mesa's software OpenGL driver preloaded, so that it
// stays mapped until the app has exited and LeakSanitizer can name it (and tests/lsan.supp
// suppress its process-lifetime allocations). A preload the caller set already is kept.
#ifdef KX_TEST_APP_PRELOAD
#include <cstdlib>

namespace {
[[maybe_unused]] const int kPreloaded = ::setenv("LD_PRELOAD", KX_TEST_APP_PRELOAD, 0);
}  // namespace
#endif

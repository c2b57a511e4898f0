// ---- templates/common/type_headers.cuh: the CUDA headers of the 16- and 8-bit float types ----
// Uses the including template's needs_fp16, needs_bf16 and needs_fp8 (1 where the config's types
// need that header): each header costs the compiler's front end tens of ms. Include it before the
// template's namespace.

#if ${needs_fp16}
#include <cuda_fp16.h>
#endif
#if ${needs_bf16}
#include <cuda_bf16.h>
#endif
#if ${needs_fp8}
#include <cuda_fp8.h>
#endif

// ---- end of templates/common/type_headers.cuh ----

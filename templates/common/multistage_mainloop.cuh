// ---- templates/common/multistage_mainloop.cuh: the cp.async multistage k-loop of the mma.sync templates ----

// The main loop, as CUTLASS's multistage pipeline orders it, over `tiles` k-tiles of kKSteps
// k-steps each, in kStages shared-memory stages. The prologue starts the first kStages - 1
// stages; every thread commits one group per stage, empty or not, so the group count says which
// stage has landed. In the loop, the copies of tile kt + kStages - 1 start at the first k-step,
// into the stage every warp finished reading before the previous barrier (first, while only one
// fragment set is live). In each k-step the warp then loads the next k-step's fragments and
// issues this one's mma's. The barrier comes after the second-last k-step's mma's (which keep
// the tensor cores busy while the warps meet), and once past it the last k-step loads the first
// fragments of the next stage, which has landed.
//   loadStage(stage, tile)           issues one stage's cp.async copies
//   loadFragments(set, stage, kStep) loads one k-step's fragments into register set `set` (0, 1)
//   mmaStep(set)                     issues the mma's of that set
template <class LoadStage, class LoadFragments, class MmaStep>
__device__ __forceinline__ void multistageMainloop(int tiles, LoadStage&& loadStage, LoadFragments&& loadFragments, MmaStep&& mmaStep) {
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
        if (s < tiles) loadStage(s, s);
        cpAsyncCommit();
    }
    cpAsyncWait<kStages - 2>();
    __syncthreads();
    loadFragments(0, 0, 0);

    int readStage = 0;
    int writeStage = kStages - 1;
    for (int kt = 0; kt < tiles; ++kt) {
#pragma unroll
        for (int kk = 0; kk < kKSteps; ++kk) {
            const int set = kk % 2;
            if (kk == 0) {
                const int next = kt + kStages - 1;
                if (next < tiles) loadStage(writeStage, next);
                cpAsyncCommit();
                writeStage = writeStage + 1 == kStages ? 0 : writeStage + 1;
            }
            if (kk + 1 < kKSteps) {
                loadFragments(set ^ 1, readStage, kk + 1);
            } else {
                readStage = readStage + 1 == kStages ? 0 : readStage + 1;
                loadFragments(set ^ 1, readStage, 0);
            }
            mmaStep(set);
            if (kk == kKSteps - 2) {
                // Tile kt + 1 has landed once at most kStages - 2 younger groups are pending.
                cpAsyncWait<kStages - 2>();
                __syncthreads();
            }
        }
    }
}

// ---- end of templates/common/multistage_mainloop.cuh ----

	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.amdhsa_code_object_version 5
	.protected	mf                      ; -- Begin function mf
	.globl	mf
	.p2align	8
	.type	mf,@function
mf:                                     ; @mf
; %bb.0:
	s_load_dwordx4 s[16:19], s[4:5], 0x0
	s_mov_b64 s[20:21], 0
	v_accvgpr_write_b32 a3, 0
	v_accvgpr_write_b32 a2, 0
	v_accvgpr_write_b32 a1, 0
	s_waitcnt lgkmcnt(0)
	s_load_dword s22, s[16:17], 0x0
	v_accvgpr_write_b32 a0, 0
.LBB0_1:                                ; =>This Inner Loop Header: Depth=1
	s_add_u32 s24, s16, s20
	s_addc_u32 s25, s17, s21
	s_load_dwordx16 s[0:15], s[24:25], 0x4
	s_waitcnt lgkmcnt(0)
	v_mov_b32_e32 v1, s22
	s_add_u32 s20, s20, 64
	s_addc_u32 s21, s21, 0
	s_cmpk_eq_i32 s20, 0x100
	v_mov_b32_e32 v2, s0
	s_mov_b32 s22, s15
	s_nop 0
	v_mfma_f32_16x16x4f32 a[0:3], v1, v2, a[0:3]
	v_mov_b32_e32 v1, s1
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v2, v1, a[0:3]
	v_mov_b32_e32 v2, s2
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v1, v2, a[0:3]
	v_mov_b32_e32 v1, s3
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v2, v1, a[0:3]
	v_mov_b32_e32 v2, s4
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v1, v2, a[0:3]
	v_mov_b32_e32 v1, s5
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v2, v1, a[0:3]
	v_mov_b32_e32 v2, s6
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v1, v2, a[0:3]
	v_mov_b32_e32 v1, s7
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v2, v1, a[0:3]
	v_mov_b32_e32 v2, s8
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v1, v2, a[0:3]
	v_mov_b32_e32 v1, s9
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v2, v1, a[0:3]
	v_mov_b32_e32 v2, s10
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v1, v2, a[0:3]
	v_mov_b32_e32 v1, s11
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v2, v1, a[0:3]
	v_mov_b32_e32 v2, s12
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v1, v2, a[0:3]
	v_mov_b32_e32 v1, s13
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v2, v1, a[0:3]
	v_mov_b32_e32 v2, s14
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v1, v2, a[0:3]
	v_mov_b32_e32 v1, s15
	s_nop 1
	v_mfma_f32_16x16x4f32 a[0:3], v2, v1, a[0:3]
	s_cbranch_scc0 .LBB0_1
; %bb.2:
	v_lshlrev_b32_e32 v0, 4, v0
	s_nop 7
	s_nop 0
	global_store_dwordx4 v0, a[0:3], s[18:19]
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel mf
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 16
		.amdhsa_user_sgpr_count 6
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_flat_scratch_init 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_system_sgpr_private_segment_wavefront_offset 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 8
		.amdhsa_next_free_sgpr 26
		.amdhsa_accum_offset 4
		.amdhsa_reserve_vcc 0
		.amdhsa_reserve_flat_scratch 0
		.amdhsa_reserve_xnack_mask 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end0:
	.size	mf, .Lfunc_end0-mf
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 380
; NumSgprs: 30
; NumVgprs: 3
; NumAgprs: 4
; TotalNumVgprs: 8
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 3
; VGPRBlocks: 0
; NumSGPRsForWavesPerEU: 30
; NumVGPRsForWavesPerEU: 8
; AccumOffset: 4
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 6
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 0
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.type	__hip_cuid_e04476ccba4c449b,@object ; @__hip_cuid_e04476ccba4c449b
	.section	.bss,"aw",@nobits
	.globl	__hip_cuid_e04476ccba4c449b
__hip_cuid_e04476ccba4c449b:
	.byte	0                               ; 0x0
	.size	__hip_cuid_e04476ccba4c449b, 1

	.ident	"Debian clang version 19.1.7 (3~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
	.addrsig_sym __hip_cuid_e04476ccba4c449b
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     4
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 64
    .name:           mf
    .private_segment_fixed_size: 0
    .sgpr_count:     30
    .sgpr_spill_count: 0
    .symbol:         mf.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     8
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata

# libtk_rt: the C API without LLVM and MLIR, for processes that run the
# shipped operators on the GPU with bundled kernels (`tk bundle`, docs/
# design.md "Bundles"). The operators' host code (validation, configs,
# schedules) and the runtime's loading path, built with TK_RUNTIME_ONLY:
# programs are named but never referenced (TK_PROGRAM), and
# runtime/lib/RuntimeOnly.cpp stands in for the compiler's side. The DSL
# programs below are all that is left out.
set(TK_KERNEL_PROGRAMS
  common/input_check_kernel.cpp quant/scale_rule.cpp quant/swiglu.cpp
  quant/per_token_cast.cpp quant/cast_back.cpp quant/per_block_cast.cpp quant/per_block_cast_lossless.cpp
  quant/per_channel_cast.cpp quant/swiglu_per_token_cast.cpp quant/swiglu_backward.cpp
  transpose/batched_transpose.cpp
  moe/topk_gate.cpp moe/normalize_weight.cpp moe/topk_group_idx.cpp moe/mask_indices_by_tp.cpp
  moe/unique_group_indices.cpp moe/fused_mapping_kernels.cpp moe/expand_to_fused.cpp moe/reduce_fused.cpp
  moe/top2_sum_gate.cpp moe/histogram.cpp
  engram/engram_hash.cpp engram/fused_weight.cpp engram/gate_forward.cpp engram/gate_backward.cpp
  engram/grad_w_reduce.cpp mhc/streams.cpp mhc/expand_to_mhc.cpp mhc/apply_mix.cpp mhc/post.cpp
  mhc/sinkhorn.cpp mhc/mix_gates.cpp mhc/norm_fn.cpp mhc/big_fuse.cpp mhc/multilayer.cpp)
set(TK_RT_KERNEL_SOURCES ${TK_KERNEL_SOURCES})
list(REMOVE_ITEM TK_RT_KERNEL_SOURCES ${TK_KERNEL_PROGRAMS})
add_library(tk_rt SHARED ${TK_RT_KERNEL_SOURCES}
  ${CMAKE_CURRENT_BINARY_DIR}/tuning_table.cpp ${CMAKE_CURRENT_BINARY_DIR}/registered_operators.cpp
  ${TK_RUNTIME_LOADER_SOURCES} ${CMAKE_SOURCE_DIR}/runtime/lib/RuntimeOnly.cpp
  ${CMAKE_SOURCE_DIR}/dsl/signature/Dim.cpp ${CMAKE_SOURCE_DIR}/dsl/signature/SignatureText.cpp
  ${CMAKE_BINARY_DIR}/compiler/Version.cpp ${CMAKE_SOURCE_DIR}/compiler/lib/Target/Targets.cpp
  ${CMAKE_SOURCE_DIR}/compiler/lib/Target/CompileOptions.cpp)
target_compile_definitions(tk_rt PRIVATE TK_RUNTIME_ONLY)
# LLVM's headers otherwise reference its ABI check and emit their dump methods
# in every object; unreferenced sections go at link time.
target_compile_definitions(tk_rt PRIVATE LLVM_DISABLE_ABI_BREAKING_CHECKS_ENFORCING=1)
target_compile_options(tk_rt PRIVATE -ffp-contract=off -ffunction-sections -fdata-sections)
# The headers of the layers it compiles (MLIR's headers are read for types
# only; nothing of MLIR or LLVM is linked: --no-undefined proves it).
foreach(layer tk_kernels tk_dsl tk_runtime tk_compiler tk_signature)
  target_include_directories(tk_rt PRIVATE $<TARGET_PROPERTY:${layer},INTERFACE_INCLUDE_DIRECTORIES>)
endforeach()
target_include_directories(tk_rt PUBLIC $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>)
add_dependencies(tk_rt tk_compiler tk_version) # TableGen's headers, Version.cpp
target_link_libraries(tk_rt PRIVATE ${CMAKE_DL_LIBS} pthread)
target_link_options(tk_rt PRIVATE -Wl,--gc-sections -Wl,--no-undefined)

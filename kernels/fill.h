// Device fill used to (re)initialize workspaces and poison outputs: writes a 32-bit pattern over
// a 16-byte-aligned range whose size is a multiple of 4 bytes (the -0.0 pattern of any dtype is a
// 32-bit pattern: 0x80008000 for bf16/fp16, 0x80000000 for fp32). Asynchronous on `stream`.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace arlab::kernels {

cudaError_t launch_fill_u32(void* dst, size_t bytes, uint32_t pattern, cudaStream_t stream);

}  // namespace arlab::kernels

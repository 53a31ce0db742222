// ARLAB_HD marks functions that compile for both the host and the device: headers that the host
// code (harness, model) and the kernels both include (layouts, fault words, launch limits) use it,
// so they stay plain C++ when a host-only compiler reads them.
#pragma once

#if defined(__CUDACC__)
#define ARLAB_HD __host__ __device__
#else
#define ARLAB_HD
#endif

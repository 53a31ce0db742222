// ARLAB_HD marks functions that compile for both the host and the device: headers in kernels/
// that the host harness also includes (layouts, fault words) use it, so they stay plain C++ when
// a host-only compiler reads them.
#pragma once

#if defined(__CUDACC__)
#define ARLAB_HD __host__ __device__
#else
#define ARLAB_HD
#endif

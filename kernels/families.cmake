# The kernel families: one line per (kernel body, algorithm) that has a kernel. The body is a fused
# kernel body row of common/implementations.h (its `name`), the algorithm `oneshot` or `twoshot`,
# then the struct kernels/instantiate.cuh walks (its kernel<T, N, Pattern, Accumulation>()) and the
# header that defines it. kernels/CMakeLists.txt generates, for every family and every dtype row of
# kernels/kernel_table.h, one translation unit of instantiations (so the slow CUDA compiles run in
# parallel) and the registry the dispatch point looks kernels up in (kernels/dispatch.cu).
# Adding a kernel body: its header, a line here, its row in common/implementations.h and its model
# design (docs/adding-a-kernel-body.md).
arlab_kernel_family(reference oneshot OneshotFamily kernels/oneshot_kernel.cuh)
arlab_kernel_family(lean oneshot OneshotLeanFamily kernels/oneshot_lean_kernel.cuh)
arlab_kernel_family(reference twoshot TwoshotFamily kernels/twoshot_kernel.cuh)
arlab_kernel_family(lean twoshot TwoshotLeanFamily kernels/twoshot_lean_kernel.cuh)

// Implementation of harness/green_partitions.h.
#include "harness/green_partitions.h"

#include <string>

#include "common/problem.h"

namespace arlab::harness {

std::vector<GreenPartition> create_green_partitions(const DriverApi& drv, int device, int nranks, int sms_per_rank) {
  CUdevice dev = 0;
  ARLAB_CU_CHECK(drv, drv.device_get(&dev, device));
  CUdevResource whole{};
  ARLAB_CU_CHECK(drv, drv.device_get_dev_resource(dev, &whole, CU_DEV_RESOURCE_TYPE_SM));
  if (sms_per_rank < static_cast<int>(whole.sm.minSmPartitionSize) ||
      sms_per_rank % static_cast<int>(whole.sm.smCoscheduledAlignment) != 0)
    throw InvalidArgument("SM partition of " + std::to_string(sms_per_rank) +
                          " SMs per rank: the device needs at least " + std::to_string(whole.sm.minSmPartitionSize) +
                          " and a multiple of " + std::to_string(whole.sm.smCoscheduledAlignment));
  std::vector<CUdevResource> groups(static_cast<size_t>(nranks));
  unsigned made = static_cast<unsigned>(nranks);
  CUdevResource remaining{};
  // Ask for groups that can host the largest clusters (the legacy policy launches clusters of 8);
  // where the driver cannot, take its default split.
  if (drv.dev_sm_resource_split_by_count(groups.data(), &made, &whole, &remaining,
                                         CU_DEV_SM_RESOURCE_SPLIT_MAX_POTENTIAL_CLUSTER_SIZE,
                                         static_cast<unsigned>(sms_per_rank)) != CUDA_SUCCESS ||
      made < static_cast<unsigned>(nranks)) {
    made = static_cast<unsigned>(nranks);
    ARLAB_CU_CHECK(drv, drv.dev_sm_resource_split_by_count(groups.data(), &made, &whole, &remaining, 0,
                                                           static_cast<unsigned>(sms_per_rank)));
  }
  if (made < static_cast<unsigned>(nranks))
    throw InvalidArgument("the GPU's " + std::to_string(whole.sm.smCount) + " SMs split into only " +
                          std::to_string(made) + " partitions of " + std::to_string(sms_per_rank) +
                          " SMs; " + std::to_string(nranks) + " ranks need " + std::to_string(nranks));

  std::vector<GreenPartition> parts;
  parts.reserve(static_cast<size_t>(nranks));
  for (int r = 0; r < nranks; ++r) {
    CUdevResourceDesc desc = nullptr;
    ARLAB_CU_CHECK_RANK(drv, r, drv.dev_resource_generate_desc(&desc, &groups[static_cast<size_t>(r)], 1));
    CUgreenCtx g = nullptr;
    ARLAB_CU_CHECK_RANK(drv, r, drv.green_ctx_create(&g, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    GreenPartition part;
    part.context = GreenContext(g, GreenCtxRelease{drv.green_ctx_destroy});
    CUstream s = nullptr;
    ARLAB_CU_CHECK_RANK(drv, r, drv.green_ctx_stream_create(&s, g, CU_STREAM_NON_BLOCKING, 0));
    part.stream = Stream(s, StreamRelease{drv.stream_destroy});
    CUdevResource got{};
    ARLAB_CU_CHECK_RANK(drv, r, drv.green_ctx_get_dev_resource(g, &got, CU_DEV_RESOURCE_TYPE_SM));
    part.sm_count = static_cast<int>(got.sm.smCount);
    parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace arlab::harness

// The columns that name a problem on a node in the summary schemas (common/peers_schema.h,
// common/speedup_schema.h), defined once: the GPU, the node kind and its link, N, H and the tokens
// per call. Column names, order and meaning are the same in both summaries; plots and tests read
// them by name.
#pragma once

// X(type, name, description) -- common/csv.h
#define ARLAB_NODE_PROBLEM_COLUMNS(X)                                                                        \
  X(std::string, gpu, "device name as the driver reports it")                                               \
  X(std::string, topology, "emulated or mpi")                                                               \
  X(std::string, link, "local (emulated node) or nvlink")                                                   \
  X(int, nranks, "ranks N")                                                                                 \
  X(int, hidden, "hidden size H")                                                                           \
  X(int, tokens, "tokens per call")

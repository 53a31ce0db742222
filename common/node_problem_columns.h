// The columns that name a problem on a node in the summary schemas (common/peers_schema.h,
// common/speedup_schema.h), defined once: the GPU, the node kind and its link, N, H and the tokens
// per call. Column names, order and meaning are the same in both summaries; plots and tests read
// them by name. copy_node_problem_columns copies them between any two rows that have them (a
// measurement row into a summary row).
#pragma once

// X(type, name, description) -- common/csv.h
#define ARLAB_NODE_PROBLEM_COLUMNS(X)                                                                        \
  X(std::string, gpu, "device name as the driver reports it")                                               \
  X(std::string, topology, "emulated or mpi")                                                               \
  X(std::string, link, "local (emulated node) or nvlink")                                                   \
  X(int, nranks, "ranks N")                                                                                 \
  X(int, hidden, "hidden size H")                                                                           \
  X(int, tokens, "tokens per call")

namespace arlab {

// to.gpu = from.gpu, ... for every column of ARLAB_NODE_PROBLEM_COLUMNS.
template <class To, class From>
void copy_node_problem_columns(To& to, const From& from) {
#define ARLAB_COPY_NODE_PROBLEM_COLUMN(type, name, ...) to.name = from.name;
  ARLAB_NODE_PROBLEM_COLUMNS(ARLAB_COPY_NODE_PROBLEM_COLUMN)
#undef ARLAB_COPY_NODE_PROBLEM_COLUMN
}

}  // namespace arlab

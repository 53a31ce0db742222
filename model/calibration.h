// Calibration: the timing model's free constants, each with its unit in its name and a documented
// default. Defaults are priors (physically plausible magnitudes, sources below), NOT fitted to the
// kernel timings the model is judged on; `arlab fit` replaces them by least squares on a training
// split, and `arlab calibrate` microbenchmarks are meant to measure them directly (docs/model.md).
// Stored as a long-format CSV `name,value,unit,source` (common/calibration_schema.h), read with
// common/csv_table.h. Every constant has a physical range [min, max] (docs/model.md: "a fit that
// leaves it explains nothing"), with where it comes from beside it; the reader refuses a value
// outside it, and so do the writer and the fit. Lower bounds of 0 let a fit fold a term into the
// others; a constant the model divides by has a lower bound above 0 (0 would make a time infinite).
#pragma once

#include <string>
#include <vector>

namespace arlab::model {

// X(name, default, min, max, unit, meaning and source of the default); where the range comes from
// is the /* */ comment above each.
#define ARLAB_CALIBRATION_CONSTANTS(X)                                                                              \
  /* range: a fixed launch cost; 100 us: 50x the 1-3 us of a near-empty kernel */                                    \
  X(launch_overhead_us, 2.0, 0.0, 100.0, "us",                                                                       \
    "CUPTI duration of an empty kernel of one block (calibrate: launch, plain; prior: 1-3 us on Hopper)")            \
  /* range: the same bounds as launch_overhead_us: a fixed launch cost */                                            \
  X(cluster_launch_us, 0.3, 0.0, 100.0, "us",                                                                        \
    "extra duration of an empty cluster launch over a plain one of the same grid (calibrate: launch, cluster)")       \
  /* range: 10 us: over 10x any published GPU DRAM latency (pointer chases: several hundred ns) */                   \
  X(dram_latency_ns, 600.0, 0.0, 10000.0, "ns",                                                                      \
    "latency of a load that misses L2: inputs x and residual (calibrate: chase, hbm)")                               \
  /* range: 10 us: over 30x the ~200-300 cycles of an L2 hit on Hopper */                                            \
  X(l2_latency_ns, 250.0, 0.0, 10000.0, "ns",                                                                        \
    "latency of an L2 hit: gamma, the control block, data just stored (calibrate: chase, l2)")                        \
  /* range: 10 us: 5x and more the 1-2 us NVLink round trips */                                                      \
  X(peer_visibility_ns, 900.0, 0.0, 10000.0, "ns",                                                                   \
    "one-way time from a rank's stores to a peer's Lamport poll seeing them: NVLink on a real node, another "       \
    "partition's L2 on the emulated node (calibrate: poll, median over <= 8192 spinning threads)")                     \
  /* range: at least one 128-byte cache line (the model divides by it); 1 MiB: twice the 256 KB of registers +       \
     228 KB of shared memory an SM of Hopper can receive data into */                                                \
  X(bytes_in_flight_per_sm, 32768.0, 128.0, 1048576.0, "bytes",                                                      \
    "memory bytes one SM keeps outstanding; Little's law: per-SM rate = bytes_in_flight / dram latency (calibrate: "  \
    "bandwidth, read at 1 SM x dram_latency_ns)")                                                                   \
  /* range: above 0 (the model divides by it); 1024 B/cycle: 8x the 128 B/cycle an SM's L1 delivers on Hopper */     \
  X(sm_l2_bytes_per_cycle, 64.0, 1.0, 1024.0, "bytes/cycle",                                                         \
    "per-SM store rate into L2 at the SM clock: caps one SM's stores (calibrate: clear at 1 SM / clock)")             \
  /* range: 10 us: 50x the ~400-cycle prior */                                                                       \
  X(block_reduce_fixed_ns, 200.0, 0.0, 10000.0, "ns",                                                                \
    "block-wide sum: warp shuffles, shared memory, __syncthreads, final warp (calibrate: block_reduce, intercept)")   \
  /* range: 1 us per warp: 500x the prior; a block has at most 32 warps */                                           \
  X(block_reduce_ns_per_warp, 2.0, 0.0, 1000.0, "ns",                                                                \
    "extra block-reduce time per warp of the block (calibrate: block_reduce, slope over warps)")                      \
  /* range: 10 us: 50x the prior of one cluster barrier */                                                           \
  X(cluster_sync_ns, 200.0, 0.0, 10000.0, "ns",                                                                      \
    "one cluster barrier beyond the block reduce (calibrate: cluster_sync, intercept of the cluster-cs minus "      \
    "cluster-1 reduction over cluster x warps)")                                                                       \
  /* range: 10 us per block-warp: over 100x the measured few ns */                                                 \
  X(dsmem_access_ns, 5.0, 0.0, 10000.0, "ns",                                                                        \
    "per block of the cluster and warp of the block: the cluster barrier waits for every warp of every block, then " \
    "each block's partial is read through DSMEM (calibrate: cluster_sync, slope over cluster x warps)")              \
  /* range: 10 ns: 150x the 0.063 ns issue-rate estimate (~20 SM cycles per thread-vector operation) */              \
  X(sm_ns_per_vector_op, 0.065, 0.0, 10.0, "ns",                                                                     \
    "SM-wide issue time of one thread's operation on one 16-byte vector (calibrate: epilogue_math ns_per_op / 7 "    \
    "ops of the N = 2 ar_res_rms epilogue)")                                                                         \
  /* range: 1 ms: over 300x the ~3 us host-gate skew of docs/measurement.md */                                                 \
  X(rank_skew_us, 0.5, 0.0, 1000.0, "us",                                                                            \
    "start skew between ranks that the first wait on a peer absorbs: median of max - min start over ranks of gated " \
    "kernels (calibrate: start_skew)")                                                                              \
  /* prior 0: every rank streams at once (a real node: every GPU its own HBM); range: 1 ms, as rank_skew_us */     \
  X(start_spacing_ns_n2, 0.0, 0.0, 1e6, "ns",                                                                        \
    "emulated node, 2 ranks: the mean gap between consecutive ranks' kernel starts, which thins the ranks that "      \
    "stream beside the last one (calibrate: start_skew at -n 2, skew / (N - 1))")                                    \
  X(start_spacing_ns_n4, 0.0, 0.0, 1e6, "ns",                                                                        \
    "emulated node, 4 ranks: the same gap (calibrate: start_skew at -n 4, skew / 3)")                                \
  X(start_spacing_ns_n8, 0.0, 0.0, 1e6, "ns",                                                                        \
    "emulated node, 8 ranks (16 at the same gap): the same gap (calibrate: start_skew at -n 8, skew / 7)")          \
  /* range: 1 us: several times the round trip of one L2 atomic */                                                   \
  X(arrival_atomic_ns, 2.0, 0.0, 1000.0, "ns",                                                                       \
    "per block: the serialized atomic increment of the one-shot arrival counter (calibrate: atomic, slope over "     \
    "blocks of one_counter_fenced minus empty)")                                                                    \
  /* range: a fraction of the datasheet bandwidth: at most all of it, at least 1 % (the model divides by it) */      \
  X(hbm_efficiency, 0.85, 0.01, 1.0, "fraction",                                                                     \
    "achieved fraction of the datasheet HBM bandwidth for one rank: copy at all of its SMs (on the emulated node "   \
    "while the other partition streams) / datasheet (calibrate: bandwidth, copy / copy_busy)")                      \
  /* prior 0: no such rate (a real node, or a calibration that predates the bench); range: up to 100 TB/s */       \
  X(l2_store_busy_gbps, 0.0, 0.0, 1e5, "GB/s",                                                                       \
    "emulated node: one partition's rate of stores into lines that stay in L2 while the other partition does the "   \
    "same (calibrate: bandwidth write_l2_busy at all of its SMs, tpb 1024); 0: not measured")                         \
  /* range: a rate's ratio, at least half; up to 1.1 since packed rows measured a little faster than padded          \
     ones (noise) are kept as measured; 1 (the prior, a real node): no alignment term */                             \
  X(hbm_rows_fraction_128b_n2, 1.0, 0.5, 1.1, "fraction",                                                            \
    "emulated node, 2 ranks: HBM rate of token rows aligned to 128 bytes or fewer / the same rows padded "           \
    "to 4 KB, every partition streaming, mean of reads and writes (calibrate: bandwidth rows_*_allbusy at H 6848)")  \
  X(hbm_rows_fraction_128b_n4, 1.0, 0.5, 1.1, "fraction",                                                            \
    "emulated node, 4 ranks: HBM rate of token rows aligned to 128 bytes or fewer / the same rows padded "           \
    "to 4 KB, every partition streaming, mean of reads and writes (calibrate: bandwidth rows_*_allbusy at H 6848)")  \
  X(hbm_rows_fraction_128b_n8, 1.0, 0.5, 1.1, "fraction",                                                            \
    "emulated node, 8 ranks (16 at the same fraction): HBM rate of token rows aligned to 128 bytes or fewer "        \
    "/ the same rows padded "                                                                                        \
    "to 4 KB, every partition streaming, mean of reads and writes (calibrate: bandwidth rows_*_allbusy at H 6848)")  \
  X(hbm_rows_fraction_256b_n2, 1.0, 0.5, 1.1, "fraction",                                                            \
    "emulated node, 2 ranks: HBM rate of token rows aligned to 256 bytes / the same rows padded "                    \
    "to 4 KB, every partition streaming, mean of reads and writes (calibrate: bandwidth rows_*_allbusy at H 6784)")  \
  X(hbm_rows_fraction_256b_n4, 1.0, 0.5, 1.1, "fraction",                                                            \
    "emulated node, 4 ranks: HBM rate of token rows aligned to 256 bytes / the same rows padded "                    \
    "to 4 KB, every partition streaming, mean of reads and writes (calibrate: bandwidth rows_*_allbusy at H 6784)")  \
  X(hbm_rows_fraction_256b_n8, 1.0, 0.5, 1.1, "fraction",                                                            \
    "emulated node, 8 ranks (16 at the same fraction): HBM rate of token rows aligned to 256 bytes "                 \
    "/ the same rows padded "                                                                                        \
    "to 4 KB, every partition streaming, mean of reads and writes (calibrate: bandwidth rows_*_allbusy at H 6784)")  \
  X(hbm_rows_fraction_512b_n2, 1.0, 0.5, 1.1, "fraction",                                                            \
    "emulated node, 2 ranks: HBM rate of token rows aligned to 512 bytes / the same rows padded "                    \
    "to 4 KB, every partition streaming, mean of reads and writes (calibrate: bandwidth rows_*_allbusy at H 6912)")  \
  X(hbm_rows_fraction_512b_n4, 1.0, 0.5, 1.1, "fraction",                                                            \
    "emulated node, 4 ranks: HBM rate of token rows aligned to 512 bytes / the same rows padded "                    \
    "to 4 KB, every partition streaming, mean of reads and writes (calibrate: bandwidth rows_*_allbusy at H 6912)")  \
  X(hbm_rows_fraction_512b_n8, 1.0, 0.5, 1.1, "fraction",                                                            \
    "emulated node, 8 ranks (16 at the same fraction): HBM rate of token rows aligned to 512 bytes "                 \
    "/ the same rows padded "                                                                                        \
    "to 4 KB, every partition streaming, mean of reads and writes (calibrate: bandwidth rows_*_allbusy at H 6912)")  \
  /* range: a fraction of the datasheet NVLink bandwidth: at most all of it, at least 1 % (the model divides by      \
     it) */                                                                                                          \
  X(link_efficiency, 0.80, 0.01, 1.0, "fraction",                                                                    \
    "achieved fraction of the per-direction NVLink bandwidth for SM peer stores both ways with the receivers "       \
    "polling (calibrate: peer_store, both_ways_polling at all SMs / datasheet; unused on a local link)")             \
  /* range: 1 us per block: 100x the ~10 ns a block dispatch costs */                                                \
  X(launch_per_block_ns, 5.0, 0.0, 1000.0, "ns",                                                                     \
    "extra empty-kernel duration per block of the grid (calibrate: launch, plain, slope over grid <= SMs)")          \
  /* range: 10 us: as l2_latency_ns */                                                                               \
  X(sys_load_latency_ns, 300.0, 0.0, 10000.0, "ns",                                                                  \
    "latency of an ld.relaxed.sys load that hits L2: the one-shot poll (calibrate: chase, relaxed_sys)")             \
  /* range: above 0 (the model divides by it); 1000 GB/s: over twice an NVLink direction from one SM */              \
  X(peer_store_gbps_per_sm, 20.0, 0.01, 1000.0, "GB/s",                                                              \
    "rate of 16-byte peer stores issued by one SM of 1024 threads (calibrate: peer_store, one_way at 1 SM)")         \
  /* range: 10 us: 100x the prior */                                                                                 \
  X(vector_op_latency_ns, 15.0, 0.0, 10000.0, "ns",                                                                  \
    "one thread's time for one operation on one 16-byte vector, alone on its SM (calibrate: epilogue_math "          \
    "ns_per_vector / 7)")                                                                                          \
  /* range: 10 us: over 10x the fence + atomic round trips it stands for */                                          \
  X(arrival_fixed_ns, 600.0, 0.0, 10000.0, "ns",                                                                     \
    "one block's arrival: __threadfence, the atomic's round trip, the last arriver's fence (calibrate: atomic, "     \
    "intercept over blocks of one_counter_fenced minus empty)")                                                    \
  /* range: 10 us: as dram_latency_ns */                                                                             \
  X(dram_round_latency_ns, 700.0, 0.0, 10000.0, "ns",                                                                \
    "a token round's DRAM load as a block sees it: every thread of every SM's block loads a coalesced vector, then " \
    "the block waits for its slowest warp (calibrate: round_load, intercept over warps)")                           \
  /* range: 1 us per warp: far above the few ns measured */                                                          \
  X(dram_round_ns_per_warp, 5.0, 0.0, 1000.0, "ns",                                                                  \
    "extra round-load time per warp of the block (calibrate: round_load, slope over warps)")                        \
  /* range: 10 us: as dram_latency_ns */                                                                             \
  X(push_step_ns, 450.0, 0.0, 10000.0, "ns",                                                                         \
    "one step of the one-shot push loop as a block sees it: a coalesced DRAM load, then two st.relaxed.sys "        \
    "stores of it (calibrate: round_load push_store, intercept over warps of the block)")                          \
  /* prior: 0, the step of the smallest block for every block; range: as dram_round_ns_per_warp */                 \
  X(push_step_ns_per_warp, 0.0, 0.0, 1000.0, "ns",                                                                   \
    "extra push-step time per warp of the block: one SM issuing every warp's stores (calibrate: round_load "        \
    "push_store, slope over warps)")                                                                               \
  /* prior: 0, every step's slope that of two stores; range: as dram_round_ns_per_warp */                           \
  X(push_step_ns_per_warp_store, 0.0, 0.0, 1000.0, "ns",                                                             \
    "extra push-step time per warp of the block and store beyond two (fewer: less), the SM issuing one more "       \
    "16-byte store per thread (calibrate: round_load push_store_1 / push_store / push_store_4, the slopes over "    \
    "warps against the stores per step)")                                                                          \
  /* prior: 1, every step at the whole partition's slope; range: a fraction of that slope */                        \
  X(push_step_few_blocks_fraction, 1.0, 0.0, 1.0, "fraction",                                                        \
    "a push step's per-warp part where at most 16 blocks push, as a fraction of the whole partition's, for a "      \
    "call's steps after its first (calibrate: round_load push_store_few at 1-16 blocks, slope over warps / "        \
    "push_step_ns_per_warp)")                                                                                      \
  /* range: 10 us: over 3x the whole measured round */                                                               \
  X(round_overhead_ns, 0.0, 0.0, 10000.0, "ns",                                                                      \
    "per RMSNorm token round, what the round's modelled parts (loads, vector ops, reductions, gamma) leave out of "  \
    "the kernel's own round code run in isolation: IEEE div and sqrt, loop and dependent issue (calibrate: "       \
    "epilogue_round minus the model's parts: intercept over warps)")                                               \
  /* range: 1 us per warp: far above the few ns measured */                                                          \
  X(round_overhead_ns_per_warp, 0.0, 0.0, 1000.0, "ns",                                                              \
    "extra round overhead per warp of the block that holds a vector (calibrate: epilogue_round minus the model's "  \
    "parts, slope over warps)")                                                                                                       \
  /* prior: 1, a warp that holds no vector costs as much as one that does (the round before the idle bench); */       \
  /* range: 0 (only the warps that hold a vector) to 1 */                                                            \
  X(round_overhead_idle_warp_fraction, 1.0, 0.0, 1.0, "fraction",                                                    \
    "what a warp of the block that holds no vector (threads beyond H/VEC: they still compute the norm's scale and "  \
    "loop) adds to the round overhead, as a fraction of round_overhead_ns_per_warp (calibrate: epilogue_round "    \
    "bf16_ar_res_rms_idle, half of each cluster's threads idle, against the line of the full rounds)")           \
  /* prior: 0, an NVFP4 round as long as its modelled parts; range: 10 us, as round_overhead_ns */                   \
  X(nvfp4_round_ns, 0.0, 0.0, 10000.0, "ns",                                                                         \
    "per NVFP4 token round, what its modelled parts and the RMSNorm round overhead leave out: the scale factor "     \
    "(amax of a 16-element block with the partner lane, two IEEE divisions, e4m3), the e2m1 codes and their "       \
    "stores (calibrate: epilogue_round bf16_ar_res_rms_fp4 minus the model's round: intercept over warps)")       \
  /* prior: 0, no growth with the warps; range: 1 us per warp, as round_overhead_ns_per_warp */                      \
  X(nvfp4_round_ns_per_warp, 0.0, 0.0, 1000.0, "ns",                                                                 \
    "per warp of the block that holds a vector (and of the other blocks on its SM), what an NVFP4 round adds "       \
    "beyond nvfp4_round_ns (calibrate: epilogue_round bf16_ar_res_rms_fp4, slope over warps of the same line)")      \
  /* prior: 0, an FP8 round as long as its modelled parts (one vector op more, the codes' bytes); range: 10 us, */ \
  /* as round_overhead_ns */                                                                                         \
  X(fp8_round_ns, 0.0, 0.0, 10000.0, "ns",                                                                           \
    "per FP8 token round, what its modelled parts and the RMSNorm round overhead leave out: the e4m3 conversion "    \
    "of the normed values and the codes' stores (calibrate: epilogue_round bf16_ar_res_rms_fp8 minus the model's "  \
    "round: intercept over warps)")                                                                                 \
  /* prior: 0, no growth with the warps; range: 1 us per warp, as round_overhead_ns_per_warp */                      \
  X(fp8_round_ns_per_warp, 0.0, 0.0, 1000.0, "ns",                                                                   \
    "per warp of the block that holds a vector (and of the other blocks on its SM), what an FP8 round adds beyond "  \
    "fp8_round_ns (calibrate: epilogue_round bf16_ar_res_rms_fp8, slope over warps of the same line)")               \
  /* prior: 0, an ar round as long as its modelled parts; range: 10 us, as round_overhead_ns */                       \
  X(ar_round_ns, 0.0, 0.0, 10000.0, "ns",                                                                            \
    "per token round of the ar pattern (all-reduce only, no norm), what its modelled parts (polls, the rank sum) "  \
    "leave out of the kernel's own round code: the store of the sum, loop and dependent issue (calibrate: "         \
    "epilogue_round bf16_ar minus the model's parts, median over configurations)")                                 \
  /* prior: the emulated H200's cluster barrier of 2026-11-30 (304 ns); range: as cluster_sync_ns */                 \
  X(bare_cluster_barrier_ns, 300.0, 0.0, 10000.0, "ns",                                                                   \
    "one bare cluster barrier, cluster.sync(): a release arrive (on sm_90 a GPU-scope MEMBAR) and an acquire "      \
    "wait; the reference kernel's closing barrier, at no warps (calibrate: cluster_sync barrier, intercept of a "  \
    "line over the block's warps, one block per SM, every cluster size)")                                         \
  /* prior: 0, no growth with the warps (the median of before); range: 1 us per warp, as round_overhead_ns_per_warp */\
  X(bare_cluster_barrier_ns_per_warp, 0.0, 0.0, 1000.0, "ns",                                                        \
    "per warp on the SM, what a bare cluster barrier adds (each warp's release arrive is its own MEMBAR) "          \
    "(calibrate: cluster_sync barrier, slope of the same line)")                                                   \
  /* prior: as bare_cluster_barrier_ns (no measurement of the relaxed arrive); range: as cluster_sync_ns */              \
  X(cluster_lifetime_barrier_ns, 300.0, 0.0, 10000.0, "ns",                                                          \
    "one cluster barrier with a relaxed arrive (no MEMBAR): the lean kernel's closing barrier and its pushed-"    \
    "exchange start, at no warps (calibrate: cluster_sync barrier_relaxed, intercept of a line over the block's "  \
    "warps)")                                                                                                      \
  /* prior: 0, no growth with the warps (the median of before); range: as bare_cluster_barrier_ns_per_warp */         \
  X(cluster_lifetime_barrier_ns_per_warp, 0.0, 0.0, 1000.0, "ns",                                                    \
    "per warp on the SM, what a relaxed cluster barrier adds (calibrate: cluster_sync barrier_relaxed, slope of "  \
    "the same line)")                                                                                              \
  /* prior: 0.5 x the emulated H200's 304 ns cluster barrier, the factor first chosen by hand for the lean */       \
  /* kernel's exchange (data/h200/exp/lean_configs_pushed8_emulated.csv); range: as cluster_sync_ns */               \
  X(pushed_exchange_ns, 150.0, 0.0, 10000.0, "ns",                                                                   \
    "the lean kernel's pushed exchange of RMSNorm block totals beyond a cluster-1 block sum, at zero peers "          \
    "(calibrate: cluster_sync pushed minus cluster-1 sync_dsmem at equal tpb: intercept over cluster - 1)")          \
  /* prior: 0.6 x the same 304 ns barrier (the hand-chosen factor); range: as dsmem_access_ns */                     \
  X(pushed_exchange_ns_per_peer, 180.0, 0.0, 10000.0, "ns",                                                          \
    "extra pushed-exchange time per other block of the cluster (calibrate: cluster_sync pushed, slope of the same "  \
    "line)")                                                                                                         \
  /* prior: 0, a node of N ranks as fast as one of 2; range: 10 us per rank: over 10x the few hundred ns per */     \
  /* rank measured on the emulated H200 node */                                                                     \
  X(exchange_ns_per_rank, 0.0, 0.0, 10000.0, "ns",                                                                   \
    "extra skew-free time of one all-to-all exchange round among N ranks over 2 ranks: the part linear in N - 2 "   \
    "(calibrate: exchange all_to_all, least squares of extra = a (N-2) + b (N-2)^2 over the measured N)")            \
  /* prior: 0; range: as exchange_ns_per_rank */                                                                     \
  X(exchange_ns_per_rank_sq, 0.0, 0.0, 10000.0, "ns",                                                                \
    "the same extra time's part in (N - 2)^2 (calibrate: exchange all_to_all, b of the same fit)")                   \
  /* prior: 0, a round of many blocks as long as one of one block; range: 1 us per block: over 30x the ~4 ns per */  \
  /* block measured on the emulated H200 node */                                                                     \
  X(exchange_grid_ns_per_block, 0.0, 0.0, 1000.0, "ns",                                                              \
    "extra skew-free time of one exchange round between 2 ranks per SM the grid's blocks occupy beyond the first, "  \
    "beyond the launch's own per-block time (calibrate: exchange all_to_all_grid, least squares of extra over one "  \
    "block = a (min(B, S)-1) + b (B-1) W over B blocks of W warps on S SMs per rank)")                               \
  /* prior: 0; range: as dram_round_ns_per_warp */                                                                   \
  X(exchange_grid_ns_per_block_warp, 0.0, 0.0, 1000.0, "ns",                                                         \
    "the same extra time's part per block beyond the first and warp of the block (calibrate: exchange "             \
    "all_to_all_grid, b of the same fit)")                                                                          \
  /* prior: 0, a kernel's last stores drain at the SM's port rate only; range: 10 us, as l2_latency_ns */            \
  X(exit_store_drain_ns, 0.0, 0.0, 10000.0, "ns",                                                                    \
    "what a kernel's duration grows by when every thread ends on stores, beyond their bytes per SM through the "     \
    "SM's port (calibrate: launch store_1 / store_8 minus plain at equal grid and tpb, less tpb x stores x 16 B / "  \
    "the port rate; median over grids below the partition)")                                                      \
  /* prior: 0, a thread's further vectors cost only the round's modelled parts; range: 10 us, as a round */         \
  X(round_ns_per_extra_vector, 0.0, 0.0, 10000.0, "ns",                                                              \
    "what a token round takes per vector a thread holds beyond its first, beyond the round's modelled parts "        \
    "(calibrate: epilogue_round bf16_ar_res_rms_vpt2 / _vpt4 minus the model's round of that shape, over vpt - 1; " \
    "median)")                                                                                                      \
  /* prior: 0, every epilogue round at the model's round; range: +-10 us, as a round */                             \
  X(twoshot_further_round_ns_n2, 0.0, -10000.0, 10000.0, "ns",                                                       \
    "N = 2: what the reference two-shot's epilogue round of a norm pattern after a call's first takes beyond the "   \
    "model's round of that shape, per round (calibrate: body_round reference2_epilogue_n2_slowest, the ar_res_rms "  \
    "epilogue, measured minus the model's round; median)")                                                          \
  /* prior: 0, every epilogue round at the model's round; range: +-10 us, as a round */                             \
  X(twoshot_ar_further_round_ns_n2, 0.0, -10000.0, 10000.0, "ns",                                                    \
    "N = 2: what the reference two-shot's ar epilogue round after a call's first takes beyond the model's round "     \
    "of that shape, per round (calibrate: body_round reference2_epilogue_ar_n2_slowest, measured minus the model's " \
    "round; median)")                                                                                                \
  /* prior: 0, the two-shot epilogue round's overhead is the one-shot round's; range: +-10 us, as a round */         \
  X(twoshot_round_delta_ns, 0.0, -10000.0, 10000.0, "ns",                                                            \
    "what the reference two-shot's epilogue round of a norm pattern takes beyond the model's round that carries the " \
    "one-shot round's overhead (calibrate: body_round reference2_epilogue_allbusy_slowest, every partition running " \
    "the round, minus the model's round: intercept of the line over the warps that hold a vector)")                  \
  /* prior: 0, as twoshot_round_delta_ns; range: +-1 us per warp, as round_overhead_ns_per_warp */                    \
  X(twoshot_round_delta_ns_per_warp, 0.0, -1000.0, 1000.0, "ns",                                                     \
    "per warp that holds a vector on the busiest SM, what the reference two-shot's epilogue round adds beyond the "  \
    "one-shot round's overhead (calibrate: the same line's slope)")                                                  \
  /* prior: 0, reader rounds at the model's lean two-shot round; range: +-10 us, as a round */                        \
  X(lean2_reader_round_ns_n2, 0.0, -10000.0, 10000.0, "ns",                                                          \
    "N = 2: what a lean two-shot reader's round (stage 3: the owner's slot polled, -0.0 written back, the epilogue) takes beyond the model's, with every partition running it (calibrate: body_round lean2_reader_n2_allbusy_slowest minus the model's round: intercept of the line over vector warps)") \
  /* prior: 0; range: +-1 us per warp, as round_overhead_ns_per_warp */                                             \
  X(lean2_reader_round_ns_per_warp_n2, 0.0, -1000.0, 1000.0, "ns",                                                   \
    "N = 2: per vector warp on the busiest SM, the slope of the same line (calibrate: body_round lean2_reader_n2_allbusy_slowest)") \
  X(lean2_reader_round_ns_n4, 0.0, -10000.0, 10000.0, "ns", "as lean2_reader_round_ns_n2, N = 4 (body_round lean2_reader_n4_allbusy_slowest)") \
  X(lean2_reader_round_ns_per_warp_n4, 0.0, -1000.0, 1000.0, "ns",                                                 \
    "as lean2_reader_round_ns_per_warp_n2, N = 4 (body_round lean2_reader_n4_allbusy_slowest)")                     \
  X(lean2_reader_round_ns_n8, 0.0, -10000.0, 10000.0, "ns", "as lean2_reader_round_ns_n2, N = 8 (body_round lean2_reader_n8_allbusy_slowest)") \
  X(lean2_reader_round_ns_per_warp_n8, 0.0, -1000.0, 1000.0, "ns",                                                 \
    "as lean2_reader_round_ns_per_warp_n2, N = 8 (body_round lean2_reader_n8_allbusy_slowest)")                     \
  /* prior: 0, owner rounds at the model's lean two-shot round; range: +-10 us, as a round */                        \
  X(lean2_owner_round_ns_n2, 0.0, -10000.0, 10000.0, "ns",                                                          \
    "N = 2: what a lean two-shot owner's round (stage 2: the N - 1 peer slots polled with its own vector of x, the sum pushed to the N - 1 peers, the epilogue) takes beyond the model's, with every partition running it (calibrate: body_round lean2_owner_n2_allbusy_slowest minus the model's round: intercept of the line over vector warps)") \
  /* prior: 0; range: +-1 us per warp, as round_overhead_ns_per_warp */                                             \
  X(lean2_owner_round_ns_per_warp_n2, 0.0, -1000.0, 1000.0, "ns",                                                   \
    "N = 2: per vector warp on the busiest SM, the slope of the same line (calibrate: body_round lean2_owner_n2_allbusy_slowest)") \
  X(lean2_owner_round_ns_n4, 0.0, -10000.0, 10000.0, "ns", "as lean2_owner_round_ns_n2, N = 4 (body_round lean2_owner_n4_allbusy_slowest)") \
  X(lean2_owner_round_ns_per_warp_n4, 0.0, -1000.0, 1000.0, "ns",                                                 \
    "as lean2_owner_round_ns_per_warp_n2, N = 4 (body_round lean2_owner_n4_allbusy_slowest)")                     \
  X(lean2_owner_round_ns_n8, 0.0, -10000.0, 10000.0, "ns", "as lean2_owner_round_ns_n2, N = 8 (body_round lean2_owner_n8_allbusy_slowest)") \
  X(lean2_owner_round_ns_per_warp_n8, 0.0, -1000.0, 1000.0, "ns",                                                 \
    "as lean2_owner_round_ns_per_warp_n2, N = 8 (body_round lean2_owner_n8_allbusy_slowest)")                     \
  /* prior: 0, a thread's further vectors cost only the round's modelled parts; range: 10 us, as a round */         \
  X(ar_round_ns_per_extra_vector, 0.0, 0.0, 10000.0, "ns",                                                           \
    "what an ar token round takes per vector a thread holds beyond its first, beyond the round's modelled parts "    \
    "and ar_round_ns (calibrate: epilogue_round bf16_ar_vpt2 / _vpt4 minus the model's round of that shape, over "  \
    "vpt - 1; median)")                                                                                             \
  /* prior: 0, a thread's further vectors cost only the round's modelled parts; range: 10 us, as a round */         \
  X(nvfp4_round_ns_per_extra_vector, 0.0, 0.0, 10000.0, "ns",                                                        \
    "what an NVFP4 token round takes per vector a thread holds beyond its first, beyond the round's modelled parts " \
    "(round_ns_per_extra_vector and the NVFP4 round's own part included; calibrate: epilogue_round "               \
    "bf16_ar_res_rms_fp4_vpt2 / _vpt4 minus the model's round of that shape, over vpt - 1; median)")                \
  /* prior: 0, the lean round grows with N only as its modelled parts do; range: 10 us, as a round */              \
  X(lean_round_ns_per_extra_rank, 0.0, 0.0, 10000.0, "ns",                                                           \
    "what the lean one-shot body's token round takes per rank beyond 2 and vector per thread, beyond the growth of "  \
    "its modelled parts and of the reference's round (calibrate: body_round lean_n4 / _n8 against lean_n2 of the "    \
    "same shape less the same for reference_n*, each less the model's rounds, over (N - 2) x vpt: since session 51 "  \
    "the intercept of a least-squares line over the block's warps, the median before)")                              \
  /* prior: 0, the lean round's cost per further rank is the same at any block size; range: +-1 us per warp */       \
  X(lean_round_ns_per_extra_rank_per_warp, 0.0, -1000.0, 1000.0, "ns",                                               \
    "the slope of lean_round_ns_per_extra_rank's line: per warp that holds a vector on the SM (body_round lean_n4 / " \
    "_n8; since session 51)")                                                                                         \
  /* prior: 0, a call's further rounds take what its first round does; range: +-10 us, as a round (negative:   */ \
  /* a further round is shorter than the model's round, measured at N = 2); per warp +-1 us                   */ \
  X(further_round_ns_n2, 0.0, -10000.0, 10000.0, "ns",                                                               \
    "what a one-shot token round after a call's first takes beyond the model's round (whose overhead the "           \
    "epilogue_round rows set with a partner partition busy), N = 2: the intercept of a plane over the warps of the "  \
    "block that hold a vector and the vectors per thread beyond the first (calibrate: body_round "                   \
    "reference_n2_slowest, the body alone with its data in place, minus the model's round of that shape; least "    \
    "squares over the shapes; per vector until session 52)")                                                       \
  X(further_round_ns_per_warp_n2, 0.0, -1000.0, 1000.0, "ns",                                                        \
    "that plane's slope per warp that holds a vector on the SM (body_round reference_n2)")                           \
  X(further_round_ns_n4, 0.0, -10000.0, 10000.0, "ns", "as further_round_ns_n2, N = 4 (body_round reference_n4)")    \
  X(further_round_ns_per_warp_n4, 0.0, -1000.0, 1000.0, "ns",                                                        \
    "as further_round_ns_per_warp_n2, N = 4 (body_round reference_n4)")                                             \
  X(further_round_ns_n8, 0.0, -10000.0, 10000.0, "ns", "as further_round_ns_n2, N = 8 (body_round reference_n8)")    \
  X(further_round_ns_per_warp_n8, 0.0, -1000.0, 1000.0, "ns",                                                        \
    "as further_round_ns_per_warp_n2, N = 8 (body_round reference_n8)")                                             \
  X(lean_further_round_ns_n2, 0.0, -10000.0, 10000.0, "ns",                                                          \
    "as further_round_ns_n2 for the lean body (body_round lean_n2 against the model's lean round)")                 \
  X(lean_further_round_ns_per_warp_n2, 0.0, -1000.0, 1000.0, "ns",                                                   \
    "as further_round_ns_per_warp_n2 for the lean body (body_round lean_n2)")                                       \
  X(lean_further_round_ns_n4, 0.0, -10000.0, 10000.0, "ns", "as lean_further_round_ns_n2, N = 4 (body_round lean_n4)") \
  X(lean_further_round_ns_per_warp_n4, 0.0, -1000.0, 1000.0, "ns",                                                   \
    "as lean_further_round_ns_per_warp_n2, N = 4 (body_round lean_n4)")                                             \
  X(lean_further_round_ns_n8, 0.0, -10000.0, 10000.0, "ns", "as lean_further_round_ns_n2, N = 8 (body_round lean_n8)") \
  X(lean_further_round_ns_per_warp_n8, 0.0, -1000.0, 1000.0, "ns",                                                   \
    "as lean_further_round_ns_per_warp_n2, N = 8 (body_round lean_n8)")                                             \
  X(further_round_ns_per_extra_vector_n2, 0.0, -10000.0, 10000.0, "ns",                                             \
    "what a round after a call's first takes per vector a thread holds beyond its first, beyond the model's round "  \
    "and the line further_round_ns_n2 + _per_warp_n2 (since session 52; calibrate: body_round reference_n2, the "    \
    "third coefficient of a least-squares plane over the block's warps and vpt - 1)")                               \
  X(further_round_ns_per_extra_vector_n4, 0.0, -10000.0, 10000.0, "ns",                                             \
    "as further_round_ns_per_extra_vector_n2, N = 4 (body_round reference_n4)")                                     \
  X(further_round_ns_per_extra_vector_n8, 0.0, -10000.0, 10000.0, "ns",                                             \
    "as further_round_ns_per_extra_vector_n2, N = 8 (body_round reference_n8)")                                     \
  X(lean_further_round_ns_per_extra_vector_n2, 0.0, -10000.0, 10000.0, "ns",                                        \
    "as further_round_ns_per_extra_vector_n2 for the lean body (body_round lean_n2)")                               \
  X(lean_further_round_ns_per_extra_vector_n4, 0.0, -10000.0, 10000.0, "ns",                                        \
    "as lean_further_round_ns_per_extra_vector_n2, N = 4 (body_round lean_n4)")                                     \
  X(lean_further_round_ns_per_extra_vector_n8, 0.0, -10000.0, 10000.0, "ns",                                        \
    "as lean_further_round_ns_per_extra_vector_n2, N = 8 (body_round lean_n8)")                                     \
  X(further_round_ns_per_extra_vector_per_warp_n2, 0.0, -1000.0, 1000.0, "ns",                                       \
    "what further_round_ns_per_extra_vector_n2 grows by per warp that holds a vector on the SM (since session 52; "   \
    "body_round reference_n2 with the _wide rows: several vectors on 16-32 warps)")                                \
  X(further_round_ns_per_extra_vector_per_warp_n4, 0.0, -1000.0, 1000.0, "ns",                                       \
    "as further_round_ns_per_extra_vector_per_warp_n2, N = 4 (body_round reference_n4)")                           \
  X(further_round_ns_per_extra_vector_per_warp_n8, 0.0, -1000.0, 1000.0, "ns",                                       \
    "as further_round_ns_per_extra_vector_per_warp_n2, N = 8 (body_round reference_n8)")                           \
  X(lean_further_round_ns_per_extra_vector_per_warp_n2, 0.0, -1000.0, 1000.0, "ns",                                  \
    "as further_round_ns_per_extra_vector_per_warp_n2 for the lean body (body_round lean_n2)")                     \
  X(lean_further_round_ns_per_extra_vector_per_warp_n4, 0.0, -1000.0, 1000.0, "ns",                                  \
    "as lean_further_round_ns_per_extra_vector_per_warp_n2, N = 4 (body_round lean_n4)")                           \
  X(lean_further_round_ns_per_extra_vector_per_warp_n8, 0.0, -1000.0, 1000.0, "ns",                                  \
    "as lean_further_round_ns_per_extra_vector_per_warp_n2, N = 8 (body_round lean_n8)")                           \
  /* prior: 0, a quantizing pattern's further rounds grow as ar_res_rms's do; range as above */                      \
  X(quant_further_round_ns_n2, 0.0, -10000.0, 10000.0, "ns",                                                         \
    "as quant_further_round_ns_n8, N = 2, where the polls batch as ar_res_rms's (body_round reference_fp8_n2 "       \
    "beyond further_round_ns_n2's line)")                                                                           \
  X(quant_further_round_ns_per_warp_n2, 0.0, -1000.0, 1000.0, "ns",                                                  \
    "as quant_further_round_ns_per_warp_n8, N = 2 (body_round reference_fp8_n2)")                                    \
  X(quant_further_round_ns_n4, 0.0, -10000.0, 10000.0, "ns",                                                         \
    "as quant_further_round_ns_n2, N = 4 (body_round reference_fp8_n4 beyond further_round_ns_n4's line)")          \
  X(quant_further_round_ns_per_warp_n4, 0.0, -1000.0, 1000.0, "ns",                                                  \
    "as quant_further_round_ns_per_warp_n2, N = 4 (body_round reference_fp8_n4)")                                    \
  X(lean_quant_further_round_ns_n2, 0.0, -10000.0, 10000.0, "ns",                                                    \
    "as quant_further_round_ns_n2 for the lean body, beyond lean_further_round_ns_n2's line (body_round "           \
    "lean_fp8_n2)")                                                                                                 \
  X(lean_quant_further_round_ns_per_warp_n2, 0.0, -1000.0, 1000.0, "ns",                                             \
    "as quant_further_round_ns_per_warp_n2 for the lean body (body_round lean_fp8_n2)")                             \
  X(lean_quant_further_round_ns_n4, 0.0, -10000.0, 10000.0, "ns",                                                    \
    "as lean_quant_further_round_ns_n2, N = 4 (body_round lean_fp8_n4)")                                            \
  X(lean_quant_further_round_ns_per_warp_n4, 0.0, -1000.0, 1000.0, "ns",                                             \
    "as lean_quant_further_round_ns_per_warp_n2, N = 4 (body_round lean_fp8_n4)")                                   \
  X(quant_further_round_ns_n8, 0.0, -10000.0, 10000.0, "ns",                                                         \
    "what a one-shot token round takes per vector a thread holds at N = 8 with a quantizing pattern (its polls two " \
    "slots at a time, not four) beyond ar_res_rms's, measured on a call's further rounds, added to every round: "   \
    "the intercept of a line over the warps of the block that hold a vector (calibrate: body_round "                \
    "reference_fp8_n8_slowest minus the model's ar_res_rms_fp8 round of that shape, over vpt, less the line "        \
    "further_round_ns_n8; least squares)")                                                                          \
  X(quant_further_round_ns_per_warp_n8, 0.0, -1000.0, 1000.0, "ns",                                                  \
    "the slope of that line: per warp that holds a vector on the SM (body_round reference_fp8_n8)")                  \
  X(lean_quant_further_round_ns_n8, 0.0, -10000.0, 10000.0, "ns",                                                    \
    "as quant_further_round_ns_n8 for the lean body, beyond lean_further_round_ns_n8's line (body_round "           \
    "lean_fp8_n8)")                                                                                                 \
  X(lean_quant_further_round_ns_per_warp_n8, 0.0, -1000.0, 1000.0, "ns",                                             \
    "as quant_further_round_ns_per_warp_n8 for the lean body (body_round lean_fp8_n8)")                             \
  /* prior: 0, the ar round at N = 2 as the model's parts and the ar_res_rms further-round line price it; */         \
  /* range as above */                                                                                               \
  X(ar_round_line_ns_n2, 0.0, -10000.0, 10000.0, "ns",                                                               \
    "what the reference one-shot `ar` round takes at N = 2 beyond the model's ar round, once per round, the first "  \
    "included (the ar_res_rms further-round line then not added): the intercept of a line over the warps of the "   \
    "block that hold a vector (calibrate: body_round reference_ar_n2_slowest minus the model's ar round of that "    \
    "shape, the rows of one vector per thread; least squares; since session 54, per vector before)")                \
  X(ar_round_line_ns_per_warp_n2, 0.0, -1000.0, 1000.0, "ns",                                                        \
    "the slope of that line: per warp that holds a vector on the SM (body_round reference_ar_n2)")                   \
  X(lean_ar_round_line_ns_n2, 0.0, -10000.0, 10000.0, "ns",                                                          \
    "as ar_round_line_ns_n2 for the lean body (body_round lean_ar_n2 against the model's lean ar round)")            \
  X(lean_ar_round_line_ns_per_warp_n2, 0.0, -1000.0, 1000.0, "ns",                                                   \
    "as ar_round_line_ns_per_warp_n2 for the lean body (body_round lean_ar_n2)")                                     \
  /* prior: 0, each further vector as the round_overhead_ns share of ar_round_ns_per_extra_vector; range as a */     \
  /* round */                                                                                                        \
  X(ar_round_ns_per_further_vector_n2, 0.0, -10000.0, 10000.0, "ns",                                                 \
    "what each vector a thread holds beyond its first adds to the reference one-shot `ar` round at N = 2, beyond "   \
    "the model's round and the line above, at any grid (in place of ar_round_ns_per_extra_vector's share over the " \
    "SMs; calibrate: body_round reference_ar_n2_slowest rows of 2 and 4 vectors per thread, (measured - model - "   \
    "line) / (vpt - 1); median; since session 54)")                                                                  \
  X(lean_ar_round_ns_per_further_vector_n2, 0.0, -10000.0, 10000.0, "ns",                                            \
    "as ar_round_ns_per_further_vector_n2 for the lean body (body_round lean_ar_n2_slowest)")                        \
  /* prior: 0, no term (a round's polls always hit L2); range: 10 us, as a round */                                  \
  X(poll_miss_ns_n2, 0.0, 0.0, 10000.0, "ns",                                                                        \
    "what the reference one-shot round takes per vector a thread holds beyond its warm round when its polls come "   \
    "from DRAM, N = 2 (calibrate: body_round reference_n2_cold_slowest minus reference_n2_slowest of the same "      \
    "shape and run, over vpt; median)")                                                                              \
  X(poll_miss_ns_n4, 0.0, 0.0, 10000.0, "ns", "as poll_miss_ns_n2, N = 4 (body_round reference_n4_cold)")            \
  X(poll_miss_ns_n8, 0.0, 0.0, 10000.0, "ns", "as poll_miss_ns_n2, N = 8 (body_round reference_n8_cold)")            \
  X(lean_poll_miss_ns_n2, 0.0, 0.0, 10000.0, "ns",                                                                   \
    "as poll_miss_ns_n2 for the lean body, whose re-read of its own vector from x misses too (body_round "           \
    "lean_n2_cold)")                                                                                                 \
  X(lean_poll_miss_ns_n4, 0.0, 0.0, 10000.0, "ns", "as lean_poll_miss_ns_n2, N = 4 (body_round lean_n4_cold)")       \
  X(lean_poll_miss_ns_n8, 0.0, 0.0, 10000.0, "ns", "as lean_poll_miss_ns_n2, N = 8 (body_round lean_n8_cold)")       \
  /* prior: misses begin at half of L2 and are complete at all of it; range: 0-16 x L2 */                            \
  X(l2_reuse_miss_start_fraction, 0.5, 0.0, 16.0, "fraction",                                                        \
    "bytes written between a line's write and its read, as a fraction of L2 (the rank's share of it on the "         \
    "emulated node), below which the read hits (calibrate: body_round *_n4_reuse_slowest, where the round's "        \
    "miss fraction crosses 0.1, less 1/8 of the 0.1 - 0.9 span)")                                                    \
  X(l2_reuse_miss_full_fraction, 1.0, 0.0, 16.0, "fraction",                                                         \
    "as l2_reuse_miss_start_fraction, the fraction of L2 above which every such read misses (where the "             \
    "miss fraction crosses 0.9, plus 1/8 of the 0.1 - 0.9 span)")                                                   \
  /* prior: 0, an odd tpb's NVFP4 round as long as an even one's (no rows: not modelled); range: 10 us, as a round */ \
  X(nvfp4_odd_round_ns, 0.0, 0.0, 10000.0, "ns",                                                                     \
    "per NVFP4 token round at an odd tpb, what the round takes beyond the even NVFP4 round of the same shape: the "  \
    "amax of every vector through shared memory, a cluster barrier (__syncthreads at cluster 1), each norm "         \
    "recomputed from residual_out and gamma, the partner's amax from another block's shared memory (calibrate: "     \
    "epilogue_round bf16_ar_res_rms_fp4_odd minus the model's even round: intercept over warps)")                  \
  /* prior: 0; range: 1 us per warp, as round_overhead_ns_per_warp */                                                \
  X(nvfp4_odd_round_ns_per_warp, 0.0, 0.0, 1000.0, "ns",                                                             \
    "per warp of the block (and of the other blocks on its SM: the barrier waits for all of them), what an odd-tpb " \
    "NVFP4 round adds beyond nvfp4_odd_round_ns (calibrate: epilogue_round bf16_ar_res_rms_fp4_odd, slope over "    \
    "warps of the same line)")                                                                                       \
  /* prior: 0, a round at several blocks per SM priced by its lines over warps alone; range: 1 us per warp-vector */ \
  X(shared_sm_round_ns_per_warp_vector, 0.0, -1000.0, 1000.0, "ns",                                                  \
    "what a round with a residual (RMSNorm; the quantizing patterns too) takes per vector held by a warp of the "    \
    "other blocks that share its SM, beyond the model's round at that many blocks per SM (calibrate: body_round "    \
    "reference_n2, lean_n2, reference2_epilogue_n2, lean2_owner_n2, lean2_reader_n2 _bps2 / _bps4 against the same "\
    "shape at one block per SM of the same run: the growth measured minus the model's, over (blocks per SM - 1) x "  \
    "warps x vectors per thread; least squares through 0; since session 55)")                                      \
  X(shared_sm_ar_round_ns_per_warp_vector, 0.0, -1000.0, 1000.0, "ns",                                               \
    "as shared_sm_round_ns_per_warp_vector for the `ar` pattern's round (body_round reference_ar_n2, lean_ar_n2 "   \
    "_bps2 / _bps4)")

struct Calibration {
#define ARLAB_CAL_FIELD(name, def, lo, hi, unit, doc) double name = def;
  ARLAB_CALIBRATION_CONSTANTS(ARLAB_CAL_FIELD)
#undef ARLAB_CAL_FIELD
};

struct CalibrationConstantInfo {
  std::string name;
  double default_value;
  double min_value;  // the physical range [min_value, max_value], in `unit`
  double max_value;
  std::string unit;
  std::string meaning;
};

Calibration default_calibration();
std::vector<CalibrationConstantInfo> calibration_constants();  // in declaration order
// Access a constant by name; throws InvalidArgument listing the known names when unknown.
double get_constant(const Calibration& c, const std::string& name);
void set_constant(Calibration& c, const std::string& name, double value);

// "" when v is within the constant's physical range, else a message naming the constant, the value,
// the range and its unit.
std::string range_violation(const CalibrationConstantInfo& info, double v);
// Throws InvalidArgument naming the first constant of c outside its physical range.
void check_ranges(const Calibration& c);

// Reads the rows of common/calibration_schema.h (source and meaning may be absent; other columns
// are refused). Constants missing from the file keep their defaults. Throws CsvError naming file,
// line and column for: missing header or column, a header without rows, non-numeric or non-finite
// value, a value outside the constant's physical range, unknown name, unit different from the
// documented one, duplicated name.
Calibration load_calibration(const std::string& csv_path);
// Writes every constant as `name,value,unit,source,meaning`; `source` says where the values came
// from (e.g. "default prior", "fit: data.csv, 812 train rows"), `meaning` is the documentation above.
// Refuses (check_ranges) a calibration it could not read back; the file is written atomically and
// replaces only an earlier calibration (common/output_file.h).
void save_calibration(const Calibration& c, const std::string& csv_path, const std::string& source);

}  // namespace arlab::model

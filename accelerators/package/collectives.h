// Collectives between the devices of a package as steps of transfers over its links
// (link_network.h).
//
//   all_reduce, ring   the bidirectional ring (two rings in opposite directions, half the data
//                      each): 2·(p−1) steps, every member sends bytes/(2p) to each neighbour
//                      per step (reduce-scatter, then all-gather). On idle single-hop links:
//                      2·(p−1)·(latency + bytes/(2p·bandwidth))
//   all_reduce, tree   a binary tree over the members in order (member i's parent is (i−1)/2):
//                      the whole tensor up the tree a level per step, then down again:
//                      2·depth·(latency + bytes/bandwidth) on single hops; fewer latencies for
//                      many members, more bytes
//   all_to_all         one step: every member sends bytes/p to every other one (each member
//                      holds `bytes`; it keeps its own share)
//   send_recv          one step: `bytes` from the first member to the second
// `auto` picks, per all-reduce, the algorithm that is faster on idle links (as NCCL's tuner
// picks by message size).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "accelerators/package/link_network.h"

namespace strata {

enum class CollectiveKind { AllReduce, AllToAll, SendRecv };
enum class CollectiveAlgorithm { Ring, Tree };

const char* collective_kind_name(CollectiveKind kind);         // "all_reduce", "all_to_all", "send_recv"
const char* collective_algorithm_name(CollectiveAlgorithm a);  // "ring", "tree"

// The transfers of a collective among `members` (device indices), `bytes` per member.
TransferSteps collective_steps(CollectiveKind kind, CollectiveAlgorithm algorithm, const std::vector<int>& members,
                               std::uint64_t bytes);

}  // namespace strata

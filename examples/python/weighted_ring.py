"""A weighted distributed graph with reorder and a neighbor_alltoallv over it,
with mpi4py (built against MPICH) and distopo preloaded:

    LD_PRELOAD=<build>/capi/libdistopo_mpi.so mpiexec -n 4 python3 weighted_ring.py

Every rank names its two ring edges (weight 2 to the next rank, 1 to the
previous one) plus one heavy edge to the rank half way round; reorder lets
distopo place heavy neighbors on one machine node. Each rank then sends
`weight` integers to each destination and checks what it receives. Exits
non-zero (on every rank) if a check fails; prints "No Errors" on rank 0.
"""
import array
import sys

from mpi4py import MPI

world = MPI.COMM_WORLD
rank, size = world.Get_rank(), world.Get_size()

# Edges named in any order, by their source: distopo returns them sorted by
# (rank, weight), the same on every run.
edges = [((rank + size // 2) % size, 5), ((rank + 1) % size, 2), ((rank - 1) % size, 1)]
graph = world.Create_dist_graph(
    sources=[rank],
    degrees=[len(edges)],
    destinations=[d for d, _ in edges],
    weights=[w for _, w in edges],
    reorder=True,
)

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


check(graph.Get_topology() == MPI.DIST_GRAPH, "Get_topology")
sources, destinations, (source_weights, destination_weights) = graph.Get_dist_neighbors()
indegree, outdegree, weighted = graph.Get_dist_neighbors_count()
check((indegree, outdegree, weighted) == (3, 3, True), "Get_dist_neighbors_count")
check(list(zip(destinations, destination_weights)) == sorted(zip(destinations, destination_weights)),
      "destinations sorted by (rank, weight)")
check(list(zip(sources, source_weights)) == sorted(zip(sources, source_weights)), "sources sorted by (rank, weight)")

# Graph node v is rank v of `graph`: the ring is over the new ranks.
me = graph.Get_rank()
check(sorted(destination_weights) == [1, 2, 5], "the weights travel with the edges")

# neighbor_alltoallv: `weight` integers to each destination, each the value
# 1000 * sender + weight, so that each block names its edge.
send_counts = list(destination_weights)
send = [1000 * me + w for w in destination_weights for _ in range(w)]
recv_counts = list(source_weights)
recv = [-1] * sum(recv_counts)
send_array = array.array("i", send)
recv_array = array.array("i", recv)


def displacements(counts):
    return [sum(counts[:i]) for i in range(len(counts))]


graph.Neighbor_alltoallv([send_array, send_counts, displacements(send_counts), MPI.INT],
                         [recv_array, recv_counts, displacements(recv_counts), MPI.INT])
position = 0
for source, weight in zip(sources, source_weights):
    block = list(recv_array[position:position + weight])
    check(block == [1000 * source + weight] * weight, f"block from {source} (weight {weight}): {block}")
    position += weight

graph.Free()
all_failures = world.allreduce(len(failures))
for what in failures:
    print(f"rank {rank}: failed: {what}", file=sys.stderr)
if rank == 0:
    print("No Errors" if all_failures == 0 else f"Found {all_failures} errors")
sys.exit(1 if all_failures else 0)

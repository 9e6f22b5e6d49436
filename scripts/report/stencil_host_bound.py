#!/usr/bin/env python3
"""How much a placement can gain on the 27-point stencil when the hosts'
adapters carry the time (blocks of a KiB): blocks that leave a host of
--ranks-per-node ranks under MPICH's row-major grid (the identity) against the
fewest any set of that many grid points sends out.

The fewest is searched, not proven: a local search (one point moved to the
set's frontier at a time, kept when no worse) from several rounded boxes,
fixed seed. It gives an upper bound on the minimum, so the ratio printed is
what the best set found would allow; a set with fewer blocks out would allow
more. The grid is the driver's (bench/smpi/neighbor_patterns.cpp: balanced
dimensions, periodic, row-major ranks).

Usage: python3 scripts/report/stencil_host_bound.py [--ranks-per-node 64] [--moves 20000] P...
"""
import argparse
import itertools
import random

OFFSETS = [d for d in itertools.product((-1, 0, 1), repeat=3) if d != (0, 0, 0)]


def balanced_dims(size):
    """The driver's dimensions: the smallest largest-over-smallest, descending."""
    best = None
    for a in range(size, 0, -1):
        if size % a:
            continue
        for b in range(min(a, size // a), 0, -1):
            if (size // a) % b:
                continue
            c = size // a // b
            if c > b:
                continue
            if best is None or a - c < best[0] - best[2]:
                best = (a, b, c)
    return best


def neighbors(p, wrap=None):
    """The 26 points `p` sends a block to, on the torus `wrap` if given."""
    for d in OFFSETS:
        q = (p[0] + d[0], p[1] + d[1], p[2] + d[2])
        yield tuple(q[i] % wrap[i] for i in range(3)) if wrap else q


def blocks_out(points, wrap=None):
    """Blocks that leave `points`."""
    inside = set(points)
    return sum(q not in inside for p in inside for q in neighbors(p, wrap))


def identity_host(size, per_host):
    """Blocks out of MPI_COMM_WORLD's first host (all hosts are alike on the torus)."""
    dims = balanced_dims(size)
    points = [(r // (dims[1] * dims[2]), (r // dims[2]) % dims[1], r % dims[2]) for r in range(per_host)]
    return dims, blocks_out(points, dims)


def fewest_found(per_host, moves, seed=1):
    rng = random.Random(seed)
    edge = round(per_host ** (1 / 3))
    best = None
    for a, b, c in [(edge + 1, edge + 1, edge), (edge + 1, edge + 1, edge + 1), (edge + 1, edge, edge),
                    (edge + 2, edge + 1, edge)]:
        points = {(x, y, z) for x in range(a) for y in range(b) for z in range(c)}
        while len(points) > per_host:  # shave the points with the fewest neighbors inside
            points.remove(min(points, key=lambda p: (sum(q in points for q in neighbors(p)), rng.random())))
        if len(points) < per_host:
            continue
        current = blocks_out(points)
        for _ in range(moves):
            leaving = rng.choice(sorted(points))
            frontier = sorted({q for p in points for q in neighbors(p)} - points)
            arriving = rng.choice(frontier)
            points.remove(leaving)
            points.add(arriving)
            moved = blocks_out(points)
            if moved <= current:
                current = moved
            else:
                points.remove(arriving)
                points.add(leaving)
        best = current if best is None else min(best, current)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks-per-node", type=int, default=64)
    parser.add_argument("--moves", type=int, default=20000)
    parser.add_argument("sizes", type=int, nargs="+")
    args = parser.parse_args()
    k = args.ranks_per_node
    edge = round(k ** (1 / 3))
    cube = blocks_out([(x, y, z) for x in range(edge) for y in range(edge) for z in range(edge)]) \
        if edge ** 3 == k else None
    fewest = fewest_found(k, args.moves)
    print(f"blocks per host: {26 * k}; a {edge}^3 cube sends out {cube}; fewest found for {k} points: {fewest}")
    for size in args.sizes:
        dims, identity = identity_host(size, k)
        bound = f"{identity / fewest:.2f}x"
        cube_bound = f", {identity / cube:.2f}x with cubes" if cube else ""
        print(f"P={size} grid {dims[0]}x{dims[1]}x{dims[2]}: identity sends out {identity}; "
              f"at most {bound} faster with the best set found{cube_bound}")


if __name__ == "__main__":
    main()

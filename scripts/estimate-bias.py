#!/usr/bin/env python3
"""How far `estimate`'s rule of leaving out the parts still running at its bound pulls the mean
part time down, in a simulation: parts of random durations (lognormal, mean 1, a given
coefficient of variation) taken in queue order by THREADS threads until time T; the parts
running at T are left out, as `estimate` leaves them out. Those are more often the long ones
(a long part is more likely to be running at any moment), so the parts kept are short on
average. Also shown: keeping only the queue's prefix up to the first part not finished, and
the `lean` that `estimate` reports from the parts kept (the parts in flight, one a thread, times
the kept parts' relative variance, over how many were kept, times 1 - 1/threads; src/run/estimate.rs,
`lean`), as a mean kept: 1 - lean is what the estimate says its kept parts' mean is.

One stratum, no costs: `estimate` divides by each part's modelled cost within strata, which
narrows the spread that matters, so these are the bias's size for a given spread, not a
correction to apply.

Usage: scripts/estimate-bias.py [RUNS]   (RUNS per row, 1500 by default; standard library only)
"""
import heapq
import math
import random
import statistics
import sys


def one(threads, bound, cv, seed):
    """(mean of the finished parts, mean of the finished prefix, finished, prefix, 1 - lean)."""
    rng = random.Random(seed)
    s2 = math.log(1 + cv * cv)
    free = [(0.0, t) for t in range(threads)]
    heapq.heapify(free)
    finished = {}
    k = 0
    while True:
        start, t = heapq.heappop(free)
        if start >= bound:
            break
        d = rng.lognormvariate(-s2 / 2, math.sqrt(s2))
        if start + d <= bound:
            finished[k] = d
        heapq.heappush(free, (start + d, t))
        k += 1
    first_missing = next(i for i in range(k + 1) if i not in finished)
    prefix = [finished[i] for i in range(first_missing)]
    mean = statistics.fmean(finished.values()) if finished else math.nan
    kept = len(finished)
    # `estimate`'s lean: the parts running at the bound (one a thread) times the kept parts'
    # relative variance about their mean, over how many were kept.
    spread = sum((d / mean - 1) ** 2 for d in finished.values()) / max(kept - 1, 1)
    said = 1 - (1 - 1 / threads) * (k - kept) * spread / kept if kept > 1 else math.nan
    return mean, (statistics.fmean(prefix) if prefix else math.nan), kept, len(prefix), said


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    print("threads,parts_a_thread,cv,kept_mean,prefix_mean,kept,prefix_kept,lean_says")
    # 2 threads and about 55 parts each: the Zen 4's `estimate 27 --seconds 1200 -j 2`.
    # 16 threads and about 5 parts each: the lent machine's `estimate 27 --seconds 280 -j 16`.
    for threads, bound in ((2, 55.0), (4, 20.0), (16, 5.0)):
        for cv in (0.5, 1.0, 2.0):
            rows = [one(threads, bound, cv, seed) for seed in range(runs)]
            rows = [r for r in rows if not math.isnan(r[1]) and not math.isnan(r[4])]
            cols = list(zip(*rows))
            print(
                f"{threads},{bound:.0f},{cv},{statistics.fmean(cols[0]):.3f},"
                f"{statistics.fmean(cols[1]):.3f},{statistics.fmean(cols[2]):.1f},"
                f"{statistics.fmean(cols[3]):.1f},{statistics.fmean(cols[4]):.3f}"
            )


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# The weights a full-symmetry join would give (results/zen3/2026-11-25-generic-leaf/README.md,
# "The full-symmetry join"), checked by brute force on small boards. Per key E (the rows of the
# left columns' queens, with the middle column's queen's row m on an odd board) and its
# quarter-turned key F (the columns of the bottom rows' queens, with the middle row's queen's
# column): psi(X) = |2 sum f(X) + f(mid) - sum f(rows)| for a symmetric f, and each solution
# weighted 1 + sign(psi(F) - psi(E)). Prints, per n and f, the share of solutions and of (left,
# right) half-board pairs with weight 0 (skipped) and 1 (tie), and the weights' sum ("check"),
# which must equal the solutions' count.
#
# Usage: scripts/r90-weights.py N...     (n = 12 and 13 take a few minutes)
import sys, itertools
from collections import Counter

def halves(n, rows, h, forbid_mid=None):
    """left half-boards on rows (sorted list), columns 0..h-1: yields (cols per row dict)"""
    rows = sorted(rows)
    out = []
    def rec(i, used, d1, d2, place):
        if i == len(rows):
            out.append(dict(place)); return
        r = rows[i]
        for c in range(h):
            if used >> c & 1: continue
            a, b = r - c + n, r + c
            if d1 >> a & 1 or d2 >> b & 1: continue
            place.append((r, c))
            rec(i+1, used | 1 << c, d1 | 1 << a, d2 | 1 << b, place)
            place.pop()
    rec(0, 0, 0, 0, [])
    return out

def run(n, f):
    h = n // 2
    odd = n % 2
    S = sum(f(x) for x in range(n))
    def D_of(sumf, fmid):  # 2*sum f(X) + f(mid) - S
        return 2 * sumf + fmid - S
    sol = Counter(); pairs = Counter()
    for E in itertools.combinations(range(n), h):
        Es = set(E)
        mids = [m for m in range(n) if m not in Es] if odd else [None]
        L = halves(n, E, h)
        for m in mids:
            rest = [r for r in range(n) if r not in Es and r != m]
            dE = abs(D_of(sum(f(x) for x in E), f(m) if odd else 0))
            R = halves(n, rest, h)  # as left half-boards; mirrored: col c -> n-1-c
            # bottom rows: r >= h (even) or r > h (odd); middle row h (odd)
            def contrib(hb, mirror):
                s2 = 0; fm = 0
                for r, c in hb.items():
                    col = n - 1 - c if mirror else c
                    if odd and r == h: fm += f(col)
                    elif r >= h + odd: s2 += f(col)
                return s2, fm
            cL = Counter(contrib(x, False) for x in L)
            cR = Counter(contrib(x, True) for x in R)
            midc = (0, 0)
            if odd:
                if m == h: midc = (0, f(h))
                elif m > h: midc = (f(h), 0)
            for (a, fa), na in cL.items():
                for (b, fb), nb in cR.items():
                    dF = abs(D_of(a + b + midc[0], fa + fb + midc[1]))
                    pairs[(dF > dE) - (dF < dE)] += na * nb
            # solutions
            for l in L:
                ld1 = {r - c for r, c in l.items()}; ld2 = {r + c for r, c in l.items()}
                if odd:
                    if (m - h) in ld1 or (m + h) in ld2: continue
                for rr in R:
                    ok = True
                    pts = [(r, n - 1 - c) for r, c in rr.items()]
                    if odd: pts.append((m, h))
                    d1 = set(ld1); d2 = set(ld2)
                    for r, c in pts:
                        if r - c in d1 or r + c in d2: ok = False; break
                        d1.add(r - c); d2.add(r + c)
                    if not ok: continue
                    q = dict(l); q.update({r: n - 1 - c for r, c in rr.items()})
                    if odd: q[m] = h
                    s2 = sum(f(q[r]) for r in range(h + odd, n))
                    fm = f(q[h]) if odd else 0
                    dF = abs(D_of(s2, fm))
                    sol[(dF > dE) - (dF < dE)] += 1
    return sol, pairs

fs = {
  'outer': lambda n: (lambda x: int(min(x, n - 1 - x) < n // 4)),
  'dist': lambda n: (lambda x: min(x, n - 1 - x)),
  'dist2': lambda n: (lambda x: min(x, n - 1 - x) // 2),
}
for n in map(int, sys.argv[1:]):
    for name, mk in fs.items():
        sol, pairs = run(n, mk(n))
        ts, tp = sum(sol.values()), sum(pairs.values())
        print(f"n={n} f={name} solutions={ts} skipped={sol[-1]/ts:.3f} tie={sol[0]/ts:.3f} "
              f"pairs={tp} skipped={pairs[-1]/tp:.3f} tie={pairs[0]/tp:.3f} "
              f"check={sol[1]*2+sol[0]}", flush=True)

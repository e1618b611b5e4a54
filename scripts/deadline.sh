# The clock of a script that must end by a deadline (the device scripts: a lease's command
# has a time limit, and what it measured before then must come back). Source it once
# `deadline` (seconds) is set: it starts the clock now. Needs bash 5 (EPOCHREALTIME) and awk.
t0=$EPOCHREALTIME
# Whole seconds since the clock started.
elapsed() { awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%d", b - a}'; }
# Whole seconds left before the deadline.
left() { echo $((deadline - $(elapsed))); }

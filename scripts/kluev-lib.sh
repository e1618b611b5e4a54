# Kluev's counter for the lent-machine scripts (device-sweep.sh, device-ab.sh); source it. Unlike
# lib.sh it needs no cargo: a lent machine has none.

# kluev_build KLUEV_SH KLUEV_GIT_DIR KLUEV_FALLBACK OUT_DIR N...: one binary per n in OUT_DIR
# (emptied first), built by the anchor script KLUEV_SH (-march=native), or copied from
# KLUEV_FALLBACK's kluev-N (-march=x86-64-v3) where that fails; the global associative array
# `kbuild` gets each n's build (native or x86-64-v3) for its rows' label. The build's output
# goes to stderr.
declare -A kbuild
kluev_build() {
  local ksh=$1 kgit=$2 kfall=$3 kdir=$4 n
  shift 4
  rm -rf "$kdir" && mkdir -p "$kdir"
  bash "$ksh" "$kgit" "$kdir" "$@" >&2 || echo "kluev.sh failed: the fallback's binaries stand in" >&2
  for n in "$@"; do
    kbuild[$n]=native
    if [ ! -x "$kdir/kluev-$n" ]; then cp "$kfall/kluev-$n" "$kdir/" && kbuild[$n]=x86-64-v3; fi
  done
}

#!/usr/bin/env bash
# tests/mpi/node2.sh - a second machine, as far as a device rank can tell,
# on this one (tests/mpi.sh, as root): mpirun starts its daemon there
# through this script as its remote shell (plm_rsh_agent, in place of ssh),
# inside its own network namespace (reached from the host over a veth pair,
# TCP only), pid namespace and /proc (the host's processes are not there),
# UTS namespace (host name "node2") and mount namespace with empty /tmp,
# /dev/shm and NODE2_HIDE folders (the program's binary is not there: its
# images must come over MPI). The rest of the file system (the build, Open
# MPI) is shared, as the same install on every machine is.
#   node2.sh up        make namespace simdevice-node2, host 10.231.0.1,
#                      node2 10.231.0.2 (one at a time: callers hold a lock
#                      on /tmp/simdevice-node2.lock); 1 when it cannot
#   node2.sh down      remove them
#   node2.sh HOST CMD  the agent: run the daemon's command line CMD (a
#                      shell's, as ssh gets it) "on" node2
set -u
NS=simdevice-node2
HOST_IF=sdnode2-h
NODE_IF=sdnode2-n

case "${1:-}" in
up)
  "$0" down 2>/dev/null
  ip netns add $NS &&
    ip link add $HOST_IF type veth peer name $NODE_IF &&
    ip link set $NODE_IF netns $NS &&
    ip addr add 10.231.0.1/24 dev $HOST_IF && ip link set $HOST_IF up &&
    ip netns exec $NS ip addr add 10.231.0.2/24 dev $NODE_IF &&
    ip netns exec $NS ip link set $NODE_IF up &&
    ip netns exec $NS ip link set lo up
  ;;
down)
  ip link del $HOST_IF 2>/dev/null
  ip netns del $NS 2>/dev/null
  exit 0
  ;;
*)
  shift # (the host name: there is one other machine)
  root=$(cd "$(dirname "$0")/../.." && pwd)
  # A tree under /tmp (a CI checkout) stays where it is: bound aside before
  # /tmp is emptied, and back after (the aside folder goes again).
  # shellcheck disable=SC2016 # expanded by the inner shell
  exec ip netns exec $NS unshare --uts --mount --pid --fork --mount-proc \
    --propagation private sh -c '
      root=$1 keep=
      hostname "${NODE2_NAME:-node2}" || exit 1
      case $root in /tmp/*)
        keep=$(mktemp -d /run/simdevice-node2.XXXXXX) && mount --bind "$root" "$keep" || exit 1 ;;
      esac
      mount -t tmpfs tmpfs /tmp && mount -t tmpfs tmpfs /dev/shm || exit 1
      if [ -n "$keep" ]; then
        mkdir -p "$root" && mount --bind "$keep" "$root" && umount "$keep" && rmdir "$keep" || exit 1
      fi
      for d in ${NODE2_HIDE:-}; do mount -t tmpfs tmpfs "$d" || exit 1; done
      exec sh -c "$0"' "$*" "$root"
  ;;
esac

#!/usr/bin/env bash
# tests/mpi/remote_run.sh PROGRAM [ARGS...] - run PROGRAM with its simdevice
# devices remote: under mpirun, MPMD, the program as rank 0 and one
# simdevice-mpi-server rank per device it would have had locally
# (SIMDEVICE_NUM_DEVICES, default 1), the local simdevice plugin given no
# device. The PROGRAMS_SIMTARGET_RUNNER of tests/programs.sh for tests/mpi.sh.
#   MPI_RUN_MODE=spawn: instead the plugin spawns the device ranks
#   (SIMDEVICE_MPI_SPAWN), the program run without mpirun (a singleton).
#   MPI_DEVICE_HOST=NAME: the device ranks run on host NAME (MPMD: --host;
#   spawned: SIMDEVICE_MPI_HOSTS), the program on this one; how mpirun
#   reaches NAME is Open MPI's settings' (OMPI_MCA_plm_rsh_agent, ...).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
# MPI_TEST_LIBDIR: the simtarget under test (default build/lib)
server=${MPI_TEST_LIBDIR:-$root/build/lib}/simdevice/simdevice-mpi-server
devices=${SIMDEVICE_NUM_DEVICES:-1}
export SIMDEVICE_NUM_DEVICES=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's own chatter about other helpers' shared memory segments and
# this machine's interfaces is none of the program's output.
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
# The second machine of tests/mpi/node2.sh (10.231.0.0/24) is made and
# removed by another tests/mpi.sh, maybe while this runs: a TCP link to an
# address that vanished hangs (seen), so only runs meant for it use it.
if [ -z "${OMPI_MCA_btl_tcp_if_include:-}" ] && [ -z "${OMPI_MCA_btl_tcp_if_exclude:-}" ]; then
  export OMPI_MCA_btl_tcp_if_exclude=127.0.0.1/8,sppp,10.231.0.0/24
fi
if [ -z "${OMPI_MCA_oob_tcp_if_include:-}" ] && [ -z "${OMPI_MCA_oob_tcp_if_exclude:-}" ]; then
  export OMPI_MCA_oob_tcp_if_exclude=10.231.0.0/24
fi
if [ "${MPI_RUN_MODE:-mpmd}" = spawn ]; then
  export SIMDEVICE_MPI_SPAWN=$devices OMPI_MCA_rmaps_base_oversubscribe=1
  [ -n "${MPI_DEVICE_HOST:-}" ] && export SIMDEVICE_MPI_HOSTS=$MPI_DEVICE_HOST
  exec "$@"
fi
# Every variable the program would see reaches its rank (-x NAME).
xs=()
while IFS= read -r name; do
  xs+=(-x "$name")
done < <(env | sed -n -E 's/^((SIMDEVICE|SIMTARGET|LIBOMPTARGET|OMP|KMP|LD_LIBRARY)[A-Z0-9_]*)=.*/\1/p')
if [ "$devices" -le 0 ]; then
  exec mpirun --oversubscribe -q "${xs[@]}" -np 1 "$@"
fi
if [ -n "${MPI_DEVICE_HOST:-}" ]; then
  exec mpirun --oversubscribe -q "${xs[@]}" --host "$(hostname)" -np 1 "$@" : \
    --host "$MPI_DEVICE_HOST" -np "$devices" "$server"
fi
exec mpirun --oversubscribe -q "${xs[@]}" -np 1 "$@" : -np "$devices" "$server"

#!/bin/sh
# A SIMDEVICE_WRAPPER that, like Valgrind, writes its last words after the
# device server has ended (its summary), 2 s later: the plugin must let it
# finish, not kill it. Usage: slow_exit_wrapper.sh MARK SERVER ARGS...
mark=$1; shift
"$@"
status=$?
sleep 2
echo "wrapper finished, server status $status" >"$mark"
exit "$status"

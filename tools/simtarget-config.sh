#!/bin/sh
echo "simtarget-config: TODO" >&2; exit 1

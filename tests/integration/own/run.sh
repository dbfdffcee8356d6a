#!/bin/sh
# A workload script with the handshake (tests/integration/t-own-disk.sh):
# 5 s of set-up and 5 s of clean-up around a 3 s measured phase, so that
# time.elapsed_s tells the phase from the whole process.
set -e
sleep 5
bytes=$(wc -c < input.bin)
echo ready >&3
read go <&4
stress-ng --vm 1 --vm-bytes 32M --timeout 3s --quiet 3>&- 4>&-
echo done >&3
read go <&4
sleep 5
echo "input_bytes $bytes"
echo "phase $go"

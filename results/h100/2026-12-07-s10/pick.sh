#!/usr/bin/env bash
# Chooses the round's parts by the card that came: H200_PARTS on an H200, else H100_PARTS.
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then parts=$H200_PARTS; else parts=$H100_PARTS; fi
echo "parts: $parts"
exec bash .carry/r10.sh $parts

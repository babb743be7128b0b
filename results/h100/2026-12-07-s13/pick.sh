#!/usr/bin/env bash
# Chooses the round by the card that came: r12.sh $H200_PARTS on an H200, else r12.sh $H100_PARTS.
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then echo "H200 parts: $H200_PARTS"; exec bash .carry/r12.sh $H200_PARTS; fi
echo "H100 parts: $H100_PARTS"; export ATTENTION_BATCHES=${H100_ATTENTION_BATCHES:-$ATTENTION_BATCHES} LIMIT=${H100_LIMIT:-$LIMIT} CAP=${H100_CAP:-$CAP}; exec bash .carry/r12.sh $H100_PARTS

#!/bin/sh
# bench/channel-pacing-model.js over executors of unequal speed and work with gaps, three seeds each.
# usage: bench/channel-pacing-sweep.sh [model args, e.g. --tell-rate off --hear-fall off]
# One line per configuration: each seed's time over limit-bound, in brackets its 429s after the first 10 s.
cd "$(dirname "$0")/.."
for cap in Infinity 12000 15000,8000 8000,15000 12000,9000; do
  for skew in 0.5 0.6 0.7; do
    line="skew $skew cap $cap:"
    for seed in 1 2 3; do
      r=$(node bench/channel-pacing-model.js --skew $skew --sender-max $cap --alone-max 24000 --seed $seed "$@")
      pct=$(echo "$r" | sed 's/.*limit-bound (\([^ ]*\) %).*/\1/')
      after=$(echo "$r" | sed 's/.*after 10 s \([0-9]*\) of.*/\1/')
      line="$line $pct($after)"
    done
    echo "$line"
  done
done
for gap in 150 500; do
  for skew in 0.5 0.6; do
    line="skew $skew units of 40, $gap ms gaps:"
    for seed in 1 2 3; do
      r=$(node bench/channel-pacing-model.js --skew $skew --unit-batches 40 --unit-gap-ms $gap --seed $seed "$@")
      pct=$(echo "$r" | sed 's/.*limit-bound (\([^ ]*\) %).*/\1/')
      after=$(echo "$r" | sed 's/.*after 10 s \([0-9]*\) of.*/\1/')
      line="$line $pct($after)"
    done
    echo "$line"
  done
done

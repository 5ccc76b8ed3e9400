#!/usr/bin/env bash
# One GPU-machine session's measurements for the GPU MSM (docs/gpu.md "Figures"), as one prepared command: the
# shipped kernels with and without the GLV split and with other limb sizes (w = 16 and 14: one H200 run had w = 16 4-7%
# faster for BN254, not enough to ship it) side by side, the small sizes' knobs (reduce runs, windows), G2, and the
# field product's shapes (Karatsuba, product scanning, unrolled: no faster in the whole MSM on 2026-11-28).
# Each step writes its table to $OUT/<step>.txt (the device tool collects $OUT), with its stderr beside it, and its
# exit status and clock to $OUT/clock.txt; a step that fails or runs out of time leaves the others' tables.
#
#   bash ../shared/device/prepare.sh                     # here: .device/ (Node 24, Dawn, npm pack of this checkout)
#   bash bench/gpu-session.sh                            # on the GPU machine, from the checkout, .device/ carried
#   bash bench/gpu-session.sh small                      # here, on SwiftShader at tiny sizes: proves the script runs
#   STEPS="kernels field" bash bench/gpu-session.sh      # only these steps (of kernels, small, g2, field)
set -u
STEPS=" ${STEPS:-kernels small g2 field} "
OUT=${OUT:-/tmp/gpu-session}
mkdir -p "$OUT"
ROOT=$(pwd)
if [ "${1:-}" = small ]; then
  NODE=${NODE:-node}; LIB=$ROOT; S1=5; S2=6; T=2; RUNS=1
  # (SwiftShader's compiler crashes (SIGSEGV) on some MSM modules, those with an unrolled product and BLS12-381's
  # Karatsuba one: here BN254 with the loop shape only)
  VARIANTS=16:loop,14:loop; CURVES=bn254
  FIELD=(--swiftshader --chains 64 --steps 2 --runs 1 --warm-ms 1)
  export VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-/usr/lib/chromium/vk_swiftshader_icd.json}
else
  bash .device/setup.sh > "$OUT/setup.txt" 2>&1 || { echo "setup failed" >> "$OUT/clock.txt"; exit 1; }
  NODE=/tmp/dev/node-gpu; LIB=/tmp/dev/wasmsm; S1=16; S2=20; T=16; RUNS=7; FIELD=()
  VARIANTS=16:loop,14:loop; CURVES=bn254,bls12-381
  cp -r bench "$LIB/" # (npm pack leaves bench/ out)
fi
cd "$LIB" || exit 1

step() {
  local name=$1 limit=$2
  shift 2
  case "$STEPS" in *" $name "*) ;; *) return ;; esac
  date +%T >> "$OUT/clock.txt"
  timeout "$limit" "$NODE" "$@" > "$OUT/$name.txt" 2> "$OUT/$name.err"
  echo "$name: exit $?" >> "$OUT/clock.txt"
}
EVAL=(scripts/evaluate-msm.js --gpu --check-size 0 --threads "$T")

step kernels 240 "${EVAL[@]}" --gpu-no-glv --gpu-variants "$VARIANTS" \
  --curve "$CURVES" --sizes "$S1,$S2" --runs "$RUNS"
step small 90 "${EVAL[@]}" --gpu-threads 16:14:2,16:14:8,16:14:16 --gpu-windows 12 --curve bn254 --sizes "$S1" --runs "$RUNS"
step g2 150 "${EVAL[@]}" --group g2 --gpu-no-glv --curve bn254 --sizes "$S1" --runs "$RUNS"
step field 120 bench/gpu-field.js --w 13 --variants loop,unrolled,product,karatsuba,sqr-scanning "${FIELD[@]}"
date +%T >> "$OUT/clock.txt"

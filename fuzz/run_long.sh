#!/usr/bin/env bash
# Longer libFuzzer runs that accumulate: each target fuzzes for MINUTES
# minutes from its kept corpus (fuzz/work/<target>/corpus, seeded from the
# committed seeds on the first run), keeps what it finds there, copies
# crashes to fuzz/work/<target>/crashes/, and appends its executions to
# fuzz/work/executions.tsv. The closing table sums every run so far, which
# is the figure docs/fuzzing.md reports.
#   bash fuzz/run_long.sh BUILD_DIR MINUTES [TARGET...]
set -euo pipefail
build=${1:?build dir (make fuzz builds build-fuzz)}
minutes=${2:?minutes per target}
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
# A small ASan quarantine: its default 256 MiB alone would fill half of the
# 512 MiB RSS limit that makes a size-driven allocation a finding.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=32}
work="$root/fuzz/work"
mkdir -p "$work"
ledger="$work/executions.tsv"
[ -f "$ledger" ] || printf 'date\ttarget\tseconds\texecutions\tcorpus_files\tcrashes\n' >"$ledger"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(find "$build/fuzz" -maxdepth 2 -type f -name '*_fuzz' -perm -u+x -printf '%f\n' | sort)
fi
status=0
for name in "${targets[@]}"; do
  bin=$(find "$build/fuzz" -maxdepth 2 -type f -name "$name" -perm -u+x | head -1)
  [ -n "$bin" ] || { echo "fuzz-long: no target $name in $build"; exit 2; }
  corpus="$work/$name/corpus"; crashes="$work/$name/crashes"
  mkdir -p "$corpus" "$crashes"
  seeds=()
  for d in "$root/fuzz/corpus/$name" "$root/fuzz/codec/corpus/$name" "$root/fuzz/convert/corpus/$name"; do
    [ -d "$d" ] && seeds+=("$d")
  done
  [ "$name" = reader_fuzz ] && seeds+=("$root/tests/golden" "$root/tests/corrupt")
  log="$work/$name/last.log"
  echo "fuzz-long: $name for ${minutes} min"
  rc=0
  "$bin" -max_total_time=$((minutes * 60)) -max_len=65536 -rss_limit_mb=512 -malloc_limit_mb=256 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  found=$(find "$crashes" -type f | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%F)" "$name" $((minutes * 60)) "${execs:-0}" \
    "$(find "$corpus" -type f | wc -l)" "$found" >>"$ledger"
  if [ $rc -ne 0 ]; then echo "fuzz-long: $name FAILED (see $log, inputs in $crashes)"; status=1; fi
done

echo
echo "executions so far (fuzz/work/executions.tsv):"
printf "%-22s %14s %10s %8s\n" target executions seconds crashes
awk -F'\t' 'NR > 1 { e[$2] += $4; s[$2] += $3; c[$2] = $6 }
  END { for (t in e) printf "%-22s %14d %10d %8d\n", t, e[t], s[t], c[t] }' "$ledger" | sort
exit $status

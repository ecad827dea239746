#!/usr/bin/env bash
# Short libFuzzer run of every target built in the given build dir: seeds
# from fuzz/corpus/<target>, tests/golden and tests/corrupt; a crash fails.
set -euo pipefail
build=${1:-build-fuzz}
seconds=${FUZZ_SECONDS:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
# A small ASan quarantine: its default 256 MiB alone would fill half of the
# 512 MiB RSS limit that makes a size-driven allocation a finding.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=32}
status=0
for bin in $(find "$build/fuzz" -maxdepth 2 -type f -name '*_fuzz' -perm -u+x | sort); do
  name=$(basename "$bin")
  work=$(mktemp -d)
  seeds=()
  for d in "$root/fuzz/corpus/$name" "$root/fuzz/codec/corpus/$name" "$root/fuzz/convert/corpus/$name"; do [ -d "$d" ] && seeds+=("$d"); done
  if [ "$name" = reader_fuzz ]; then
    for d in "$root/tests/golden" "$root/tests/corrupt"; do [ -d "$d" ] && seeds+=("$d"); done
  fi
  echo "fuzz: $name for ${seconds}s"
  # Memory limits: an allocation sized by a frame's declared length, past the
  # decoder's checks, is a finding (the codec targets decode with max_output
  # 64 MiB, fuzz/codec/fuzz_limits.h).
  if ! "$bin" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=512 -malloc_limit_mb=256 -timeout=10 \
        -artifact_prefix="$work/" "$work" "${seeds[@]}" >"$work/log" 2>&1; then
    echo "fuzz: $name FAILED"; tail -40 "$work/log"; status=1
  else
    grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$work/log" | tail -1 || true
  fi
  rm -rf "$work"
done
exit $status

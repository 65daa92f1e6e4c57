#!/usr/bin/env bash
# Runs each libFuzzer target for SECONDS on a scratch copy of its seed corpus (Fuzz/Corpus/<target>),
# so the repository's corpus only changes when FUZZ_MERGE=1 asks for it. Exits non-zero if any target
# crashed; the crash file is kept under $FUZZ_WORK/<target>/ (docs/security.md says how to replay it).
# Usage: scripts/fuzz.sh SECONDS   (after `swift build --package-path Fuzz ...`, see the Makefile)
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz.sh SECONDS}
bin=${FUZZ_BIN:-Fuzz/.build/debug}
work=${FUZZ_WORK:-Fuzz/.work}
targets=${FUZZ_TARGETS:-http1 http1-response apns-json server-json legacy}
failed=()
for target in $targets; do
  # A command-2 frame may be 2.2 KB; room for a few in one input.
  max_len=4096; [ "$target" = legacy ] && max_len=8192
  dir="$work/$target"
  rm -rf "$dir" && mkdir -p "$dir/corpus" "$dir/artifacts"
  cp Fuzz/Corpus/"$target"/* "$dir/corpus/"
  # -timeout: an input taking seconds is a hang worth reporting; the parsers take microseconds.
  if "$bin/fuzz-$target" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$dir/artifacts/" "$dir/corpus" >"$dir/log.txt" 2>&1; then
    echo "fuzz-$target: no crash in ${seconds}s ($(awk '/^#[0-9]+[[:space:]]+DONE/ {
      sub("#", "", $1); print $1 " runs, " $12 " exec/s, cov " $4 }' "$dir/log.txt"))"
  else
    failed+=("$target")
    tail -n 40 "$dir/log.txt"
    echo "fuzz-$target: FAILED; input in $dir/artifacts/: $(ls "$dir/artifacts")"
  fi
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    # Only inputs that add coverage join the seed corpus.
    "$bin/fuzz-$target" -merge=1 -max_len="$max_len" Fuzz/Corpus/"$target" "$dir/corpus" >"$dir/merge.txt" 2>&1 \
      || { echo "fuzz-$target: merge failed, see $dir/merge.txt"; failed+=("$target-merge"); }
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzzing failed: ${failed[*]}"; exit 1; }

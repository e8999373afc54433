#!/usr/bin/env bash
# count-boards.sh counts the game tree of every m,n,k board of MIN to MAX
# cells (rows <= cols: a board and its transpose have the same tree) and
# every k from 1 to the longer side, two ways: the level count
# (analyze mnk count --method levels) and the plain forward count
# (--method forward), which share no counting code. It writes each report
# as JSON to OUT/<rows>x<cols>k<k>.<method>.json, skips a report already
# there (the script resumes where it stopped), compares the two reports of
# each board field by field and prints one line a board: its games,
# positions, value, the seconds of each way, and "agree" or the fields that
# differ (then it exits 1 at the end).
#
# Usage: scripts/count-boards.sh [MIN [MAX]]   (cells; default 17 21)
# Environment:
#   OUT=DIR        where the reports go (default counts/)
#   ANALYZE=CMD    the analyze command (default: go run ./cmd/analyze)
#   ARGS="..."     more flags for both counts (--nats URL, --memory 2GiB)
#   METHODS="..."  the ways to count (default "levels forward"; forward
#                  needs the memory of the largest ply: about 8 GiB on 4x5)
#   BOARDS="..."   count only these boards of MIN to MAX cells (e.g.
#                  "4x5 3x6"; default every one)
# Needs bc and python3.
set -euo pipefail

min=${1:-17}
max=${2:-21}
out=${OUT:-counts}
analyze=${ANALYZE:-go run ./cmd/analyze}
methods=${METHODS:-levels forward}
mkdir -p "$out"
status=0
for ((cells = min; cells <= max; cells++)); do
	for ((rows = 1; rows * rows <= cells; rows++)); do
		((cells % rows == 0)) || continue
		cols=$((cells / rows))
		if [ -n "${BOARDS:-}" ] && [[ " $BOARDS " != *" ${rows}x${cols} "* ]]; then
			continue
		fi
		for ((k = 1; k <= cols; k++)); do
			board="${rows}x${cols}k${k}"
			line="$board"
			for m in $methods; do
				f="$out/$board.$m.json"
				if [ ! -s "$f" ]; then
					start=$(date +%s.%N)
					# shellcheck disable=SC2086
					$analyze mnk count --board "${rows}x${cols}" -k "$k" --method "$m" --json --quiet ${ARGS:-} >"$f.tmp"
					mv "$f.tmp" "$f"
					printf "%.1f\n" "$(echo "$(date +%s.%N) - $start" | bc)" >"$f.seconds"
				fi
				line="$line $m $(cat "$f.seconds" 2>/dev/null || echo '?') s"
			done
			# shellcheck disable=SC2086
			line="$line $(python3 - "$out/$board" $methods <<'PY'
import json, sys
# Python's integers keep every digit of the counts (jq's doubles do not).
base, methods = sys.argv[1], sys.argv[2:]
reps = [json.load(open(f"{base}.{m}.json")) for m in methods]
a = reps[0]
words = [f"games {a['games']:,} positions {a['positions']:,} value {a.get('value', '-')}"]
fields = ["board", "rows", "cols", "k", "nodes", "games", "x_wins", "o_wins", "draws", "games_by_length",
          "positions", "canonical_positions", "positions_by_ply", "terminal_positions", "terminal_by_result",
          "canonical_terminal_positions", "canonical_terminal_by_result"]
bad = False
for m, b in zip(methods[1:], reps[1:]):
    diff = [f for f in fields if a.get(f) != b.get(f)]
    words.append(f"{m}: DIFFER in {' '.join(diff)}" if diff else f"{m}: agree")
    bad = bad or bool(diff)
print(" ".join(words))
sys.exit(1 if bad else 0)
PY
)" || status=1
			echo "$line"
		done
	done
done
exit $status

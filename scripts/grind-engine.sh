#!/usr/bin/env bash
# grind-engine.sh counts the instructions and mispredicted branches of the
# Sudoku engine's benchmarks under valgrind's cachegrind, for one or two
# revisions: counts that, unlike timings, do not change with whatever else
# the machine runs, so a change of a few percent shows on a shared machine.
#
# Each revision's test binary is built in a temporary worktree (the work
# tree itself for "."), then run once per benchmark with -test.benchtime 1x
# (one pass over the corpus; loading the corpus is included and the same
# for both), with GOMAXPROCS=1 and GOGC=off so that the runtime's
# scheduler and collector add the same few instructions to every run.
# Cachegrind's branch simulator is not the machine's predictor, but the
# branches it misses are the ones worth removing.
#
# Usage: scripts/grind-engine.sh [REV [REV]]    (default: HEAD and the work tree)
# Environment:
#   BENCH='^Benchmark(Royle17|Serg)$'   the benchmarks (one cachegrind run each)
#   TOP=8                                 functions listed per run
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-'^Benchmark(Royle17|Serg)$'}
top=${TOP:-8}
revs=("$@")
if [ ${#revs[@]} -eq 0 ]; then
	revs=(HEAD .)
fi
command -v valgrind >/dev/null || {
	echo "grind-engine.sh: valgrind is not installed (apt-get install valgrind)" >&2
	exit 2
}

tmp=$(mktemp -d)
trap 'cd "$root"; for w in "$tmp"/wt-*; do [ -d "$w" ] && git worktree remove --force "$w"; done; rm -rf "$tmp"' EXIT

n=0
for rev in "${revs[@]}"; do
	n=$((n + 1))
	if [ "$rev" = . ]; then
		src=$root
		label="work tree"
	else
		src=$tmp/wt-$n
		git -C "$root" worktree add -q --detach "$src" "$rev"
		label="$rev ($(git -C "$root" rev-parse --short "$rev"))"
	fi
	(cd "$src/pkg/engine/sudoku" && go test -c -o "$tmp/$n.test" .)
	# The benchmarks read the corpora relative to the package directory.
	cd "$root/pkg/engine/sudoku"
	for b in $("$tmp/$n.test" -test.list "$bench"); do
		GOMAXPROCS=1 GOGC=off valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes \
			--cachegrind-out-file="$tmp/$n.$b.out" "$tmp/$n.test" -test.run '^$' \
			-test.bench "^$b\$" -test.benchtime 1x >"$tmp/$n.$b.log" 2>&1
		echo "== $label, $b"
		grep -E 'guesses/puzzle' "$tmp/$n.$b.log" | grep -oE '[0-9.]+ guesses/puzzle' || true
		cg_annotate --show=Ir,Bcm "$tmp/$n.$b.out" 2>/dev/null | perl -ne '
			BEGIN { $top = '"$top"'; $k = 0 }
			s/\(\s*[\d.]+%\)//g;
			if (/^\s*([\d,]+)\s+([\d,]+)\s+PROGRAM TOTALS/) { print "instructions $1, mispredicts $2\n"; next }
			if (/^\s*([\d,]+)\s+([\d,]+)\s+\S*:(\S+)$/ && $k < $top) {
				($i, $m, $f) = ($1, $2, $3); $f =~ s{github.com/woprlabs/wopr/pkg/engine/}{};
				printf "  %14s %10s  %s\n", $i, $m, $f; $k++ }'
	done
	cd "$root"
done

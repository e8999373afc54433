#!/usr/bin/env bash
# se-rate.sh rates Sudoku puzzles with Sukaku Explainer's batch rater
# (serate), the reference of wopr's rater (pkg/engine/sudoku/rating).
#
# Sukaku Explainer (github.com/SudokuMonster/SukakuExplainer, LGPL) is
# cloned and compiled with javac in a temporary directory that is removed
# at the end; none of its code enters this repository. serate runs with
# its default techniques (those of the Explainer's default settings, up to
# nested forcing chains) on one thread, and prints "puzzle rating" a line,
# in input order, on standard output; a puzzle beyond the Explainer's
# techniques rates 20.0, and one that times out gets "timeout".
#
# Usage: scripts/se-rate.sh FILE...     (81-character puzzles, '.' or '0'
#        for empty cells, the first such field of each line; .gz allowed)
# Environment:
#   SE_REPO=URL     where to clone the Explainer from
#                   (default https://github.com/SudokuMonster/SukakuExplainer)
#   SE_REV=REV      the revision to build (default: the clone's HEAD)
#   TIMEOUT=SECONDS per puzzle; set, each puzzle runs in a JVM of its own
#                   (the nested forcing chains of a puzzle rated 10 and up
#                   take the Explainer minutes). Unset: one JVM for all.
#   JAVA_OPTS       options for java (default -Xmx1g)
#   KEEP=1          keep the temporary directory (its path is printed)
# Needs git, java and javac (17 works).
set -euo pipefail

repo=${SE_REPO:-https://github.com/SudokuMonster/SukakuExplainer}
java_opts=${JAVA_OPTS:--Xmx1g}
if [ $# -eq 0 ]; then
	echo "usage: $0 FILE..." >&2
	exit 2
fi

tmp=$(mktemp -d)
if [ "${KEEP:-}" = 1 ]; then
	echo "temporary directory: $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi

git clone -q --no-checkout "$repo" "$tmp/se"
(
	cd "$tmp/se"
	rev=${SE_REV:-HEAD}
	git checkout -q "$rev" -- diuf
	echo "Sukaku Explainer $(git rev-parse --short "$rev")" >&2
)
# The sources are Latin-1; the classes need the resources (HTML, images)
# beside them.
(
	cd "$tmp/se"
	find diuf -name '*.java' >"$tmp/sources"
	javac -nowarn -encoding ISO-8859-1 -d "$tmp/classes" @"$tmp/sources" 2>&1 | grep -v '^Note:' >&2 || true
	find diuf -type f ! -name '*.java' -exec cp --parents {} "$tmp/classes/" \;
)
test -f "$tmp/classes/diuf/sudoku/test/serate.class"

# The puzzles: the first 81-character field of each line.
for f in "$@"; do
	case $f in
	*.gz) gzip -dc "$f" ;;
	*) cat "$f" ;;
	esac
done | awk '{ for (i = 1; i <= NF; i++) if (length($i) == 81) { print $i; next } }' >"$tmp/puzzles"

run() {
	# shellcheck disable=SC2086
	java -Xrs $java_opts -cp "$tmp/classes" diuf.sudoku.test.serate --format='%g %r' --threads=1 "$@"
}
if [ -z "${TIMEOUT:-}" ]; then
	run --input="$tmp/puzzles"
else
	while read -r p; do
		# shellcheck disable=SC2086
		timeout "$TIMEOUT" java -Xrs $java_opts -cp "$tmp/classes" diuf.sudoku.test.serate --format='%g %r' --threads=1 "$p" ||
			echo "$p timeout"
	done <"$tmp/puzzles"
fi

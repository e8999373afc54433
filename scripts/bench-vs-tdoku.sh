#!/usr/bin/env bash
# bench-vs-tdoku.sh measures wopr's Sudoku engine against tdoku side by side,
# one core each, on the same corpora of datasets/sudoku, in alternated rounds.
#
# tdoku (github.com/t-dillon/tdoku) is cloned and built from source in a
# temporary directory that is removed at the end; none of its code enters
# this repository. Its solver (src/solver_dpll_triad_simd.cc, the one its
# benchmark calls "tdoku") is linked into a small driver written here that
# runs it with limit 2 (uniqueness included, as its run_benchmark does
# without -f) over every puzzle of a file, in file order, and times whole
# passes in CPU time and wall time. wopr is measured by the engine's
# benchmarks (BenchmarkRoyle17 and siblings: Classify, limit 2, every solution
# checked) in a test binary built from this work tree.
#
# Each round runs, for each file, tdoku then wopr (the order flips every
# round), each for about SECONDS of CPU time. The report gives, per file, the
# median over rounds of puzzles per CPU-second of each solver, the median of
# the per-round ratios wopr/tdoku, and the guesses a puzzle each solver
# reports. On a shared machine compare CPU-time figures; the wall-time ratio
# is printed beside them.
#
# Usage: scripts/bench-vs-tdoku.sh [FILE...]     (names in datasets/sudoku, without .txt.gz)
# Environment:
#   ROUNDS=5          rounds
#   SECONDS_RUN=2     CPU seconds per solver, file and round (at least one pass)
#   TDOKU_REPO=URL    where to clone tdoku from (default https://github.com/t-dillon/tdoku)
#   TDOKU_REV=REV     the revision to build (default: the clone's HEAD)
#   JSOLVE=1          also run jsolve (tdoku's copy of it, other/jsolve), for scale
#   CXX=g++ CC=gcc    compilers; tdoku is built with -O3 -march=native as its BUILD.sh does
#   KEEP=1            keep the temporary directory (its path is printed)
#   AVX2_ONLY=1       measure as on a processor without AVX-512: tdoku built with
#                     -mno-avx512f, wopr run with GODEBUG=cpu.avx512f=off (its
#                     AVX-512 paths off, the AVX2 and BMI2 ones chosen as usual)
#   SLOW_PEXT=1       with AVX2_ONLY=1, wopr also runs its band assembly
#                     without PEXT and PDEP (WOPR_SUDOKU_NOPEXT=1), as it does
#                     on AMD before Zen 3, where they are microcoded (tdoku
#                     runs as built); SLOW_PEXT=go runs the Go propagation
#                     instead (cpu.bmi2=off), as such processors did before
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-5}
secs=${SECONDS_RUN:-2}
repo=${TDOKU_REPO:-https://github.com/t-dillon/tdoku}
CXX=${CXX:-g++}
CC=${CC:-gcc}
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
	files=(royle17 top1465 forum-hardest-1905-11plus serg-benchmark plb-top50k)
fi

tmp=$(mktemp -d)
if [ "${KEEP:-}" = 1 ]; then
	echo "temporary directory: $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi

# tdoku, without its data.zip (large, and not needed to build).
git clone -q --no-checkout "$repo" "$tmp/tdoku"
(
	cd "$tmp/tdoku"
	rev=${TDOKU_REV:-HEAD}
	git checkout -q "$rev" -- src include other/jsolve other/other_solvers.cc
	echo "tdoku $(git rev-parse --short "$rev")" >"$tmp/tdoku.rev"
)
cat >"$tmp/tdoku/src/build_info.h" <<'EOF'
#define C_COMPILER_ID ""
#define CXX_COMPILER_ID ""
#define C_COMPILER_VERSION ""
#define CXX_COMPILER_VERSION ""
#define C_FLAGS ""
#define CXX_FLAGS ""
EOF
cat >"$tmp/driver.cc" <<'EOF'
// driver FILE SOLVER SECONDS: one warm-up pass, then whole passes over the
// puzzles of FILE (in file order, limit 2) until SECONDS of CPU time; prints
// "puzzles cpu_seconds wall_seconds guesses" for the timed passes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>
#include "all_solvers.h"

static double now(clockid_t c) {
    timespec t;
    clock_gettime(c, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: driver FILE SOLVER SECONDS\n"); return 2; }
    SolverFn *solve = nullptr;
    if (!strcmp(argv[2], "tdoku")) solve = TdokuSolverDpllTriadSimd;
#ifdef JSOLVE
    if (!strcmp(argv[2], "jsolve")) solve = OtherSolverJSolve;
#endif
    if (!solve) { fprintf(stderr, "driver: unknown solver %s\n", argv[2]); return 2; }
    double seconds = atof(argv[3]);
    std::ifstream in(argv[1]);
    std::vector<std::string> puzzles;
    for (std::string line; std::getline(in, line);) {
        if (line.size() >= 81 && line[0] != '#') puzzles.push_back(line.substr(0, 81));
    }
    if (puzzles.empty()) { fprintf(stderr, "driver: no puzzles in %s\n", argv[1]); return 1; }
    char out[82];
    size_t g;
    for (auto &p : puzzles) solve(p.c_str(), 2, 0, out, &g);
    double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC), c1;
    size_t n = 0, guesses = 0, none = 0;
    do {
        for (auto &p : puzzles) {
            if (solve(p.c_str(), 2, 0, out, &g) == 0) none++;
            guesses += g;
        }
        n += puzzles.size();
        c1 = now(CLOCK_PROCESS_CPUTIME_ID);
    } while (c1 - c0 < seconds);
    printf("%zu %.6f %.6f %zu %zu\n", n, c1 - c0, now(CLOCK_MONOTONIC) - w0, guesses, none);
    return 0;
}
EOF

flags=(-O3 -march=native -I"$tmp/tdoku/src")
woprenv=()
if [ "${AVX2_ONLY:-}" = 1 ]; then
	flags+=(-mno-avx512f)
	woprenv=(env GODEBUG=cpu.avx512f=off)
	case "${SLOW_PEXT:-}" in
	1) woprenv=(env GODEBUG=cpu.avx512f=off WOPR_SUDOKU_NOPEXT=1) ;;
	go) woprenv=(env GODEBUG=cpu.avx512f=off,cpu.bmi2=off) ;;
	esac
fi
objs=("$tmp/tdoku/src/solver_dpll_triad_simd.cc" "$tmp/tdoku/src/util.cc")
if [ "${JSOLVE:-}" = 1 ]; then
	$CC -O3 -march=native -c "$tmp/tdoku/other/jsolve/JSolve.c" -o "$tmp/JSolve.o"
	flags+=(-DJSOLVE)
	objs+=("$tmp/tdoku/other/other_solvers.cc" "$tmp/JSolve.o")
fi
echo "building tdoku ($CXX ${flags[*]})" >&2
$CXX -std=c++14 "${flags[@]}" -o "$tmp/driver" "$tmp/driver.cc" "${objs[@]}"

echo "building wopr's engine benchmarks" >&2
(cd "$root" && go test -c -o "$tmp/sudoku.test" ./pkg/engine/sudoku)
woprrev=$(cd "$root" && git describe --always --dirty)

declare -A bench=(
	[royle17]=BenchmarkRoyle17
	[top1465]=BenchmarkTop1465
	[forum-hardest-1905-11plus]=BenchmarkForumHardest1905
	[serg-benchmark]=BenchmarkSerg
	[plb-top50k]=BenchmarkPLBTop50k
	[plb-hard20]=BenchmarkPLBHard20
	[norvig-top95]=BenchmarkNorvigTop95
	[forum-hardest-1106]=BenchmarkForumHardest1106
)
for f in "${files[@]}"; do
	if [ -z "${bench[$f]:-}" ]; then
		echo "bench-vs-tdoku: no wopr benchmark for $f" >&2
		exit 2
	fi
	gzip -dc "$root/datasets/sudoku/$f.txt.gz" >"$tmp/$f.txt"
done

solvers=(tdoku)
if [ "${JSOLVE:-}" = 1 ]; then
	solvers+=(jsolve)
fi

# results: one line per run: round file solver puzzles cpu wall guesses
res="$tmp/results"
: >"$res"
runc() { # solver file round
	local out
	out=$("$tmp/driver" "$tmp/$2.txt" "$1" "$secs")
	echo "$3 $2 $1 $out" >>"$res"
}
runwopr() { # file round
	local out
	out=$(cd "$root/pkg/engine/sudoku" && "${woprenv[@]}" "$tmp/sudoku.test" -test.run '^$' -test.bench "^${bench[$1]}\$" -test.benchtime "${secs}s")
	# BenchmarkX  N  ns/op  guesses/puzzle  puzzles/cpu-s  puzzles/s  B/op  allocs/op
	echo "$out" | awk -v r="$2" -v f="$1" '$1 ~ /^Benchmark/ {
		for (i = 3; i < NF; i++) { v[$(i+1)] = $i }
		printf "%s %s wopr %s %s %s %s %s\n", r, f, v["puzzles/s"] * 1, v["puzzles/s"] / v["puzzles/cpu-s"], 1, v["guesses/puzzle"], v["allocs/op"]
	}' >>"$res"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for ((r = 1; r <= rounds; r++)); do
	for f in "${files[@]}"; do
		if ((r % 2)); then
			for s in "${solvers[@]}"; do runc "$s" "$f" "$r"; done
			runwopr "$f" "$r"
		else
			runwopr "$f" "$r"
			for s in "${solvers[@]}"; do runc "$s" "$f" "$r"; done
		fi
	done
	echo "round $r of $rounds done, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done

# The wopr lines hold puzzles/s (wall) scaled to one second of wall time:
# "puzzles" is the rate, "cpu" the CPU seconds in that second, "wall" 1, and
# guesses a puzzle in place of the total; the tdoku lines hold totals.
echo
echo "wopr $woprrev against $(cat "$tmp/tdoku.rev"), $rounds rounds of about ${secs} CPU-s each, $(date -u +%Y-%m-%d)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
echo "CPU: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), family $(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')"
echo "flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|bmi1|bmi2|popcnt|avx512(f|bw|vl|vbmi|_bitalg)|gfni)$' | sort | tr '\n' ' ')"
if [ "${AVX2_ONLY:-}" = 1 ]; then
	echo "AVX2_ONLY: tdoku built with -mno-avx512f, wopr run with ${woprenv[*]:1}"
fi
echo
awk -v files="${files[*]}" -v solvers="${solvers[*]}" '
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
function commas(x,    s, r) {
	s = sprintf("%.0f", x); r = ""
	while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
	return s r
}
{
	key = $1 SUBSEP $2 SUBSEP $3
	if ($3 == "wopr") { cpu[key] = $4 / $5; wall[key] = $4; gp[$2, $3] = $7 }
	else { cpu[key] = $4 / $5; wall[key] = $4 / $6; gp[$2, $3] = $7 / $4; if ($8 > 0) none[$2, $3] = $8 }
	round[$1] = 1
}
END {
	nf = split(files, F, " "); ns = split(solvers, S, " ")
	printf "| file |"
	for (s = 1; s <= ns; s++) printf " %s /CPU-s |", S[s]
	printf " wopr /CPU-s | wopr / tdoku (CPU) | wopr / tdoku (wall) | guesses a puzzle (tdoku / wopr) |\n|---|"
	for (s = 1; s <= ns; s++) printf "---:|"
	printf "---:|---:|---:|---:|\n"
	for (i = 1; i <= nf; i++) {
		f = F[i]
		printf "| %s |", f
		for (s = 1; s <= ns + 1; s++) {
			name = s <= ns ? S[s] : "wopr"; n = 0
			for (r in round) if ((r, f, name) in cpu) a[++n] = cpu[r, f, name]
			printf " %s |", commas(median(a, n))
		}
		n = 0; m = 0
		for (r in round) if ((r, f, "wopr") in cpu && (r, f, "tdoku") in cpu) {
			a[++n] = cpu[r, f, "wopr"] / cpu[r, f, "tdoku"]
			b[++m] = wall[r, f, "wopr"] / wall[r, f, "tdoku"]
		}
		rc = median(a, n); rw = median(b, m)
		printf " %.2f |", rc
		printf " %.2f |", rw
		printf " %.2f / %.2f |\n", gp[f, "tdoku"], gp[f, "wopr"]
	}
	for (k in none) { split(k, kk, SUBSEP); printf "note: %s found no solution to %d puzzles of %s\n", kk[2], none[k], kk[1] }
}' "$res"
echo
echo "per round (round file solver ...):"
sort -k2,2 -k3,3 -k1n "$res" | awk '{ printf "  %s\n", $0 }'

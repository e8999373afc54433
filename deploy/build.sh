#!/bin/sh
# Builds analyze, coordinator and worker into DIR as static binaries (no
# cgo, so no C library to find at run time), from the module in the current
# directory. The image's build stage runs this script (see Dockerfile), and
# so does deploy/deploy_test.go, which checks that the binaries are static
# and run.
#
# analyze --version names the revision when the source is a git checkout
# with a .git directory and git is installed (-buildvcs=auto); a tree
# without one (an archive, a git worktree) builds all the same, unstamped.
# -trimpath keeps the build machine's paths out of the binaries; -s -w drops
# the symbol table and DWARF (stack traces keep their function names and
# lines).
#
# Usage: deploy/build.sh DIR
set -eu
out=${1:?usage: deploy/build.sh DIR}
mkdir -p "$out"
CGO_ENABLED=0 go build -trimpath -buildvcs=auto -ldflags='-s -w' -o "$out/" \
	./cmd/analyze ./cmd/coordinator ./cmd/worker

# syntax=docker/dockerfile:1
#
# The wopr image: analyze, coordinator and worker as static binaries on
# distroless (no shell, no package manager), running as the non-root user
# nonroot (65532). Build it from the repository's root, which is the build
# context (go.mod, cmd/, pkg/):
#
#   docker build -t wopr .
#   docker run --rm wopr analyze --version
#
# The image has no entrypoint: the command names the binary
# (docker run wopr worker --nats ...). Each process keeps its Badger store
# under WOPR_DATA, /var/lib/wopr, owned by nonroot: mount a volume there.
# docs/operations.md, "Deploying", says more.

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION} AS build
WORKDIR /src
# The modules first, into BuildKit's cache: this step runs again only
# when go.mod or go.sum change.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
# The whole tree, .git included (see .dockerignore), so that analyze
# --version names the revision.
COPY . .
# deploy/build.sh is the build: deploy/deploy_test.go runs the same script.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
	deploy/build.sh /out
# The data directory, to be owned by nonroot in the image: a named volume
# mounted there takes its owner from it.
RUN mkdir /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/analyze /out/coordinator /out/worker /usr/local/bin/
COPY --from=build --chown=65532:65532 /out/data /var/lib/wopr
ENV WOPR_DATA=/var/lib/wopr
USER 65532:65532
WORKDIR /var/lib/wopr
# --metrics-addr :9090, by the convention of deploy/compose.yaml and the
# Helm chart.
EXPOSE 9090
CMD ["analyze", "--help"]

//go:build tools

// This file pins tools that tests build from source (a real nats-server for
// the multi-process tests), so that go.mod and go.sum cover them.
package wopr

import _ "github.com/nats-io/nats-server/v2"

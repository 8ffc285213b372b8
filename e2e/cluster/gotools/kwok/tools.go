//go:build tools

// Package tools pins kwok, which simulates nodes and pod lifecycles, built by e2e/cluster.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"

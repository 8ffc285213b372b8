//go:build tools

// Package tools pins the OCI registry (distribution) used by the chart-source tests.
package tools

import _ "github.com/distribution/distribution/v3/cmd/registry"

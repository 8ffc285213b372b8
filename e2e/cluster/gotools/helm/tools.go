//go:build tools

// Package tools pins the reference helm client, built by e2e/cluster.
package tools

import _ "helm.sh/helm/v3/cmd/helm"

//go:build tools

// Package tools pins the helm command the e2e suite installs the chart with.
package tools

import (
	_ "helm.sh/helm/v4/cmd/helm"
)

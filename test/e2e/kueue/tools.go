//go:build tools

// Package tools pins the Kueue manager the placement benchmark runs as its Kueue TAS arm.
package tools

import (
	_ "sigs.k8s.io/kueue/cmd/kueue"
)

//go:build tools

// Package tools pins the node agents the e2e harness builds: the kubelet and
// kube-proxy, from the same k8s.io/kubernetes as the control plane.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kubelet"
)

"""End-to-end tests and the local Kubernetes control plane they run against."""

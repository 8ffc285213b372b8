"""A real local Kubernetes control plane (etcd, API server, controllers, kwok nodes) for tests."""

from __future__ import annotations

import datetime as dt
from typing import Any

import ulid

from helm_core.storage import release as rel

T0 = dt.datetime(2026, 11, 23, 12, 0, 0, tzinfo=dt.timezone.utc)


def make_version(name: str = "web", *, namespace: str = "demo", version: ulid.ULID | None = None,
                 status: rel.Status = rel.Status.DEPLOYED, **changes: Any) -> rel.ReleaseVersion:
    """A realistic version record for tests."""
    base = rel.ReleaseVersion(
        name=name, namespace=namespace, version=version or rel.new_version(), status=status,
        chart_name="nginx", chart_version="1.2.3", app_version="1.25.0",
        chart_source="https://charts.example.com/nginx-1.2.3.tgz",
        user_values={"replicas": 2, "password": "s3cret"},
        chart_values={"replicas": 2, "password": "s3cret", "image": {"tag": "1.25"}},
        manifest="---\n# Source: nginx/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\n",
        hooks="", notes="Thanks for installing.", description="Install complete",
        first_deployed=T0, last_deployed=T0,
    )
    return base.replace(**changes)

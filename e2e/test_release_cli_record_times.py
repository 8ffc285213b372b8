"""The times helm-core stamps on its own releases print as helm prints those of helm's: helm
stamps Go's ``time.Now()`` (the local zone, nanoseconds) and prints a time in its own zone, so a
release made at one instant by helm, by helm-core in its own storage and by helm-core in helm's
(``--storage helm``) shows its times in the same shape (``TZ=UTC`` and ``TZ=Asia/Kolkata``):
``status`` (LAST DEPLOYED), ``history`` and ``list`` (UPDATED), ``get metadata`` (DEPLOYED_AT),
the times of ``status -o json`` (a hook's last run; ``deleted`` once uninstalled with its history
kept), and in helm's record itself (helm writes its zero time as "")."""
from __future__ import annotations

import base64
import datetime as dt
import gzip
import json
import re
import sys
import zoneinfo
from typing import Any

import pytest

from e2e.conftest import ClusterInfo
from e2e.test_helm_interop import helm  # noqa: F401  (helm: a fixture)
from e2e.test_release_cli_time_zones import STATUS_TIMES, _run, chart, json_times  # noqa: F401  (chart: a fixture)
from helm_core.kube import client as kclient
from helm_core.kube import live
from helm_core.storage import helmsecrets

pytestmark = pytest.mark.e2e

ZONES = ("UTC", "Asia/Kolkata")
MAKERS = ("helm", "core", "hcfh")
"""The releases, named by who makes them: helm; helm-core in its storage; helm-core in helm's
(``--storage helm``). Names of one length: the tables' columns line up alike."""


def shape(text: str) -> str:
    """A time's shape: its digits as 0 but those of its offset (``+05:30``, ``-0700``), a
    fraction of a second (any length: Go drops trailing zeros) as ``.F``."""
    text = re.sub(r"[+-]\d\d:?\d\d\b", lambda m: m[0].translate(_KEEP), re.sub(r"\.\d+", ".F", text))
    return re.sub(r"\d", "0", text).translate(_BACK)


_SUBSCRIPTS = "".join(chr(0x2080 + d) for d in range(10))  # not \d: kept through the masking
_KEEP, _BACK = str.maketrans("0123456789", _SUBSCRIPTS), str.maketrans(_SUBSCRIPTS, "0123456789")


def near_now(ansic: str, tz: str) -> bool:
    """Whether a time printed in Go's ANSIC layout (no zone) is the wall time in ``tz`` now, give
    or take ten minutes (a release made here minutes ago; a time in another zone is hours off)."""
    stamp = dt.datetime.strptime(ansic.strip(), "%a %b %d %H:%M:%S %Y")
    return abs(stamp - dt.datetime.now(zoneinfo.ZoneInfo(tz)).replace(tzinfo=None)) < dt.timedelta(minutes=10)


def _record(client: live.LiveClient, namespace: str, name: str, revision: int) -> dict[str, Any]:
    secret = client.get(kclient.ObjectRef("v1", "Secret", helmsecrets.secret_name(name, revision), namespace))
    return json.loads(gzip.decompress(base64.b64decode(base64.b64decode(secret["data"]["release"]))))


def _record_times(record: dict[str, Any]) -> list[str]:
    info = record["info"]
    return [info["first_deployed"], info["last_deployed"], info["deleted"],
            *(h["last_run"][key] for h in record.get("hooks", ()) for key in ("started_at", "completed_at"))]


@pytest.mark.parametrize("tz", ZONES)
def test_helm_core_stamps_its_releases_times_as_helm_does(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, helm: str, chart: str, tz: str) -> None:  # noqa: F811
    def cli(maker: str, *args: str) -> str:
        command = [helm] if maker == "helm" else [sys.executable, "-m", "helm_core"]
        storage = ["--storage", "helm"] if maker == "hcfh" and args[0] in ("install", "uninstall") else []
        return _run([*command, *args, *storage], cluster, namespace, tz)

    def reader(maker: str) -> str:  # helm reads what is in its format; helm-core its own
        return "core" if maker == "core" else "helm"

    def seen(name: str) -> dict[str, Any]:
        by = reader(name)
        rows = [row.split("\t") for row in cli(by, "list").splitlines()]
        deployed = [line.removeprefix("LAST DEPLOYED:") for line in cli(by, "status", name).splitlines()
                    if line.startswith("LAST DEPLOYED:")]
        updated = [row.split("\t")[1] for row in cli(by, "history", name).splitlines()[1:]]
        assert all(near_now(t, tz) for t in deployed + updated), (name, deployed, updated)  # ANSIC: no zone
        return {
            "status": [shape(t) for t in deployed],
            "history": [shape(t.strip()) for t in updated],
            "list": [shape(row[3].strip()) for row in rows if row[0].strip() == name],
            "metadata": [shape(line) for line in cli(by, "get", "metadata", name).splitlines()
                         if line.startswith("DEPLOYED_AT")],
            "json": [shape(str(t)) for t in json_times(cli(by, "status", name, "-o", "json"), *STATUS_TIMES)],
        }

    def record_times(name: str) -> list[str]:
        return [shape(t) for t in _record_times(_record(hc, namespace, name, 1))]

    for name in MAKERS:
        cli(name, "install", name, chart, "--timeout", "120s")
    theirs = seen("helm")
    assert theirs["status"] and theirs["history"] and theirs["list"] and theirs["metadata"] and theirs["json"]
    assert ".F" in theirs["list"][0]  # helm's own stamp: nanoseconds (what this test is about)
    assert seen("core") == theirs
    assert seen("hcfh") == theirs
    assert record_times("hcfh") == record_times("helm")

    for name in MAKERS:
        cli(name, "uninstall", name, "--keep-history")
    deleted = {name: [shape(str(t)) for t in json_times(cli(reader(name), "status", name, "-o", "json"),
                                                         ("info", "deleted"))] for name in MAKERS}
    assert deleted["core"] == deleted["hcfh"] == deleted["helm"] != [""]
    assert record_times("hcfh") == record_times("helm")

"""Building fixture charts in tests: folders from dicts, and hand-made (also hostile) archives."""
from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path
from typing import Iterable, Mapping


def write_chart(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``files`` (chart-relative path -> content) under ``root`` and return it."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return root


def chart_yaml(name: str = "demo", version: str = "0.1.0", **extra: str) -> str:
    lines = ["apiVersion: v2", f"name: {name}", f"version: {version}"]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    return "\n".join(lines) + "\n"


def tar_entry(name: str, data: bytes = b"", *, kind: bytes = tarfile.REGTYPE,
              linkname: str = "", size: int | None = None) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    info.size = len(data) if size is None else size
    info.mode = 0o644
    return info, data


def make_tgz(entries: Iterable[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for info, data in entries:
            if info.type in (tarfile.REGTYPE, tarfile.AREGTYPE):
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    return buf.getvalue()


def package(files: Mapping[str, str | bytes], top: str = "demo") -> bytes:
    """A well-formed chart archive with every file under ``top/``."""
    return make_tgz(
        tar_entry(f"{top}/{name}", content.encode() if isinstance(content, str) else content)
        for name, content in files.items()
    )


#: The real public charts of ../shared/charts (beside the repository), when present.
SHARED_CHARTS = Path(os.environ.get("HELM_CONTROLLER_SHARED_CHARTS",
                                    Path(__file__).resolve().parents[1].parent / "shared" / "charts"))


def shared_chart_names() -> list[str]:
    """Names of the charts in ../shared/charts; empty when the folder is absent."""
    if not SHARED_CHARTS.is_dir():
        return []
    return sorted(p.name for p in SHARED_CHARTS.iterdir() if (p / "Chart.yaml").is_file())

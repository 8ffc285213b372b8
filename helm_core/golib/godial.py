"""Go's ``net/http`` words for a request that reached no server, as helm and kubectl print them:
``Get "URL": dial tcp HOST:PORT: connect: connection refused``. Shared by the Kubernetes client
(urllib3) and the chart repository client (httpx), which each say which failure it was."""
from __future__ import annotations

import enum
import urllib.parse


class Failure(enum.Enum):
    REFUSED = "refused"
    NO_SUCH_HOST = "no-such-host"
    TIMEOUT = "timeout"


def words(method: str, url: str, failure: Failure) -> str:
    """``Method "url": dial tcp ...`` for ``failure``, as Go's ``*url.Error`` prints it."""
    parsed = urllib.parse.urlsplit(url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    address = f"{parsed.hostname}:{port}" if parsed.hostname and ":" not in parsed.hostname \
        else f"[{parsed.hostname}]:{port}"
    if failure is Failure.NO_SUCH_HOST:
        server = name_server()
        reason = f"dial tcp: lookup {parsed.hostname}{f' on {server}' if server else ''}: no such host"
    elif failure is Failure.REFUSED:
        reason = f"dial tcp {address}: connect: connection refused"
    else:
        reason = f"dial tcp {address}: i/o timeout"
    return f'{method.capitalize()} "{url}": {reason}'


def name_server() -> str:
    """The resolver Go's would have asked (the first ``nameserver`` of /etc/resolv.conf), or ""."""
    try:
        with open("/etc/resolv.conf", encoding="utf-8", errors="replace") as conf:
            for line in conf:
                fields = line.split()
                if len(fields) >= 2 and fields[0] == "nameserver":
                    return f"[{fields[1]}]:53" if ":" in fields[1] else f"{fields[1]}:53"
    except OSError:
        pass
    return ""

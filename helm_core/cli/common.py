"""What the ``helm-core`` commands share: values flags, Lua flags, limit flags, chart
repository credentials.

Apart from the dispatcher (``helm_core.cli``) so the command modules (``release``) use them
without importing the dispatcher that imports them (no import cycle).
"""
from __future__ import annotations

import argparse
import sys

from helm_core.errors import SourceError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from helm_core import sources
    from helm_core.action import template as template_action


#: The namespace attributes :func:`add_values_flags` fills.
VALUES_FLAGS = ("values", "set_json", "set_values", "set_string", "set_file", "set_literal")


def add_values_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("-f", "--values", action="append", default=[], metavar="FILE",
                   help="values file (repeatable; later files win)")
    p.add_argument("--set", dest="set_values", action="append", default=[], metavar="K=V",
                   help="set values on the command line (a.b=c, a={x,y}, a[0]=1)")
    p.add_argument("--set-string", action="append", default=[], metavar="K=V",
                   help="like --set, but values are always strings")
    p.add_argument("--set-file", action="append", default=[], metavar="K=PATH",
                   help="set a value to the content of a file")
    p.add_argument("--set-json", action="append", default=[], metavar="K=JSON",
                   help="set a value to a JSON value")
    p.add_argument("--set-literal", action="append", default=[], metavar="K=V",
                   help="set a value to a literal string (no parsing)")


def values(args: argparse.Namespace) -> dict[str, Any]:
    from helm_core.action import values_options

    return values_options.merge(values_options.ValuesOptions(
        value_files=tuple(args.values),
        set_json=tuple(args.set_json),
        set_values=tuple(args.set_values),
        set_string=tuple(args.set_string),
        set_file=tuple(args.set_file),
        set_literal=tuple(args.set_literal),
    ))


def add_lua_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--accept-perms", action="append", default=[], metavar="PERM[,PERM]",
                   help="Lua permissions the chart may use (network, io, os); see docs/lua.md")
    p.add_argument("-y", "--yes", action="store_true",
                   help="accept every Lua permission the chart asks for")


def add_limit_flags(p: argparse.ArgumentParser) -> None:
    from helm_core.cli import limits as cli_limits
    cli_limits.add_flags(p)


def lua_options(args: argparse.Namespace) -> template_action.LuaOptions:
    """``--accept-perms`` and ``-y`` (whatever the chart asks for, decided once it is read)."""
    from helm_core.action import template as template_action

    accepted: set[str] = set()
    for entry in args.accept_perms:
        accepted.update(p.strip() for p in entry.split(",") if p.strip())
    return template_action.LuaOptions(accepted_permissions=frozenset(accepted), accept_all=args.yes, log=lua_log)


def lua_log(line: str) -> None:
    print(f"lua: {line}", file=sys.stderr)


def add_auth_flags(p: argparse.ArgumentParser) -> None:
    """Credentials and TLS for chart repositories and registries (helm's flag names)."""
    p.add_argument("--username", default="", help="chart repository username")
    p.add_argument("--password", default="", help="chart repository password")
    p.add_argument("--token", default="", help="bearer token (instead of username/password)")
    p.add_argument("--ca-file", default="", help="verify certificates of HTTPS servers using this CA bundle")
    p.add_argument("--cert-file", default="", help="identify with this SSL certificate file")
    p.add_argument("--key-file", default="", help="identify with this SSL key file")
    p.add_argument("--insecure-skip-tls-verify", action="store_true", help="skip TLS certificate checks")
    p.add_argument("--pass-credentials", action="store_true", help="pass credentials to all domains")
    p.add_argument("--plain-http", action="store_true", help="use insecure HTTP connections for OCI")
    p.add_argument("--cache-dir", default="",
                   help="chart cache folder (default $HELM_CORE_CACHE or ~/.cache/helm-core)")


def read_file(path: str) -> bytes:
    if not path:
        return b""
    try:
        with open(path, "rb") as source:
            return source.read()
    except OSError as exc:
        raise SourceError(f"{path}: {exc.strerror}") from None


def chart_cache(args: argparse.Namespace) -> Any:
    """helm-core's chart cache: ``--cache-dir``, else its default root (shared with the controller)."""
    import os

    from helm_core.sources import cache as cache_mod
    return cache_mod.Cache(getattr(args, "cache_dir", "") or cache_mod.default_root(os.environ))


def credentials(args: argparse.Namespace) -> sources.Credentials:
    from helm_core import sources
    return sources.Credentials(
        username=args.username, password=args.password, token=args.token,
        ca_pem=read_file(args.ca_file), cert_pem=read_file(args.cert_file), key_pem=read_file(args.key_file),
        insecure_skip_verify=args.insecure_skip_tls_verify, pass_credentials=args.pass_credentials,
    )


def post_render_options(args: argparse.Namespace) -> Any:
    """``--post-renderers FILE``: ``postRenderers`` and ``commonMetadata`` as a HelmRequest's
    spec (Flux's shapes) holds them."""
    from helm_core.engine import postrender
    from helm_core.errors import PatchError
    from helm_core.golib import goyaml
    if not getattr(args, "post_renderers", None):
        return postrender.NONE
    try:
        with open(args.post_renderers) as spec_file:  # not pathlib: it imports urllib and ipaddress
            spec = goyaml.load(spec_file.read(), source=args.post_renderers) or {}
    except (OSError, ValueError) as exc:
        raise PatchError(f"--post-renderers {args.post_renderers}: {exc}") from None
    if not isinstance(spec, dict) or set(spec) - {"postRenderers", "commonMetadata"}:
        raise PatchError(f"--post-renderers {args.post_renderers}: expected a map with postRenderers "
                         f"and/or commonMetadata")
    return postrender.from_spec(spec.get("postRenderers"), spec.get("commonMetadata"))


def add_schema_flag(p: argparse.ArgumentParser) -> None:
    """helm's ``--skip-schema-validation`` (template, install, upgrade, lint)."""
    p.add_argument("--skip-schema-validation", action="store_true", help="if set, disables JSON schema validation")


def add_post_render_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--post-renderers", metavar="FILE",
                   help="YAML with postRenderers and/or commonMetadata (Flux's shapes) applied after render")


class StringToString(argparse.Action):
    """pflag's ``StringToString`` flag (helm's ``--labels``): ``k=v,k2=v2``; a value with one
    ``=`` is one pair (commas and all, outer quotes trimmed), more are split as a CSV record; a
    second use of the flag adds to the first. A pair without ``=`` is refused in pflag's words."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        text = str(values)
        if "=" not in text:
            raise argparse.ArgumentError(self, self._invalid(text, text))
        if text.count("=") == 1:
            pairs = [text.strip('"')]
        else:
            import csv
            pairs = next(csv.reader([text]))
        parsed: dict[str, str] = {}
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep:
                raise argparse.ArgumentError(self, self._invalid(text, pair))
            parsed[key] = value
        setattr(namespace, self.dest, {**(getattr(namespace, self.dest, None) or {}), **parsed})

    def _invalid(self, text: str, pair: str) -> str:
        """pflag's ``invalid argument "<text>" for "-l, --labels" flag: ...``."""
        from helm_core.golib import gostrconv
        name = ", ".join(self.option_strings)
        return (f"invalid argument {gostrconv.quote(text)} for {gostrconv.quote(name)} flag: "
                f"{pair} must be formatted as key=value")


def add_labels_flag(p: argparse.ArgumentParser, help_text: str) -> None:
    """helm's ``-l/--labels`` of install and upgrade (custom labels of the release's storage)."""
    p.add_argument("-l", "--labels", action=StringToString, default={}, metavar="K=V[,K=V]", help=help_text)

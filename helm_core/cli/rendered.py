"""``helm-core template``'s output in the disk memo: a chart rendered again unchanged is printed
without loading the template engine.

A render that calls no impure template function (:mod:`helm_core.engine.purity`: the clock,
randomness, fresh keys, ``lookup``) is a function of its inputs, so what it printed is kept
under a digest of everything that decides it:

- the code: every file of ``helm_core`` (path, size, modification time), the installed
  distributions (their ``.dist-info`` names carry the versions) and the Python version;
- the chart: every file the loader reads (after ``.helmignore``), or the archive's bytes;
- the user's values once merged (``-f`` files are read, so their contents count);
- the command line: every flag's value, the release name and the namespace, but for where an
  ``--output-dir`` run writes (the folder, ``--release-name``): an ``-o`` run writes the same
  documents as the printed run, so both take one entry.

The entry holds the printed text and, with no ``--show-only``, an index of the documents it is
made of (kind, size, source): an ``--output-dir`` run takes them from the text and writes them
as a render would (``cli._write_output_dir``), deciding against the folder as it is then which
file each document starts or is appended to (a hook's goes after a file an earlier run left).

A render that did call impure functions keeps, under the same digest, the outputs of the
templates that called none (:class:`helm_core.engine.purity.Ledger`), unless a template changed
data the others share: the next identical run renders only the rest (a chart that generates a
password renders its Secret and what includes it, not its Service) and prints a fresh output.
It keeps too how many RSA keys the render made, which the next run starts generating on other
threads before its render asks for them (:mod:`helm_core.gotemplate.funcs.keypool`), and (from
the first run that reads the parts) the chart and values prepared for the render and the kept
outputs' documents (:class:`KeptSources`), which the next runs take instead of loading the chart,
coalescing its values, checking them and decoding the kept outputs again.

Never kept: charts with Lua (``ext/``) or Jinja2 templates, post-renderers, and failures (a
failure is computed again, and worded again, on every run; ``--output-dir`` with ``--show-only``
is one once the files are written, as helm's).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

from helm_core.support import cachekeys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The memo kind of printed outputs.
OUTPUT_MEMO = "template-output"
#: The memo kind of single templates' outputs, kept from renders that called impure functions.
PARTS_MEMO = "template-parts"
#: The memo kind of what those outputs came from and decode to (see KeptSources, pickled).
SOURCES_MEMO = "template-sources"

#: Namespace attributes that are not the user's input (the parser, the command function...),
#: and the flags that tell only where an ``--output-dir`` run writes: what it writes is the
#: printed run's documents, kept with their kinds and sources, and the folder's files are
#: decided again when they are written (a hook is appended to a file an earlier run left).
_NOT_INPUT = frozenset({"parser", "func", "settings", "_path", "command", "output_dir", "release_name"})


class ChartInput:
    """A chart as read from the disk: its files (a folder) or its bytes (an archive)."""

    def __init__(self, source: str, *, files: list[tuple[str, bytes]] | None = None, data: bytes = b"",
                 archive_file: bool = False) -> None:
        self.source = source
        self.files = files
        self.data = data
        self.archive_file = archive_file
        #: :meth:`template_digests` once computed.
        self._digests: list[str | None] | None = None

    def template_digests(self) -> list[str | None]:
        """In ``files``' order, :func:`cachekeys.hexdigest` of each template file's bytes (under
        the chart's or a subchart's ``templates/``), None for the others; computed once. The
        output key reads them, and (:meth:`load`) the templates' parse trees are keyed by them.
        Only templates: a digest of each other file too cost the output key more (ingress-nginx
        has 230 files, 45 of them templates)."""
        assert self.files is not None
        if self._digests is None:
            hasher = cachekeys.hasher  # (cachekeys.hexdigest's, one call less per file)
            self._digests = [hasher(data).hexdigest() if path.startswith("templates/") or "/templates/" in path
                             else None for path, data in self.files]
        return self._digests

    def load(self) -> Any:
        from helm_core.chart import loader

        if self.files is not None:
            chart = loader.load_files(self.files, source=self.source)
            if self._digests is not None:  # the loader keeps the bytes it was given: digested already
                from helm_core.chart import model

                known = {id(data): digest for (_, data), digest in zip(self.files, self._digests, strict=True)
                         if digest is not None}
                for _, template in model.all_template_files(chart):
                    digest = known.get(id(template.data))
                    if digest is not None:
                        template.know_digest(digest)
            return chart
        if self.archive_file:  # read again, and checked to be an archive, by the loader
            return loader.load(self.source)
        return loader.load_archive(self.data, source=self.source)


def read_chart(source: str, data: bytes | None) -> ChartInput:
    """The chart at ``source`` (or in ``data``, fetched), read but not loaded: the files the
    loader reads."""
    if data is not None:
        return ChartInput(source, data=data)
    if os.path.isdir(source):
        from helm_core.chart import folder

        return ChartInput(source, files=folder.read_files(source))
    with open(source, "rb") as archive:
        return ChartInput(source, data=archive.read(), archive_file=True)


def may_keep(args: argparse.Namespace) -> bool:
    """Whether this command line can have its output kept (before the chart is read)."""
    # An output folder with --show-only is an error once the files are written (helm's rule)
    return not (args.post_renderers or args.accept_perms or args.yes or (args.output_dir and args.show_only))


def key(args: argparse.Namespace, name: str, chart: ChartInput, values: dict[str, Any] | None) -> str | None:
    """The digest of everything the output depends on, or None when it cannot be had.
    ``values``: the merged user values, None when the line gives none."""
    identity = code_identity()
    if identity is None:
        return None
    digest = cachekeys.hasher()
    digest.update(identity.encode())
    # Flags are text, numbers, booleans, None and lists of text: their repr is exact.
    flags = sorted((k, v) for k, v in vars(args).items() if k not in _NOT_INPUT)
    digest.update(repr((name, flags)).encode("utf-8", "surrogateescape"))
    if values is not None:  # Go-typed values: pickled, so that types count too
        from helm_core.support import pickling

        try:
            digest.update(pickling.dumps(values, protocol=pickling.HIGHEST_PROTOCOL))
        except Exception:  # noqa: BLE001 - a value pickle cannot hold: no memo
            return None
    if chart.files is not None:
        # A template by its digest, which its parse trees' keys reuse (its path tells it is one).
        for (path, data), template in zip(chart.files, chart.template_digests(), strict=True):
            digest.update(b"%d:%s\0%d:" % (len(path), path.encode("utf-8", "surrogateescape"), len(data)))
            digest.update(data if template is None else template.encode())
    else:
        digest.update(b"archive\0")
        digest.update(chart.data)
    hexdigest: str = digest.hexdigest()
    return hexdigest


class Printed:
    """What a ``template`` run printed: its text, its info lines, and the warnings Helm logs
    (:mod:`helm_core.support.helmlog`) that loading, preparing and rendering the chart gave.
    ``documents``: what an ``--output-dir`` run writes instead of the text, (kind, source, the
    document's bytes as printed) per document in the text's order (:func:`recall` gives them
    when asked to, from the index :func:`keep` stores with the text)."""

    def __init__(self, text: str, info: Sequence[str], said: Sequence[str] = (),
                 documents: list[tuple[str, str, bytes]] | None = None) -> None:
        self.text = text
        self.info = list(info)
        self.said = list(said)
        self.documents = documents


def recall(memo: Any, entry_key: str, *, documents: bool = False) -> Printed | None:
    """What an earlier run printed, or None; with ``documents``, what an ``--output-dir`` run
    writes (``Printed.documents``, the text left empty), or None when the entry has no index."""
    return _printed(memo.get(OUTPUT_MEMO, entry_key), documents)


def keep(memo: Any, entry_key: str, printed: Printed, parts: Sequence[Any] | None = None) -> None:
    """Store what a run printed, in a form read back without pickle; ``parts``: the
    ``template.OutputPart`` list ``printed.text`` is made of (no ``--show-only``), indexed so
    that an ``--output-dir`` run writes them again."""
    index = None
    if parts is not None:
        from helm_core.action import template as template_action

        index = b"\0".join(b"%s %d %s" % (part.kind.encode(), len(template_action.document(
            part.source, part.content).encode("utf-8", "surrogateescape")),
            part.source.encode("utf-8", "surrogateescape")) for part in parts)
    memo.put(OUTPUT_MEMO, entry_key, _printable(printed, index))


def _printable(printed: Printed, index: bytes | None) -> bytes:
    """"<count> <bytes>" of the info lines, then of the warnings, the index's size (-1 for
    none), "\n", the info lines and the warnings (NUL between the lines of each), the index,
    then the text. The index: "<kind> <bytes> <source>" per document (NUL between them), the
    documents being the text's last bytes (an output of hooks alone starts with a newline)."""
    head, body = [], []
    for lines in (printed.info, printed.said):
        joined = "\0".join(lines).encode("utf-8", "surrogateescape")
        head.append(b"%d %d" % (len(lines), len(joined)))
        body.append(joined)
    head.append(b"%d" % (-1 if index is None else len(index)))
    body.append(index or b"")
    return b" ".join(head) + b"\n" + b"".join(body) + printed.text.encode("utf-8", "surrogateescape")


def _printed(blob: bytes | None, documents: bool = False) -> Printed | None:
    """What :func:`_printable` stored (with ``documents``, its documents and not its text);
    None for none, or a damaged entry (a miss)."""
    if blob is None:
        return None
    try:
        head, _, rest = blob.partition(b"\n")
        info_count, info_size, said_count, said_size, index_size = map(int, head.split())
        info, said = [rest[at:at + size].decode("utf-8", "surrogateescape").split("\0") if count else []
                      for count, at, size in ((info_count, 0, info_size), (said_count, info_size, said_size))]
        if (len(info), len(said)) != (info_count, said_count):
            return None
        at = info_size + said_size
        if not documents:
            return Printed(rest[at + max(index_size, 0):].decode("utf-8", "surrogateescape"), info, said)
        if index_size < 0:
            return None
        return Printed("", info, said, _documents(rest[at:at + index_size], rest[at + index_size:]))
    except ValueError:
        return None


def _documents(index: bytes, text: bytes) -> list[tuple[str, str, bytes]]:
    """The documents :func:`_printable`'s ``index`` tells in ``text``; ValueError if they do not
    fill it (but for the newline an output of hooks alone starts with)."""
    found = []
    entries = [entry.split(b" ", 2) for entry in index.split(b"\0")] if index else []
    at = len(text) - sum(int(size) for _, size, _ in entries)
    if at not in (0, 1):
        raise ValueError("a damaged entry")
    for kind, size, source in entries:
        end = at + int(size)
        found.append((kind.decode(), source.decode("utf-8", "surrogateescape"), text[at:end]))
        at = end
    return found


class KeptParts:
    """What an earlier identical render that called impure functions kept: the outputs of the
    templates that called none (by template name), and how many RSA keys it made (by size in
    bits: :mod:`helm_core.gotemplate.funcs.keypool` starts them before the render needs them).
    ``found``: whether an identical render kept them (perhaps none: its first template drew)."""

    def __init__(self, outputs: dict[str, str] | None = None, rsa_keys: dict[int, int] | None = None,
                 *, found: bool = False) -> None:
        self.outputs = outputs or {}
        self.rsa_keys = rsa_keys or {}
        self.found = found


def recall_parts(memo: Any, entry_key: str) -> KeptParts:
    """What an earlier identical render kept (nothing when there is no entry)."""
    blob = memo.get(PARTS_MEMO, entry_key)
    if blob is None:
        return KeptParts()
    try:  # "keys <bits>:<count>...\n", then per template: "<name bytes> <text bytes>\n", the name, the text
        end = blob.index(b"\n")
        words = blob[:end].split()
        if words[:1] != [b"keys"]:
            return KeptParts()
        rsa_keys = {int(bits): int(count) for bits, count in (word.split(b":") for word in words[1:])}
        outputs: dict[str, str] = {}
        at = end + 1
        while at < len(blob):
            end = blob.index(b"\n", at)
            name_size, text_size = map(int, blob[at:end].split())
            name_end = end + 1 + name_size
            text_end = name_end + text_size
            if text_end > len(blob):
                return KeptParts()
            outputs[blob[end + 1:name_end].decode("utf-8", "surrogateescape")] = \
                blob[name_end:text_end].decode("utf-8", "surrogateescape")
            at = text_end
    except ValueError:  # a damaged entry is a miss
        return KeptParts()
    return KeptParts(outputs, rsa_keys, found=True)


def keep_parts(memo: Any, entry_key: str, kept: KeptParts) -> None:
    """Store what :func:`recall_parts` reads back, in a form read without pickle."""
    chunks = [b"keys" + b"".join(b" %d:%d" % item for item in sorted(kept.rsa_keys.items())) + b"\n"]
    for name, text in kept.outputs.items():
        name_bytes = name.encode("utf-8", "surrogateescape")
        text_bytes = text.encode("utf-8", "surrogateescape")
        chunks += [b"%d %d\n" % (len(name_bytes), len(text_bytes)), name_bytes, text_bytes]
    memo.put(PARTS_MEMO, entry_key, b"".join(chunks))


def repeating(memo: Any) -> None:
    """This run repeats an identical render that kept its parts (:func:`keep_parts`, after it
    wrote what it decoded and printed with YAML): a YAML text or value missing from the memo now
    was made at random (redis's Secret, decoded by ``fromYaml`` for a checksum, and as a rendered
    output), and an entry for it would not be read again. So no such entry is written: a new
    file on every run, for nothing."""
    from helm_core.golib import goyaml

    memo.stop_writing(goyaml.DECODE_MEMO, goyaml.DUMP_MEMO)


class KeptSources:
    """What an identical render's kept outputs came from and decode to: the chart (its enabled
    subcharts only) and final values ``prepare`` made (a ``prepare.Prepared``; stored without
    the charts' default values and decoded schemas, see :func:`keep_sources`), and the kept
    outputs' documents by template name (with the output each was parsed from). Loading the
    chart, coalescing its values, checking them against the schemas and decoding the kept
    outputs again would give the same, at more cost than unpickling them; ``said``: the
    warnings loading and preparing gave (said again by a run that takes these)."""

    def __init__(self, prepared: Any, documents: dict[str, tuple[str, list[Any]]], said: Sequence[str] = ()) -> None:
        self.prepared = prepared
        self.documents = documents
        self.said = list(said)


def recall_sources(memo: Any, entry_key: str) -> KeptSources | None:
    """What :func:`keep_sources` stored under ``entry_key``, or None."""
    found = memo.unpickled(SOURCES_MEMO, entry_key)
    if not isinstance(found, tuple) or len(found) != 3:
        return None
    from helm_core.chart import prepare

    prepared, documents, said = found
    if not isinstance(prepared, prepare.Prepared) or not isinstance(documents, dict) or not isinstance(said, list):
        return None
    return KeptSources(prepared, documents, said)


def keep_sources(memo: Any, entry_key: str, sources: KeptSources) -> None:
    """Store what :func:`recall_sources` reads back: the prepared charts without what only
    preparing reads, their default values and decoded schemas (``values`` empty, ``schema``
    None): the values kept are their coalesced and checked result, and reading those two back
    was about half of reading redis's entry, on every run that takes it."""
    import copyreg

    from helm_core.chart import model
    from helm_core.support import pickling

    def unprepared(chart: model.Chart) -> tuple[Any, ...]:
        return copyreg.__newobj__, (type(chart),), {**vars(chart), "values": {}, "schema": None}  # type: ignore[attr-defined]

    try:
        blob = pickling.dumps_reducing((sources.prepared, sources.documents, sources.said),
                                       {model.Chart: unprepared})
    except Exception:  # noqa: BLE001 - what pickle cannot hold is prepared again each time
        return
    memo.put(SOURCES_MEMO, entry_key, blob)


def pure_chart(chart: Any) -> bool:
    """Whether every template of ``chart`` renders with the counted functions: no Lua (which
    may change anything) and no Jinja2 template (its functions are not counted)."""
    from helm_core.chart import model
    from helm_core.engine import engines
    from helm_core.lua import layout

    return not layout.has_extensions(chart) and not any(
        engines.is_jinja_file(f.name) for _, f in model.all_template_files(chart))


_IDENTITY: list[str] = []


def code_identity() -> str | None:
    """Every file of ``helm_core`` by path, size and modification time, the distributions
    installed in site-packages and the Python version: any change to the code makes every
    entry a miss. None when the code's files cannot be listed (then nothing is kept)."""
    if _IDENTITY:
        return _IDENTITY[0]
    try:
        parts = _code_files()
    except OSError:  # not a folder of files (a zip archive...): no memo
        return None
    for folder in sys.path:
        if folder.endswith(("site-packages", "dist-packages")):
            with contextlib.suppress(OSError):
                parts.append(folder + "\0" + "\0".join(
                    sorted(n for n in os.listdir(folder) if n.endswith((".dist-info", ".egg-info")))))
    digest = cachekeys.hasher()
    digest.update("\n".join([sys.version, *parts]).encode("utf-8", "surrogateescape"))
    identity: str = digest.hexdigest()
    _IDENTITY.append(identity)
    return identity


def _code_files() -> list[str]:
    """``path\0size\0mtime`` of every file of the package (compiled caches left out)."""
    parts = []
    pending = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        pending.append(entry.path)
                    continue
                st = entry.stat()
                parts.append(f"{entry.path}\0{st.st_size}\0{st.st_mtime_ns}")
    return parts

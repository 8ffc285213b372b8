"""The public face of the template engine: environments, template sets, execution.

    env = Environment(funcs, missingkey="zero")   # functions shared by every set
    tset = env.new_set()                          # Go's *template.Template family
    tset.add_funcs({"include": ...})              # per-set functions (Helm binds include/tpl)
    tset.parse("chart/templates/a.yaml", text)    # the file and each of its defines
    tset.execute("chart/templates/a.yaml", data)  # -> str

Rules kept from Go's text/template:

* ``parse`` adds the file's template and every ``define``/``block``; a later parse of a
  name replaces the earlier one (``AddParseTree``), except that an empty (whitespace or
  comments only) body never replaces an existing template. Two non-empty definitions of
  one name in a single text are an error.
* Function names are checked at parse time; ``parse(..., extra_names=...)`` accepts more
  names (Helm parses with its whole function map), which fail only if executed.
* Execution is re-entrant: a function may call :func:`current_set` to reach the set that
  is executing and call ``execute`` on it or on a :meth:`TemplateSet.clone` (Helm's
  ``include`` and ``tpl``).

Parsing happens once per (name, text, known function names): trees are immutable and
shared by every set and clone that holds them. A tree is compiled when first executed (a
library chart's many defines are mostly never called). With a ``memo`` (see
:mod:`helm_core.support.memo`) parse trees also outlive the process: a later process loads them
instead of parsing again (found by the text, or the bytes of the file it was decoded from,
and the known names: the same text under another file name, a library chart shared by two
charts, is loaded and renamed). They are
written by :meth:`Environment.save_parsed` once the render is done, with only what ran, one
memo entry per folder of files (see :class:`_Bundle`).
"""
from __future__ import annotations

import contextvars
import functools
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping

from helm_core.gotemplate import budget, callsite, compiler, gcpause, gofmt, nodes, runtime
from helm_core.gotemplate.funcs import builtins
from helm_core.support import cachekeys, deepstack, pickling

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, Optional, TypeAlias

    from helm_core.support.memo import DiskMemo

MissingKey: TypeAlias = 'Literal["zero", "error", "default"]'

#: Parsed texts kept per environment (least recently used are dropped first).
PARSE_CACHE_SIZE = 4096

#: The memo kind of parse trees (a folder's files in one entry, see _Bundle; each tree pickled
#: apart, see StoredTree); the key also covers the parser's own code.
TREES_MEMO = "gotemplate-tree-folders"
#: Files a folder's entry may hold; past it, only those the saving process parsed are kept.
MAX_BUNDLE_FILES = 256
_PARSER_MODULES = ("lexer.py", "parser.py", "nodes.py", "literals.py")

#: Python frames needed by deeply nested templates and includes; raised once if lower.
RECURSION_LIMIT = 20000

_CURRENT: contextvars.ContextVar[Optional[TemplateSet]] = contextvars.ContextVar(
    "helm_core_gotemplate_current_set", default=None
)


#: The template set executing right now (for functions like Helm's ``include``): the context
#: variable's own getter, no Python frame (every include asks).
current_set: Callable[[], Optional[TemplateSet]] = _CURRENT.get


def check_funcs(funcs: Mapping[str, Callable[..., Any]]) -> None:
    """Refuse what Go's ``FuncMap`` registration refuses: bad names and non-functions.

    Names must be Go identifiers (a letter or ``_``, then letters, digits or ``_``);
    values must be callable with a valid ``__go_params__`` when they declare one.
    """
    for name, fn in funcs.items():
        if not name or not (name[0] == "_" or name[0].isalpha()) or not all(
            c == "_" or c.isalpha() or c.isdigit() for c in name
        ):
            raise ValueError(f"function name {gofmt.quote(name)} is not a valid identifier")
        if not callable(fn):
            raise ValueError(f"value for {name} not a function")
        params = getattr(fn, "__go_params__", None)
        if params is not None and getattr(fn, "__go_variadic__", False) and not params:
            raise ValueError(f"variadic function {name} declares no parameters")


class Environment:
    """Functions and options shared by template sets; owns the parse/compile cache."""

    def __init__(
        self, funcs: Mapping[str, Callable[..., Any]] | None = None, *, missingkey: MissingKey = "zero",
        memo: DiskMemo | None = None,
    ) -> None:
        if missingkey not in ("zero", "error", "default"):
            raise ValueError(f"unsupported missingkey {missingkey!r}")
        check_funcs(funcs or {})
        self.funcs: dict[str, Callable[..., Any]] = {**builtins.BUILTINS, **(funcs or {})}
        self.plans: dict[str, runtime.Plan] = {name: runtime.make_plan(fn) for name, fn in self.funcs.items()}
        self.missingkey: MissingKey = missingkey
        self.memo = memo
        self._known_digests: dict[frozenset[str], str] = {}
        self._cache: OrderedDict[tuple[str, str, frozenset[str]], dict[str, nodes.Tree | StoredTree]] = OrderedDict()
        self._lock = threading.Lock()
        #: The memo's entries of trees by folder, as loaded and as this process changes them.
        self._bundles: dict[tuple[str, frozenset[str]], _Bundle] = {}
        #: Files to store: (memo key, file name, its trees, its folder's entry) of texts parsed,
        #: or parsed again for what their entry did not store, since the last save_parsed.
        self._unsaved: list[tuple[str, str, dict[str, nodes.Tree | StoredTree], _Bundle]] = []

    def new_set(self, name: str = "gotpl", *, missingkey: Optional[MissingKey] = None) -> TemplateSet:
        """An empty set; ``name`` is the root name Go prints in "no template" errors.

        ``missingkey`` overrides the environment's option for this set (and its clones).
        """
        mode = missingkey or self.missingkey
        if mode not in ("zero", "error", "default"):
            raise ValueError(f"unsupported missingkey {mode!r}")
        return TemplateSet(self, name, {}, {}, missingkey=mode)

    def parse_trees(self, name: str, text: str, known: frozenset[str], *,
                    source_digest: str | None = None) -> dict[str, nodes.Tree | StoredTree]:
        """Parse (cached) ``text`` as ``name`` with ``known`` function names. ``source_digest``:
        :func:`cachekeys.hexdigest` of the bytes ``text`` was decoded from (surrogateescape), for
        a file whose digest is known already: the text is then not digested again."""
        if source_digest is not None:
            # Tagged: the bytes of a file that is not UTF-8 are not what its text encodes to.
            digest = "bytes:" + source_digest
        else:
            digest = cachekeys.hexdigest(text.encode("utf-8", "surrogatepass"))
        key = (name, digest, known)
        with self._lock:
            trees = self._cache.get(key)
            if trees is not None:
                self._cache.move_to_end(key)
                return trees
        with gcpause.paused():
            trees = self._parse(name, text, digest, known)
        with self._lock:
            self._cache[key] = trees
            if len(self._cache) > PARSE_CACHE_SIZE:
                self._cache.popitem(last=False)
        return trees


    def _parse(self, name: str, text: str, digest: str,
               known: frozenset[str]) -> dict[str, nodes.Tree | StoredTree]:
        if self.memo is None or "{{" not in text:
            # A text without actions is built faster than its entry is read, and tpl's texts
            # without actions (generated passwords) would each write an entry never read again.
            return dict(_parsed(name, text, known))
        # Keyed by the text, not the file name: the same library chart (Bitnami's `common`)
        # under two charts parses once. The file's own tree is stored under None.
        memo_key = cachekeys.hasher("\0".join(
            (_parser_digest(), digest, self._known_digest(known))).encode()).hexdigest()
        # A name in no folder (tpl's texts, made from values that may change from run to run)
        # has an entry of its own: rewriting an existing entry can wait for the disk.
        folder = _folder(name)
        bundle = self._bundle(folder, known) if folder else self._bundle(f"\0{digest}", known, keep=False)
        with self._lock:
            stored = bundle.files.get(memo_key)
            bundle.used.add(memo_key)
        if stored is not None:
            loaded: dict[str, nodes.Tree | StoredTree] = {}

            def learn() -> None:  # what ran now and was not stored is stored this time
                with self._lock:
                    self._unsaved.append((memo_key, name, loaded, bundle))

            reparse = _reparser(name, text, known, learn)
            for key, (empty, tblob) in stored.items():
                tname = name if key is None else key
                loaded[tname] = StoredTree(tblob, name, text, empty, tname, reparse)
            return dict(loaded)
        trees = _parsed(name, text, known)
        with self._lock:
            self._unsaved.append((memo_key, name, dict(trees), bundle))
        return dict(trees)

    def _bundle(self, folder: str, known: frozenset[str], *, keep: bool = True) -> _Bundle:
        """The entry of ``folder``'s files parsed with ``known`` names, loaded at the first and
        kept for the others; or (not ``keep``) the entry of one text, ``folder`` its digest."""
        assert self.memo is not None
        with self._lock:
            bundle = self._bundles.get((folder, known)) if keep else None
        if bundle is None:
            memo_key = cachekeys.hasher("\0".join(
                (_parser_digest(), folder, self._known_digest(known))).encode()).hexdigest()
            found = self.memo.unpickled(TREES_MEMO, memo_key)
            files: dict[str, StoredFile] = found if isinstance(found, dict) else {}
            bundle = _Bundle(memo_key, files)
            if keep:
                with self._lock:  # another thread may have loaded it meanwhile: the first is kept
                    bundle = self._bundles.setdefault((folder, known), bundle)
        return bundle

    def save_parsed(self) -> None:
        """Put the trees parsed since the last call into the memo (a render calls it when done),
        and the call-site shapes compiled meanwhile (:func:`callsite.save_compiled`).

        Saved after running rather than when parsed: only what ran is pickled (a tree never
        executed, a branch body never entered is stored as :data:`nodes.NOT_STORED` and a
        later run that needs it parses the text again, then stores the entry again with
        what it ran), and pickling all of it cost a first run more than parsing. A tree that
        cannot be pickled only loses its entry. One entry is written per folder with new
        trees: creating a file costs more than pickling a small one. The pickling is the
        memo's deferred job (:meth:`DiskMemo.defer`: the CLI's runs after its output), on a
        deep stack as the render's own (a deeply nested tree pickles recursively).
        """
        callsite.save_compiled()
        if self.memo is not None and self._unsaved:
            self.memo.defer(lambda: deepstack.run(self._store_unsaved, name="helm-memo-trees"))

    def _store_unsaved(self) -> None:
        assert self.memo is not None
        with self._lock:
            unsaved, self._unsaved = self._unsaved, []
        changed: dict[int, _Bundle] = {}
        for memo_key, name, trees, bundle in unsaved:
            try:
                stored = {None if tname == name else tname: (_is_empty(tree), _stored_blob(tree))
                          for tname, tree in trees.items()}
            except (pickling.PicklingError, RecursionError, MemoryError):  # too deep or big: parsed again
                continue
            with self._lock:
                bundle.files[memo_key] = stored
            changed[id(bundle)] = bundle
        for bundle in changed.values():
            with self._lock:
                if len(bundle.files) > MAX_BUNDLE_FILES:
                    bundle.files = {k: v for k, v in bundle.files.items() if k in bundle.used}
                entry = pickling.dumps(bundle.files, protocol=pickling.HIGHEST_PROTOCOL)
            self.memo.put(TREES_MEMO, bundle.key, entry)

    def _known_digest(self, known: frozenset[str]) -> str:
        digest = self._known_digests.get(known)
        if digest is None:
            digest = cachekeys.hasher("\0".join(sorted(known)).encode()).hexdigest()
            self._known_digests[known] = digest
        return digest


#: What the memo keeps of one file: its trees' pickles by name (the file's own under None),
#: each with whether the tree is empty.
StoredFile: TypeAlias = "dict[Optional[str], tuple[bool, bytes]]"


def _folder(name: str) -> str:
    """The folder whose entry holds file ``name``'s trees: its folder, from after the last
    ``charts/`` on (a chart's dependencies are under ``charts/``: a library chart's files are
    found under any chart that includes it)."""
    folder = "/" + os.path.dirname(name)
    cut = folder.rfind("/charts/")
    return folder[cut + len("/charts/"):] if cut >= 0 else folder[1:]


class _Bundle:
    """The memo's entry of the trees of one folder's files (a chart's templates, a library
    chart's; see :func:`_folder`): one file to write on a first run, not one per template.
    Texts named in no folder (tpl's) have an entry each.

    Inside, files are found by their own memo key (their text). Files the entry does not
    hold (an edited file, another version of a library chart) are parsed and added: the
    entry keeps every file it held up to :data:`MAX_BUNDLE_FILES`, so two charts writing one
    entry both find their files."""

    __slots__ = ("key", "files", "used")

    def __init__(self, key: str, files: dict[str, StoredFile]) -> None:
        self.key = key
        #: By memo key: what the entry held when loaded, and the files stored since.
        self.files = files
        #: Memo keys of the files this process parsed from the folder.
        self.used: set[str] = set()


def _stored_blob(tree: nodes.Tree | StoredTree) -> bytes:
    """A tree as the memo stores it: pickled if it ran (see :meth:`Environment.save_parsed`),
    else as its entry had it (a tree from the memo that was not loaded, or did not run)."""
    if isinstance(tree, StoredTree):
        if tree._tree is None or tree._tree.compiled is None:
            return tree.blob
        tree = tree._tree
    return nodes.dump_tree(tree) if tree.compiled is not None else nodes.NOT_STORED


def _parsed(name: str, text: str, known: frozenset[str]) -> dict[str, nodes.Tree]:
    """``parser.parse`` with ``known`` function names. The parser (and the lexer and literals it
    imports) is imported by the first parse: a run whose trees all come from the disk memo
    never parses, and importing them is start-up time (bench/deferred.py); nor does one whose
    only new texts have no action (``tpl`` of a generated password)."""
    if "{{" not in text:
        return nodes.text_trees(name, text)
    from helm_core.gotemplate import parser

    return parser.parse(name, text, known.__contains__)


def _reparser(name: str, text: str, known: frozenset[str],
              parsed_again: Callable[[], None]) -> Callable[[], dict[str, nodes.Tree]]:
    """Parses ``text`` again, once, for what the memo did not store of it (then calls
    ``parsed_again``)."""
    trees: Optional[dict[str, nodes.Tree]] = None

    def reparse() -> dict[str, nodes.Tree]:
        nonlocal trees
        if trees is None:
            with gcpause.paused():
                trees = _parsed(name, text, known)
            parsed_again()
        return trees

    return reparse


class StoredTree:
    """A tree from the disk memo, unpickled the first time a set needs it.

    Library charts define far more templates than a chart uses (Bitnami's ``common``:
    about half of a chart's trees), so each tree is pickled on its own and most are never
    loaded. Where it was parsed from (the file's name and text, shared by every tree of
    the file) is not in each pickle: it is given back on load. A tree the memo did not
    store (it never ran) is parsed again from that text.
    """

    __slots__ = ("blob", "parse_name", "text", "empty", "name", "reparse", "_tree")

    def __init__(self, blob: bytes, parse_name: str, text: str, empty: bool, name: str,
                 reparse: Callable[[], dict[str, nodes.Tree]]) -> None:
        self.blob = blob
        self.parse_name = parse_name
        self.text = text
        #: Whether the tree is empty (an empty redefinition does not replace a template).
        self.empty = empty
        self.name = name
        self.reparse = reparse
        self._tree: Optional[nodes.Tree] = None

    def load(self) -> nodes.Tree:
        if self._tree is None:  # two threads may both load: the first to finish is kept
            if self.blob == nodes.NOT_STORED:
                loaded = self.reparse()[self.name]
            else:
                with gcpause.paused():
                    loaded = nodes.load_tree(self.blob, self.parse_name, self.text, self.reparse)
            if self._tree is None:
                self._tree = loaded
        return self._tree


class ParsedBody:
    """The tree one ``parse`` produced for its own name (kept or not by the set)."""

    __slots__ = ("name", "_tree")

    def __init__(self, name: str, tree: nodes.Tree | StoredTree) -> None:
        self.name = name
        self._tree = tree

    def tree(self) -> nodes.Tree:
        if isinstance(self._tree, StoredTree):
            self._tree = self._tree.load()
        return self._tree


def _is_empty(tree: nodes.Tree | StoredTree) -> bool:
    return tree.empty if isinstance(tree, StoredTree) else nodes.is_empty_tree(tree.root)


@functools.cache
def _parser_digest() -> str:
    """Digest of the parser's code and the Python version (pickles name classes and fields)."""
    from helm_core.support.memo import code_digest

    here = os.path.dirname(__file__)  # not pathlib: it imports urllib and ipaddress (start-up time)
    return code_digest(*(os.path.join(here, m) for m in _PARSER_MODULES)) + sys.version


class TemplateSet:
    """A family of named templates that can call each other (Go's associated templates)."""

    def __init__(
        self,
        env: Environment,
        name: str,
        trees: dict[str, nodes.Tree | StoredTree],
        own_funcs: dict[str, Callable[..., Any]],
        *,
        missingkey: MissingKey,
    ) -> None:
        self.env = env
        self.name = name
        self.missingkey: MissingKey = missingkey
        self._trees = trees
        #: Compiled templates by name (cleared by every parse: a name may get another tree).
        self._runs: dict[str, compiler.Run] = {}
        #: Names compiled into ``_runs`` since :meth:`generate_code` last looked: all it has to
        #: look at (a set that renders again compiles nothing new, and calls it every render).
        self._new_runs: list[str] = []
        self._set_funcs(own_funcs)

    def _set_funcs(self, own_funcs: dict[str, Callable[..., Any]]) -> None:
        self._own_funcs = own_funcs
        if own_funcs:
            self._plans = {**self.env.plans, **{k: runtime.make_plan(f) for k, f in own_funcs.items()}}
        else:
            self._plans = self.env.plans
        self._known = frozenset(self._plans)

    # -- building -----------------------------------------------------------
    def add_funcs(self, funcs: Mapping[str, Callable[..., Any]]) -> None:
        """Add or replace functions of this set only (visible to later parses and executions)."""
        check_funcs(funcs)
        self._set_funcs({**self._own_funcs, **funcs})

    def parse(self, name: str, text: str, *, extra_names: Iterable[str] = (),
              source_digest: str | None = None) -> ParsedBody:
        """Parse ``text`` as template ``name`` and add it and its defines to the set
        (``source_digest``: see :meth:`Environment.parse_trees`).

        Returns the body parsed for ``name``: what Go's ``t.New(name).Parse(text)`` then
        executes, even when that body is empty and so did not replace a stored ``name``.
        Raises :class:`~helm_core.gotemplate.parser.ParseError`.
        """
        known = self._known | frozenset(extra_names) if extra_names else self._known
        trees = self.env.parse_trees(name, text, known, source_digest=source_digest)
        self._runs = {}
        self._new_runs = []
        for tname, tree in trees.items():
            old = self._trees.get(tname)
            if old is not None and _is_empty(tree):
                continue
            self._trees[tname] = tree
        return ParsedBody(name, trees[name])

    def clone(self) -> TemplateSet:
        """A copy sharing the (immutable) trees; later parses into either do not affect the other."""
        return TemplateSet(
            self.env, self.name, dict(self._trees), dict(self._own_funcs), missingkey=self.missingkey
        )

    # -- queries --------------------------------------------------------------
    def has(self, name: str) -> bool:
        return name in self._trees

    def names(self) -> list[str]:
        """Template names, sorted."""
        return sorted(self._trees)

    def tree(self, name: str) -> Optional[nodes.Tree]:
        tree = self._trees.get(name)
        if tree.__class__ is StoredTree:
            tree = self._trees[name] = tree.load()
        return tree  # type: ignore[return-value]

    def lookup_compiled(self, name: str) -> Optional[compiler.Run]:
        run = self._runs.get(name)
        if run is None:
            tree = self.tree(name)
            if tree is None:
                return None
            run = self._runs[name] = compiler.compile_tree(tree)
            self._new_runs.append(name)
        return run

    def generate_code(self) -> None:
        """Compile the trees that ran in this set to Python code (:mod:`codegen`), for a set
        that renders again: their closures cost more per run, the code more to make."""
        if not self._new_runs:
            return
        from helm_core.gotemplate import codegen  # only processes that render a set again

        names, self._new_runs = self._new_runs, []
        for name in names:
            tree = self.tree(name)
            if tree is None or tree.compiled is None or tree.generated:
                continue
            with gcpause.paused():
                run = codegen.generate(tree, self._plans)
            if run is not None:
                tree.compiled = run
            tree.generated = True
            self._runs[name] = tree.compiled

    # -- execution ----------------------------------------------------------
    def execute(self, name: str, data: Any, *, body: Optional[ParsedBody] = None) -> str:
        """Run template ``name`` with dot = ``data``; returns the output.

        With ``body`` (what :meth:`parse` returned) that very body runs under its name, as
        Go's template returned by ``Parse`` does, rather than the set's stored ``name``.
        Raises :class:`~helm_core.gotemplate.runtime.ExecError` with Go's message.
        """
        if body is not None:
            name = body.name
            run: Optional[compiler.Run] = compiler.compile_tree(body.tree())
        else:  # (the compiled run looked up inline first: includes run this thousands of times)
            run = self._runs.get(name) or self.lookup_compiled(name)
        if run is None:
            raise runtime.ExecError(
                f"template: no template {gofmt.quote(name)} associated with template "
                f"{gofmt.quote(self.name)}",
                template_name=name,
            )
        out: list[str] = []
        state = runtime.State(self, name, out, [["$", data, False]], 0, self.missingkey, self._plans,
                              budget.current())
        # Nested executions (include) of the set already executing need not set it again, nor
        # the recursion limit.
        token = None
        if _CURRENT.get() is not self:
            if sys.getrecursionlimit() < RECURSION_LIMIT:
                sys.setrecursionlimit(RECURSION_LIMIT)
            token = _CURRENT.set(self)
        try:
            run(state, data, False)
        except RecursionError:
            # Not Go's maxExecDepth message: Python's limit is not a count of template calls.
            raise runtime.ExecError(
                f"template: {name}: templates nested too deep (past Python's recursion limit of "
                f"{sys.getrecursionlimit()})",
                template_name=name,
            ) from None
        finally:
            if token is not None:
                _CURRENT.reset(token)
        return "".join(out)

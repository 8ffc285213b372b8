"""Regenerate helm_core/support/sre_codes.py: the prebuilt engine code of the package's patterns.

Every pattern declared through ``helm_core.support.patterns`` (``on_first_use``, ``compiled``)
by any module of the package is compiled here, ahead, into the code ``re``'s compiler hands the
engine; ``patterns.compiled`` then skips ``re``'s parser and compiler on an engine like the one
this runs on (see that module's doc). Run it with the interpreter the package runs on, after
adding or changing a declared pattern (``python scripts/gen_sre_codes.py``);
tests/test_patterns.py fails until then.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "helm_core" / "support" / "sre_codes.py"


def main() -> int:
    sys.path.insert(0, str(ROOT))
    # An empty table while the modules declare their patterns (an old one may be stale or broken).
    OUTPUT.write_text('ENGINE = None\nCODES: dict = {}\n')
    from helm_core.support import patterns, sre_prebuild

    declared = sre_prebuild.declared_everywhere()
    OUTPUT.write_text(sre_prebuild.prebuilt_module_source(declared))
    print(f"wrote {OUTPUT.relative_to(ROOT)}: {len(declared)} patterns for {patterns.engine()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

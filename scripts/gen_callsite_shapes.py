"""Regenerate helm_core/gotemplate/callsite_shapes.py: the premade makers of call-site callers.

``helm_core.gotemplate.callsite`` generates a caller's maker per call-site shape and compiles it
(~0.3-0.5 ms each); shapes of a few words are made ahead, in a module loaded from its bytecode
(see callsite's module doc). The module's text comes from callsite itself
(``premade_module_source``): run this after changing how callers are generated
(``python scripts/gen_callsite_shapes.py``); tests/gotemplate/test_callsite.py fails until then.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "helm_core" / "gotemplate" / "callsite_shapes.py"


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from helm_core.gotemplate import callsite

    OUTPUT.write_text(callsite.premade_module_source())
    print(f"wrote {OUTPUT.relative_to(ROOT)}: {len(callsite.premade_shapes())} shapes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

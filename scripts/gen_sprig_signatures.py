"""Regenerate helm_core/gotemplate/funcs/sprig_signatures.py: each Sprig function's module and Go signature.

``helm_core.gotemplate.funcs.sprig`` maps each name to a function whose module is imported by its
first call; it reads the names and signatures from that generated module, whose text comes from
sprig itself (``signatures_source``): run this after adding a Sprig function or changing a
signature (``python scripts/gen_sprig_signatures.py``); tests/gotemplate/funcs/test_sprig.py
fails until then.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "helm_core" / "gotemplate" / "funcs" / "sprig_signatures.py"


def main() -> int:
    sys.path.insert(0, str(ROOT))
    if not OUTPUT.exists():  # sprig imports the table it is about to write
        OUTPUT.write_text("SIGNATURES = {}\n")
    from helm_core.gotemplate.funcs import sprig

    OUTPUT.write_text(sprig.signatures_source())
    print(f"wrote {OUTPUT.relative_to(ROOT)}: {len(sprig.loaded_funcs())} functions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

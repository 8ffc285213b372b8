"""Go's ``encoding/pem`` encoder: a PEM block as ``pem.EncodeToMemory`` writes it (no headers).

Why: certificates and PKCS#1 keys are encoded without ``cryptography.hazmat.primitives.serialization``
(issue 20); its output and Go's are the same text: base64 in lines of 64 characters.
"""
from __future__ import annotations

import base64

LINE_CHARS = 64


def encode(block_type: str, der: bytes) -> str:
    """``-----BEGIN TYPE-----``, the base64 of ``der`` in 64-character lines, ``-----END TYPE-----``."""
    text = base64.b64encode(der).decode()
    lines = [text[i:i + LINE_CHARS] for i in range(0, len(text), LINE_CHARS)]
    return "".join([f"-----BEGIN {block_type}-----\n", *(line + "\n" for line in lines),
                    f"-----END {block_type}-----\n"])

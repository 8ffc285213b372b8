"""ASN.1 DER: the encoders certificates and private keys are built from, and a reader of one level.

Why: importing ``cryptography.x509`` (and ``serialization``) costs more than generating a
key (issue 20). The few structures the Sprig certificate functions write are small enough
to encode here (``x509create``), leaving keys and signatures to ``cryptography``'s primitives.
Encodings are DER (X.690): definite minimal lengths, minimal integers, booleans ``0xFF``,
named bit strings without trailing zero bits, times as RFC 5280 section 4.1.2.5 wants them.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime

BOOLEAN, INTEGER, BIT_STRING, OCTET_STRING, NULL, OBJECT_IDENTIFIER = 0x01, 0x02, 0x03, 0x04, 0x05, 0x06
UTF8_STRING, IA5_STRING, UTC_TIME, GENERALIZED_TIME = 0x0C, 0x16, 0x17, 0x18
SEQUENCE, SET = 0x30, 0x31
CONTEXT, CONSTRUCTED = 0x80, 0x20

#: RFC 5280: UTCTime for the years 1950 to 2049, GeneralizedTime for the others.
_UTC_TIME_YEARS = range(1950, 2050)


def tlv(tag: int, content: bytes) -> bytes:
    """One element: its tag (low-tag-number form), DER length and content."""
    n = len(content)
    if n < 0x80:
        return bytes((tag, n)) + content
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes((tag, 0x80 | len(size))) + size + content


def sequence(*elements: bytes) -> bytes:
    return tlv(SEQUENCE, b"".join(elements))


def set_of(*elements: bytes) -> bytes:
    """A SET OF, its elements sorted by their encodings as DER wants."""
    return tlv(SET, b"".join(sorted(elements)))


def integer(value: int) -> bytes:
    """Two's complement in the fewest bytes."""
    size = (value + (value < 0)).bit_length() // 8 + 1
    return tlv(INTEGER, value.to_bytes(size, "big", signed=True))


def boolean(value: bool) -> bytes:
    return tlv(BOOLEAN, b"\xff" if value else b"\x00")


def null() -> bytes:
    return tlv(NULL, b"")


def object_identifier(dotted: str) -> bytes:
    """An OID from its dotted text (``"2.5.4.3"``)."""
    arcs = [int(a) for a in dotted.split(".")]
    body = bytearray()
    for arc in [arcs[0] * 40 + arcs[1], *arcs[2:]]:
        chunk = [arc & 0x7F]
        arc >>= 7
        while arc:
            chunk.append(0x80 | (arc & 0x7F))
            arc >>= 7
        body += bytes(reversed(chunk))
    return tlv(OBJECT_IDENTIFIER, bytes(body))


def bit_string(data: bytes, unused_bits: int = 0) -> bytes:
    return tlv(BIT_STRING, bytes((unused_bits,)) + data)


def named_bits(positions: list[int]) -> bytes:
    """A named BIT STRING with these bits set (bit 0 the first, most significant); trailing zero bits dropped."""
    if not positions:
        return bit_string(b"")
    length = max(positions) + 1
    value = 0
    for p in positions:
        value |= 1 << (length - 1 - p)
    unused = -length % 8
    return bit_string((value << unused).to_bytes((length + unused) // 8, "big"), unused)


def octet_string(data: bytes) -> bytes:
    return tlv(OCTET_STRING, data)


def utf8_string(data: bytes) -> bytes:
    return tlv(UTF8_STRING, data)


def context_specific(number: int, content: bytes, *, constructed: bool = False) -> bytes:
    """A ``[number]`` element: an IMPLICIT tag on primitive ``content``, or, ``constructed``,
    one wrapping whole elements (EXPLICIT tagging)."""
    return tlv(CONTEXT | (CONSTRUCTED if constructed else 0) | number, content)


def time(moment: datetime.datetime) -> bytes:
    """A certificate time in UTC to the second: UTCTime for 1950 to 2049, GeneralizedTime otherwise."""
    if moment.year in _UTC_TIME_YEARS:
        return tlv(UTC_TIME, moment.strftime("%y%m%d%H%M%SZ").encode())
    return tlv(GENERALIZED_TIME, f"{moment.year:04d}{moment.strftime('%m%d%H%M%S')}Z".encode())


def children(element: bytes) -> list[bytes]:
    """The whole encodings of the elements inside a constructed element (one level, DER lengths)."""
    start, end = _content_span(element, 0)
    out = []
    while start < end:
        child_start, child_end = _content_span(element, start)
        out.append(element[start:child_end])
        start = child_end
    return out


def content(element: bytes) -> bytes:
    """The content octets of one element."""
    start, end = _content_span(element, 0)
    return element[start:end]


def _content_span(data: bytes, at: int) -> tuple[int, int]:
    """Where the content of the element starting at ``at`` starts and ends."""
    first = data[at + 1]
    if first < 0x80:
        start = at + 2
        return start, start + first
    size = first & 0x7F
    start = at + 2 + size
    return start, start + int.from_bytes(data[at + 2:start], "big")

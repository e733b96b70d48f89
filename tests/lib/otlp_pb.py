# SPDX-License-Identifier: GPL-2.0-or-later
"""Protobuf by hand for the OTLP tests (tests/fuzz/otlp_corpus.py,
tests/integration/otlp_hostile.py): fields by number and wire type, as
common/otlp_trace.proto numbers them; no schema, no library."""
import struct


def varint(n):
    """N (>= 0) as a base-128 varint."""
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(num, wire, payload):
    """Field NUM of wire type WIRE (0 varint, 1 fixed64, 2 length-delimited)
    holding PAYLOAD (already encoded; for wire type 2, its bytes)."""
    key = varint(num << 3 | wire)
    if wire == 2:
        return key + varint(len(payload)) + payload
    return key + payload


def msg(num, *parts):
    """A length-delimited field NUM holding PARTS one after another."""
    return field(num, 2, b"".join(parts))


def string(num, s):
    """A string field NUM (UTF-8)."""
    return field(num, 2, s.encode())


def fixed64(num, v):
    """A fixed64 field NUM."""
    return field(num, 1, struct.pack("<Q", v))

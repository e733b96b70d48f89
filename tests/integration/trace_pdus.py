#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Send trace DATA PDUs with exact values (docs/trace-protocol.md §2.3).

usage: trace_pdus.py PORT < lines of "TYPE TAG VALUE"
TYPE is 1 transaction (VALUE: seconds), 2 point, 3 observation, 4 counter.
Each PDU is sync: the agent's ACK (the tag type) is read before the next,
so every report has been recorded when this exits. Exits 1 on a refusal.
Lets a test give transactions known times, which pmtracebegin/end cannot.
"""
import os
import socket
import struct
import sys

ACK, DATA = 0x7050, 0x7051


def pdu(tagtype, tag, value):
    raw = tag.encode() + b"\0"
    length = (24 + len(raw) + 3) & ~3
    body = struct.pack(">iiiBBBBd", length, DATA, os.getpid(), 1, len(raw),
                       tagtype, 0x80, value) + raw
    return body + b"~" * (length - len(body))


def recv_ack(s):
    buf = b""
    while len(buf) < 16:
        chunk = s.recv(16 - len(buf))
        if not chunk:
            sys.exit("trace_pdus: the agent closed the connection")
        buf += chunk
    length, kind, _, value = struct.unpack(">iiii", buf)
    if length != 16 or kind != ACK:
        sys.exit("trace_pdus: not an ACK: %s" % buf.hex())
    return value


def main():
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    greeting = recv_ack(s)
    if greeting < 0:
        sys.exit("trace_pdus: refused, greeting %d" % greeting)
    for line in sys.stdin:
        if not line.strip():
            continue
        tagtype, tag, value = line.split()
        s.sendall(pdu(int(tagtype), tag, float(value)))
        sts = recv_ack(s)
        if sts != int(tagtype):
            sys.exit("trace_pdus: %s %s refused: %d" % (tagtype, tag, sts))
    s.close()


main()

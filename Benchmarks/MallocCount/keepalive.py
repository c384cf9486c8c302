"""Sends N requests one after another on one keep-alive connection and reads each whole response.

    python3 keepalive.py PORT PATH N HOST USER-AGENT
"""
import socket
import sys

port, path, count, host, agent = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
connection = socket.create_connection(("127.0.0.1", port))
request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: {agent}\r\n\r\n".encode()
pending = b""
for _ in range(count):
    connection.sendall(request)
    while True:
        end = pending.find(b"\r\n\r\n")
        if end >= 0:
            length = 0
            for line in pending[:end].decode("latin1").lower().split("\r\n"):
                if line.startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            if len(pending) >= end + 4 + length:
                pending = pending[end + 4 + length:]
                break
        data = connection.recv(65536)
        if not data:
            sys.exit("the server closed the connection")
        pending += data
connection.close()

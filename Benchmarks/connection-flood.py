"""One flood of connections against a local relink: COUNT connections opened at once, each asking for a long link
and reading its answer, all held open, then all closed. Prints the server's RSS (MB) at the flood's height, 2 s
after the connections closed, and WAIT s after (by when the free heap should have been given back).

    python3 connection-flood.py PORT SERVER_PID COUNT WAIT
"""
import resource
import socket
import sys
import time

port, pid, count, wait = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
request = (
    b"GET /?link=https%3A%2F%2Fpictlink.com%2Fflood&apn=jp.furyu.pictlink.android HTTP/1.1\r\n"
    b"Host: go.pictlink.com\r\nUser-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64)\r\n\r\n"
)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def rss():
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return -1


sockets = []
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(request)
    sockets.append(s)
answered = 0
for s in sockets:
    s.settimeout(10)
    try:
        if s.recv(65536).startswith(b"HTTP/1.1 3"):
            answered += 1
    except OSError:
        pass
height = rss()
for s in sockets:
    s.close()
time.sleep(2)
closed = rss()
time.sleep(max(0.0, wait - 2))
print(f"{answered}|{height}|{closed}|{rss()}")

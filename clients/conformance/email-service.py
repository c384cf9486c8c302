#!/usr/bin/env python3
"""The conformance suites' stand-in email service: the upstream of routes.json's click-tracking host.

GET /ls/click?upn=<slug> counts a click and redirects to https://go.relink.test/<slug>, as an email service's
tracking link sends the tap on to the link in the message; /ls/click without `upn` counts a click and answers 404
(a tracking link the service no longer knows). GET /clicks answers {"clicks": N}, the clicks counted so far.
Prints its base URL (http://127.0.0.1:<port>) once it listens, then serves until it is stopped.
"""
import http.server
import json
import sys
import threading
import urllib.parse

clicks = 0
lock = threading.Lock()


class EmailService(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        global clicks
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/clicks":
            with lock:
                self.answer(200, {"Content-Type": "application/json"}, json.dumps({"clicks": clicks}))
            return
        if url.path != "/ls/click":
            self.answer(404, {"Content-Type": "text/plain"}, "not a tracking link\n")
            return
        with lock:
            clicks += 1
        slug = urllib.parse.parse_qs(url.query).get("upn", [""])[0]
        if not slug:
            self.answer(404, {"Content-Type": "text/plain"}, "this tracking link has expired\n")
            return
        location = "https://go.relink.test/" + urllib.parse.quote(slug, safe="")
        self.answer(302, {"Location": location, "Cache-Control": "no-store"}, "")

    def answer(self, status, headers, body):
        data = body.encode("utf-8")
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), EmailService)
print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()

"""Browse mDNS on loopback for the console's services and print what answers, as JSON: run by
tests/test_mdns.py inside the network namespace it made (python-zeroconf, as a tablet's
browser would find them)."""

from __future__ import annotations

import json
import sys
import time

from zeroconf import IPVersion, ServiceBrowser, ServiceListener, Zeroconf

TYPES = ["_http._tcp.local.", "_mqtt._tcp.local."]


class Found(ServiceListener):
    def __init__(self) -> None:
        self.services: dict[str, dict[str, object]] = {}

    def add_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        info = zc.get_service_info(type_, name, timeout=3000)
        if info is not None:
            self.services[name] = {
                "type": type_, "port": info.port, "server": info.server,
                "addresses": info.parsed_addresses(),
                "txt": {key.decode(): (value or b"").decode() for key, value in info.properties.items()}}

    def update_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        self.add_service(zc, type_, name)

    def remove_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        pass


def main() -> None:
    wanted, within = int(sys.argv[1]), float(sys.argv[2])
    zc = Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    found = Found()
    browser = ServiceBrowser(zc, TYPES, found)
    deadline = time.monotonic() + within
    while len(found.services) < wanted and time.monotonic() < deadline:
        time.sleep(0.05)
    browser.cancel()
    zc.close()
    print(json.dumps(found.services, ensure_ascii=False))


if __name__ == "__main__":
    main()

"""A small PKI made with the `openssl` command, for the tests of TLS (the console's link,
tests/test_mqtt_tls.py; the organiser's bridges, tests/test_bridge.py).

`make_pki(folder)` writes into `folder`: a CA; a broker certificate for 127.0.0.1/localhost;
a client certificate; a second CA that signed nothing the broker shows; and a certificate the
CA signed for another host name only. Keys are EC P-256, valid two days.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

EC_KEY = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")


@dataclass(frozen=True)
class Pki:
    folder: Path
    ca: Path
    other_ca: Path  # a CA that signed nothing the broker shows
    server: Path
    server_key: Path
    misnamed: Path  # signed by `ca`, for elsewhere.example only
    misnamed_key: Path
    client: Path
    client_key: Path


def _openssl(folder: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)


def _ca(folder: Path, name: str) -> Path:
    _openssl(folder, "req", "-x509", *EC_KEY, "-keyout", f"{name}.key", "-out", f"{name}.pem",
             "-days", "2", "-subj", f"/CN={name}")
    return folder / f"{name}.pem"


def _signed(folder: Path, name: str, extensions: str) -> tuple[Path, Path]:
    """A certificate `name`.pem signed by ca.pem, with `extensions`; and its key."""
    (folder / f"{name}.ext").write_text("basicConstraints=critical,CA:FALSE\n" + extensions)
    _openssl(folder, "req", "-new", *EC_KEY, "-keyout", f"{name}.key", "-out", f"{name}.csr",
             "-subj", f"/CN={name}")
    _openssl(folder, "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", "2", "-out", f"{name}.pem", "-extfile", f"{name}.ext")
    return folder / f"{name}.pem", folder / f"{name}.key"


def make_pki(folder: Path) -> Pki:
    """The certificates and keys in `folder`; AssertionError if openssl is not installed."""
    assert shutil.which("openssl") is not None, "openssl is not installed (apt-get install openssl)"
    ca = _ca(folder, "ca")
    server, server_key = _signed(folder, "broker", "extendedKeyUsage=serverAuth\n"
                                                   "subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    misnamed, misnamed_key = _signed(folder, "elsewhere", "extendedKeyUsage=serverAuth\n"
                                                          "subjectAltName=DNS:elsewhere.example\n")
    client, client_key = _signed(folder, "console", "extendedKeyUsage=clientAuth\n")
    return Pki(folder, ca, _ca(folder, "other-ca"), server, server_key, misnamed, misnamed_key,
               client, client_key)

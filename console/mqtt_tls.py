"""TLS for the console's MQTT link: what `[mqtt] tls = true` means, as an `ssl.SSLContext`.

Contract: `TlsSettings` holds the config's TLS keys (absolute paths; "" = unset).
`client_context(settings)` builds the context the link hands to paho (`tls_set_context`):
TLS 1.2 at least, the broker's certificate verified against `ca_file` (or the system's trust
store when it is ""), its host name checked unless `insecure`, and the client certificate
`cert_file` with its key `key_file` when set. It reads the files, so the link calls it in the
executor with the connect. `problem(settings)` says which key's file is missing, unreadable or
not what it should be, as (key, what), for check-config; None when all is well.

A key with a passphrase is refused, never prompted for: a daemon has no one at its terminal
(paho's own `tls_set` would ask on the tty), and the key file's mode is what guards it.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass


@dataclass(frozen=True)
class TlsSettings:
    ca_file: str = ""  # the CA that signed the broker's certificate; "" = the system's trust store
    cert_file: str = ""  # the console's client certificate (PEM; may hold its key too); "" = none
    key_file: str = ""  # the client certificate's key (PEM, no passphrase); "" = in cert_file
    insecure: bool = False  # the broker's host name not checked against its certificate


def _no_passphrase() -> bytes:
    """OpenSSL's passphrase callback: none (an empty one fails to decrypt a protected key)."""
    return b""


def client_context(settings: TlsSettings) -> ssl.SSLContext:
    """The client's TLS context (see the module docstring); raises OSError (ssl.SSLError, a
    missing file) when a file cannot be used."""
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=settings.ca_file or None)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    # The certificate chain is verified either way; insecure gives up only the name check.
    context.check_hostname = not settings.insecure
    context.verify_mode = ssl.CERT_REQUIRED
    if settings.cert_file:
        context.load_cert_chain(settings.cert_file, settings.key_file or None, password=_no_passphrase)
    return context


def problem(settings: TlsSettings) -> tuple[str, str] | None:
    """(key, what is wrong) for the first file that cannot be used, else None."""
    files = (("ca_file", settings.ca_file), ("cert_file", settings.cert_file),
             ("key_file", settings.key_file))
    for key, path in files:
        if path:
            try:
                with open(path, "rb") as f:
                    f.read(1)
            except OSError as exc:
                return key, f"cannot read {path} ({exc.strerror or exc})"
    if settings.key_file and not settings.cert_file:
        return "key_file", "is set without mqtt.cert_file (the certificate it is the key of)"
    scratch = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    for key, path in files[:2]:
        if path:
            try:
                scratch.load_verify_locations(cafile=path)
            except ssl.SSLError as exc:
                return key, f"{path} holds no PEM certificate ({exc})"
    if settings.cert_file:
        try:
            scratch.load_cert_chain(settings.cert_file, settings.key_file or None, password=_no_passphrase)
        except ssl.SSLError as exc:
            where = settings.key_file or settings.cert_file
            return ("key_file" if settings.key_file else "cert_file",
                    f"{where} holds no usable private key of the certificate (not PEM, a passphrase, "
                    f"or another certificate's key: {exc})")
    return None

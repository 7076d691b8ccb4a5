"""How a device signs a request, and how the platform checks it.

A device holds a key id and a secret, shown once when the credential is issued. Each
request carries four headers:

    X-Device-Key        the key id
    X-Device-Timestamp  Unix seconds when it was signed
    X-Device-Nonce      16 to 64 characters of [A-Za-z0-9_-], never used twice
    X-Device-Signature  hex HMAC-SHA256 of the secret over the canonical string

The canonical string is the method, the path, the timestamp, the nonce and the SHA-256
of the body, one per line: a signature made for one endpoint or body fits no other.
The secret is derived from the platform's device key and the credential's salt, so the
database never holds it (docs/adr/0006-device-credentials-and-heartbeats.md).
"""

import base64
import hashlib
import hmac
import re
import secrets
from functools import lru_cache

from django.conf import settings

KEY = "X-Device-Key"
TIMESTAMP = "X-Device-Timestamp"
NONCE = "X-Device-Nonce"
SIGNATURE = "X-Device-Signature"
HEADERS = (KEY, TIMESTAMP, NONCE, SIGNATURE)
NONCE_FORM = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
KEY_FORM = re.compile(r"^dk_[A-Za-z0-9_-]{8,36}$")


class SignatureRefused(Exception):
    """The request is not from the device it names; `reason` says which check failed."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def canonical(method: str, path: str, timestamp: str, nonce: str, body: bytes) -> bytes:
    digest = hashlib.sha256(body).hexdigest()
    return f"{method.upper()}\n{path}\n{timestamp}\n{nonce}\n{digest}".encode()


def sign(secret: str, method: str, path: str, timestamp: str, nonce: str, body: bytes) -> str:
    """The signature a device sends (the simulator and the tests sign with this too)."""
    message = canonical(method, path, timestamp, nonce, body)
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signed_headers(
    key_id: str, secret: str, method: str, path: str, body: bytes, now: float
) -> dict[str, str]:
    """The four headers for a request made at `now` (Unix seconds)."""
    timestamp, nonce = str(int(now)), secrets.token_urlsafe(18)
    return {
        KEY: key_id,
        TIMESTAMP: timestamp,
        NONCE: nonce,
        SIGNATURE: sign(secret, method, path, timestamp, nonce, body),
    }


def new_key_id() -> str:
    return "dk_" + secrets.token_urlsafe(15)


def new_salt() -> str:
    return secrets.token_hex(16)


def device_key() -> bytes:
    """The platform's key that device secrets are derived from."""
    configured = getattr(settings, "CASINO_DEVICE_KEY", "")
    source = configured or f"casino-device-key:{settings.SECRET_KEY}"
    return hashlib.sha256(source.encode()).digest()


@lru_cache(maxsize=65536)
def _derived(key: bytes, key_id: str, salt: str) -> str:
    mac = hmac.new(key, f"casino-device-secret:{key_id}:{salt}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode()


def secret_for(key_id: str, salt: str) -> str:
    """The secret of a credential: shown once at issue, recomputed to check a signature."""
    return _derived(device_key(), key_id, salt)


def headers_read(meta: dict[str, str]) -> tuple[str, str, str, str]:
    """(key id, timestamp, nonce, signature) from a request's META, or SignatureRefused."""
    values = []
    for name in HEADERS:
        value = meta.get("HTTP_" + name.upper().replace("-", "_"), "")
        if not value:
            raise SignatureRefused(f"the {name} header is missing")
        values.append(value)
    key_id, timestamp, nonce, signature = values
    if not KEY_FORM.match(key_id):
        raise SignatureRefused(f"{KEY} is not a device key id")
    if not (timestamp.isascii() and timestamp.isdigit()) or len(timestamp) > 12:
        raise SignatureRefused(f"{TIMESTAMP} must be Unix seconds")
    if not NONCE_FORM.match(nonce):
        raise SignatureRefused(f"{NONCE} must be 16 to 64 characters of A-Z a-z 0-9 _ -")
    if len(signature) != 64:
        raise SignatureRefused(f"{SIGNATURE} must be 64 hex digits of HMAC-SHA256")
    return key_id, timestamp, nonce, signature


def timestamp_check(timestamp: str, now: float, skew: int) -> None:
    """SignatureRefused when the request was signed more than `skew` seconds from now."""
    off = int(timestamp) - now
    if abs(off) > skew:
        when = "old" if off < 0 else "far in the future"
        raise SignatureRefused(
            f"the request was signed {abs(off):.0f} s from now: too {when} (limit {skew} s)"
        )


def signature_check(
    secret: str, method: str, path: str, timestamp: str, nonce: str, body: bytes, given: str
) -> None:
    expected = sign(secret, method, path, timestamp, nonce, body)
    if not hmac.compare_digest(expected, given.lower()):
        raise SignatureRefused("the signature does not match the request")

"""What an endpoint's URL and the addresses it resolves to may be: the checks against
server-side request forgery, pure (no Django; webhooks/sending.py resolves and connects).

An integrator names a URL and our worker connects to it from inside the floor's network,
so a URL must never reach what only the floor's machines can: the machine itself
(loopback), the private networks, the link-local range (a cloud's metadata service at
169.254.169.254), multicast, or any range not routed on the internet. Every address a
host resolves to is checked, in every spelling an address has: an IPv4 address written
inside an IPv6 one (IPv4-mapped ::ffff:a.b.c.d, 6to4 2002::/16, Teredo 2001::/32, NAT64
64:ff9b::/96) is checked as the IPv4 address it carries. Only the networks a setting
allows (CASINO_WEBHOOK_ALLOWED_NETWORKS: loopback in development, for the demo and the
tests) are let through; production refuses to start with loopback, link-local,
multicast or unspecified among them (`allowed_networks_refusals`).
"""

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

URL_LENGTH = 1000
NAT64 = ipaddress.ip_network("64:ff9b::/96")

# Never allowed in production, whatever the setting says: the machine itself, the cloud's
# metadata service and its neighbours, "any address" and multicast.
NEVER_IN_PRODUCTION: tuple[tuple[str, Network], ...] = tuple(
    (what, ipaddress.ip_network(text))
    for what, text in (
        ("loopback", "127.0.0.0/8"),
        ("loopback", "::1/128"),
        ("link-local", "169.254.0.0/16"),
        ("link-local", "fe80::/10"),
        ("unspecified", "0.0.0.0/8"),
        ("unspecified", "::/128"),
        ("multicast", "224.0.0.0/4"),
        ("multicast", "ff00::/8"),
        ("loopback", "::ffff:127.0.0.0/104"),
        ("link-local", "::ffff:169.254.0.0/112"),
        ("unspecified", "::ffff:0.0.0.0/104"),
    )
)


@dataclass(frozen=True)
class Target:
    """A URL split as the sender needs it: where to connect and what to ask for."""

    scheme: str
    host: str  # ASCII: an IDNA name, or an address without brackets
    port: int
    path: str  # with its query, never empty
    host_header: str  # the Host header: the name (and port when not the scheme's)


def carried_ipv4(address: Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, Teredo's client, NAT64)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_kind(address: Address) -> str | None:
    """What makes the address unfit for a webhook ("loopback", "private", ...), or None
    for an address routed on the internet. An IPv4 address inside an IPv6 one is judged
    as itself."""
    inner = carried_ipv4(address)
    if inner is not None:
        return address_kind(inner)
    for kind, test in (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("private", address.is_private),
        ("reserved", address.is_reserved),
    ):
        if test:
            return kind
    if not address.is_global:  # the shared 100.64.0.0/10, and the like
        return "not routed on the internet"
    return None


def address_refusal(address: Address, allowed: Sequence[Network] = ()) -> str | None:
    """Why a webhook may not go to this address, or None when it may: one routed on the
    internet, or one within a network of `allowed`."""
    inner = carried_ipv4(address)
    if any(address in network or (inner is not None and inner in network)
           for network in allowed):  # fmt: skip
        return None
    kind = address_kind(address)
    if kind is None:
        return None
    shown = f"{address} ({inner})" if inner is not None else str(address)
    return (
        f"{shown} is {_an_address(kind)}: a webhook goes only to an address routed on the "
        "internet (CASINO_WEBHOOK_ALLOWED_NETWORKS lists the exceptions)"
    )


def _an_address(kind: str) -> str:
    """ "a loopback address", "an unspecified address", "an address not routed on ..." """
    if kind.startswith("not "):
        return f"an address {kind}"
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} address"


def url_split(url: object, *, https_only: bool) -> tuple[Target | None, list[str]]:
    """The URL's parts, or None with every reason it is refused (scheme, host, port,
    credentials, fragment, length, spaces). Its host's addresses are checked apart, once
    resolved (`address_refusal`)."""
    if not isinstance(url, str) or not url:
        return None, ["give the endpoint's URL, e.g. https://hooks.example.com/casino"]
    if len(url) > URL_LENGTH:
        return None, [f"the URL has {len(url)} characters; {URL_LENGTH} at most"]
    if any(ch.isspace() or not ch.isprintable() for ch in url):
        return None, ["the URL has a space or a control character; encode it (%20)"]
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        return None, [f"the URL is not well formed ({error})"]
    reasons = []
    schemes = ("https",) if https_only else ("https", "http")
    if parts.scheme not in schemes:
        reasons.append(
            "the URL must start with https://"
            if https_only
            else "the URL must start with https:// or http://"
        )
    if parts.username is not None or parts.password is not None:
        reasons.append(
            "the URL carries a user name or password: leave them out (the signature "
            "proves the message is ours; your receiver checks it)"
        )
    if parts.fragment or url.endswith("#"):
        reasons.append("the URL has a fragment (#...), which is never sent: leave it out")
    host = parts.hostname or ""
    if not host:
        reasons.append("the URL names no host")
    else:
        try:
            ascii_host = _ascii_host(host)
        except ValueError as error:
            reasons.append(str(error))
            ascii_host = ""
    if port is not None and not 1 <= port <= 65535:
        reasons.append(f"port {port} is not 1 to 65535")
    if reasons:
        return None, reasons
    default_port = 443 if parts.scheme == "https" else 80
    shown = f"[{ascii_host}]" if ":" in ascii_host else ascii_host
    host_header = shown if port in (None, default_port) else f"{shown}:{port}"
    path = parts.path or "/"
    if parts.query:
        path += f"?{parts.query}"
    return Target(parts.scheme, ascii_host, port or default_port, path, host_header), []


def _ascii_host(host: str) -> str:
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        raise ValueError(f"the host {host!r} is not a valid name") from None
    labels = ascii_host.rstrip(".").split(".")
    if not all(label and len(label) <= 63 and _label_ok(label) for label in labels):
        raise ValueError(f"the host {host!r} is not a valid name")
    return ascii_host.rstrip(".")


def _label_ok(label: str) -> bool:
    return (
        all(ch.isascii() and (ch.isalnum() or ch in "-_") for ch in label)
        and not label.startswith("-")
        and not label.endswith("-")
    )


def networks_parse(text: str) -> list[Network]:
    """CASINO_WEBHOOK_ALLOWED_NETWORKS: networks or addresses, comma-separated.
    ValueError naming the first that is neither."""
    networks = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item!r} is not a network (10.20.0.0/16) or an address") from None
    return networks


def allowed_networks_refusals(networks: Iterable[Network]) -> list[str]:
    """The allowed networks production refuses: any that reaches loopback, link-local,
    unspecified or multicast addresses (a private network the integrators sit on may be
    allowed; the floor's own machines and the metadata service may not)."""
    refusals = []
    for network in networks:
        for kind, never in NEVER_IN_PRODUCTION:
            if network.version == never.version and network.overlaps(never):
                refusals.append(f"{network} reaches {kind} addresses ({never})")
                break
    return refusals

"""Server-side request forgery (webhooks/addresses.py, webhooks/sending.py): every class
of address an endpoint must never reach, in IPv4 and IPv6 and every IPv4-in-IPv6 spelling;
the URL's own form; the networks a setting may allow, and what production refuses."""

import ipaddress

import pytest

from casino.env import production_refusals
from webhooks.addresses import (
    address_kind,
    address_refusal,
    allowed_networks_refusals,
    networks_parse,
    url_split,
)

# (address, the class that refuses it): one row per class, each family, each spelling.
REFUSED = [
    ("127.0.0.1", "loopback"),
    ("127.255.0.9", "loopback"),
    ("::1", "loopback"),
    ("10.0.0.1", "private"),
    ("172.16.5.4", "private"),
    ("192.168.1.1", "private"),
    ("fc00::1", "private"),
    ("fd12:3456::1", "private"),
    ("169.254.169.254", "link-local"),  # a cloud's metadata service
    ("fe80::1", "link-local"),
    ("224.0.0.1", "multicast"),  # is_global in Python: refused by name
    ("239.255.255.250", "multicast"),
    ("ff02::1", "multicast"),
    ("0.0.0.0", "unspecified"),
    ("::", "unspecified"),
    ("240.0.0.1", "private"),  # reserved (class E); Python also calls it private
    ("255.255.255.255", "private"),
    ("100.64.0.1", "not routed on the internet"),  # shared address space (carrier NAT)
    ("192.0.2.1", "private"),  # documentation
    ("2001:db8::1", "private"),  # documentation
    ("198.18.0.1", "private"),  # benchmarking
    # IPv4 inside IPv6: judged as the IPv4 address it carries.
    ("::ffff:127.0.0.1", "loopback"),
    ("::ffff:10.1.2.3", "private"),
    ("::ffff:169.254.169.254", "link-local"),
    ("2002:7f00:1::", "loopback"),  # 6to4 of 127.0.0.1
    ("2002:a9fe:a9fe::1", "link-local"),  # 6to4 of 169.254.169.254
    ("64:ff9b::7f00:1", "loopback"),  # NAT64 of 127.0.0.1
    ("64:ff9b::a00:1", "private"),  # NAT64 of 10.0.0.1
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"),  # Teredo, client 127.0.0.1
]
ROUTED = ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"]


# How a refusal names each class, in a sentence.
NAMED = {"unspecified": "is an unspecified address",
         "not routed on the internet": "is an address not routed on the internet"}  # fmt: skip


@pytest.mark.parametrize(("text", "kind"), REFUSED)
def test_each_class_of_address_is_refused_and_named(text, kind):
    address = ipaddress.ip_address(text)
    assert address_kind(address) == kind
    refusal = address_refusal(address)
    assert refusal is not None and NAMED.get(kind, f"is a {kind} address") in refusal


@pytest.mark.parametrize("text", ROUTED)
def test_an_address_routed_on_the_internet_is_allowed(text):
    assert address_kind(ipaddress.ip_address(text)) is None
    assert address_refusal(ipaddress.ip_address(text)) is None


def test_an_ipv4_address_in_ipv6_is_shown_with_what_it_carries():
    refusal = address_refusal(ipaddress.ip_address("::ffff:127.0.0.1"))
    assert refusal.startswith("::ffff:7f00:1 (127.0.0.1) is a loopback address")


def test_the_allowed_networks_let_their_addresses_through_in_every_spelling():
    allowed = networks_parse("127.0.0.0/8, 10.20.0.0/16")
    for text in ("127.0.0.1", "::ffff:127.0.0.1", "10.20.3.4", "64:ff9b::a14:304"):
        assert address_refusal(ipaddress.ip_address(text), allowed) is None, text
    for text in ("10.21.0.1", "::1", "169.254.169.254"):
        assert address_refusal(ipaddress.ip_address(text), allowed) is not None, text


def test_a_bad_network_is_named():
    with pytest.raises(ValueError, match=r"'10\.0\.0\.0/33' is not a network"):
        networks_parse("127.0.0.0/8,10.0.0.0/33")
    assert networks_parse(" , ") == []


def test_production_refuses_networks_that_reach_the_machine_or_the_metadata_service():
    networks = networks_parse(
        "10.20.0.0/16,127.0.0.1,0.0.0.0/0,169.254.0.0/16,::/0,fd00::/8,224.0.0.0/8"
    )
    assert allowed_networks_refusals(networks) == [
        "127.0.0.1/32 reaches loopback addresses (127.0.0.0/8)",
        "0.0.0.0/0 reaches loopback addresses (127.0.0.0/8)",
        "169.254.0.0/16 reaches link-local addresses (169.254.0.0/16)",
        "::/0 reaches loopback addresses (::1/128)",
        "224.0.0.0/8 reaches multicast addresses (224.0.0.0/4)",
    ]


PRODUCTION = {
    "DJANGO_SECRET_KEY": "s" * 50,
    "CASINO_DEVICE_KEY": "d" * 50,
    "DJANGO_ALLOWED_HOSTS": "floor.example.com",
    "DATABASE_URL": "postgres://db/casino",
    "CELERY_BROKER_URL": "redis://redis:6379/0",
}


def test_production_starts_with_a_private_network_its_integrators_sit_on():
    assert production_refusals({**PRODUCTION}) == []
    allowed = {**PRODUCTION, "CASINO_WEBHOOK_ALLOWED_NETWORKS": "10.20.0.0/16"}
    assert production_refusals(allowed) == []


def test_production_refuses_loopback_http_and_a_malformed_network_at_start():
    assert production_refusals(
        {**PRODUCTION, "CASINO_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8,10.0.0.0/8"}
    ) == [
        "CASINO_WEBHOOK_ALLOWED_NETWORKS: 127.0.0.0/8 reaches loopback addresses (127.0.0.0/8): "
        "a webhook may never go there"
    ]
    assert production_refusals({**PRODUCTION, "CASINO_WEBHOOK_HTTPS_ONLY": "false"}) == [
        "CASINO_WEBHOOK_HTTPS_ONLY is off: webhooks go over https only"
    ]
    assert production_refusals({**PRODUCTION, "CASINO_WEBHOOK_ALLOWED_NETWORKS": "ten"}) == [
        "CASINO_WEBHOOK_ALLOWED_NETWORKS: 'ten' is not a network (10.20.0.0/16) or an address"
    ]


# --- the URL's own form ------------------------------------------------------------------

URL_REFUSED = [
    ("", "give the endpoint's URL"),
    ("ftp://hooks.example.com/", "must start with https:// or http://"),
    ("hooks.example.com/casino", "must start with https:// or http://"),
    ("https://user:pw@hooks.example.com/", "carries a user name or password"),
    ("https://hooks.example.com/#top", "has a fragment"),
    ("https:///casino", "names no host"),
    ("https://hooks example.com/", "has a space or a control character"),
    ("https://hooks.example.com:99999/", "not well formed"),
    ("https://-bad-.example.com/", "is not a valid name"),
    ("https://" + "a" * 64 + ".example.com/", "is not a valid name"),
    ("https://hooks.example.com/" + "x" * 1000, "the URL has 1026 characters; 1000 at most"),
]


@pytest.mark.parametrize(("url", "words"), URL_REFUSED)
def test_a_malformed_url_is_refused_saying_why(url, words):
    target, reasons = url_split(url, https_only=False)
    assert target is None
    assert any(words in reason for reason in reasons), reasons


def test_https_only_refuses_http():
    target, reasons = url_split("http://hooks.example.com/", https_only=True)
    assert (target, reasons) == (None, ["the URL must start with https://"])


def test_a_url_is_split_into_what_the_sender_connects_to():
    target, reasons = url_split("https://Hooks.Example.com:8443/in?floor=1", https_only=True)
    assert reasons == []
    assert (target.scheme, target.host, target.port, target.path, target.host_header) == (
        "https", "hooks.example.com", 8443, "/in?floor=1", "hooks.example.com:8443"
    )  # fmt: skip
    target, _ = url_split("http://[::1]/", https_only=False)
    assert (target.host, target.port, target.path, target.host_header) == ("::1", 80, "/", "[::1]")
    target, _ = url_split("https://bücher.example/", https_only=True)
    assert target.host == "xn--bcher-kva.example"

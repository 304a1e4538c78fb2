"""Values for a mined text column that is neither a row's name nor long prose.

The column's name decides the value's shape: a path looks like a path, a version like a version,
a colour like a colour, a visibility is public or private. It is a heuristic over the column
names real servers use most (measured over the selected snapshot); an unknown name gets a short
phrase built from the name itself, never a copy of the row's name.
"""

from __future__ import annotations

import base64
import random
import uuid

from agentworld.servers.words import words

__all__ = ["plain_text", "network_value", "shaped_label", "SOFTWARE_NOUNS", "SLUG_WORDS",
           "THEMES"]

# Theme words for invented names: "Cedar quarterly report", handles like "cedar-finance".
THEMES = ("Atlas", "Beacon", "Cedar", "Delta", "Ember", "Fjord", "Granite", "Harbor", "Iris",
          "Juniper", "Kestrel", "Lumen", "Meridian", "Nimbus", "Orchid", "Pioneer", "Quartz",
          "Redwood", "Summit", "Tundra", "Vertex", "Willow", "Zenith", "Aurora", "Bramble",
          "Cobalt", "Drift", "Evergreen", "Falcon", "Horizon", "Indigo", "Lagoon", "Maple",
          "Northstar", "Onyx", "Prairie", "Sierra", "Tidal", "Umber", "Vista")
SLUG_WORDS = tuple(t.lower() for t in THEMES[:20])
_AREAS = ("finance", "support", "platform", "growth", "retail", "compliance", "research",
          "operations", "marketing", "security")
# A closed vocabulary per column word; the first word of a column's name that has one wins.
_CHOICES: dict[str, tuple[str, ...]] = {
    "visibility": ("public", "private", "internal"),
    "severity": ("low", "medium", "high", "critical"),
    "priority": ("low", "normal", "high", "urgent"),
    "environment": ("production", "staging", "development"),
    "env": ("production", "staging", "development"),
    "language": ("en", "de", "fr", "es", "ja", "pt"),
    "lang": ("en", "de", "fr", "es", "ja", "pt"),
    "locale": ("en-US", "en-GB", "de-DE", "fr-FR", "ja-JP"),
    "encoding": ("utf-8", "base64", "latin-1"),
    "tz": ("UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"),
    "timezone": ("UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"),
    "currency": ("USD", "EUR", "GBP", "JPY"),
    "unit": ("pcs", "kg", "m", "h", "l"),
    # An HTTP method only where the column is the request's (see _HTTP_METHOD_COLUMNS); a
    # payment_method or pickup_method is no "DELETE".
    "payment": ("card", "bank_transfer", "paypal", "invoice"),
    "availability": ("in_stock", "out_of_stock", "preorder", "backorder"),
    "protocol": ("https", "ssh", "sftp"),
    "scope": ("read", "write", "admin"),
    "role": ("viewer", "editor", "admin", "owner"),
    "permission": ("read", "write", "admin"),
    "type": ("standard", "custom", "internal", "external"),
    "kind": ("standard", "custom", "internal", "external"),
    "category": _AREAS,
    "group": _AREAS,
    "department": _AREAS,
    "team": _AREAS,
    "layer": ("base", "annotations", "labels", "overlay"),
    "color": ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"),
    "colour": ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"),
    "content_type": ("application/json", "text/plain", "text/csv", "application/pdf"),
    "mime": ("application/json", "text/plain", "text/csv", "application/pdf"),
}
_HTTP_METHOD_COLUMNS = frozenset({"method", "http_method", "request_method",
                                  "http_verb"})
_CURRENCIES = ("EUR", "USD", "GBP", "JPY", "CHF", "AUD", "CAD", "SEK")
_FILE_EXT = ("pdf", "csv", "json", "md", "xlsx", "png")
# The extension a file's column or entity names: an Excel upload's path ends in .xlsx.
_EXT_OF = {"excel": "xlsx", "xlsx": "xlsx", "spreadsheet": "xlsx", "csv": "csv", "pdf": "pdf",
           "image": "png", "png": "png", "photo": "jpg", "jpg": "jpg", "json": "json",
           "markdown": "md", "video": "mp4", "audio": "mp3", "word": "docx", "docx": "docx"}
# Column words naming a thing referred to by a short lowercase handle (a workspace, a repo).
_HANDLES = frozenset("workspace repo repository project site sitename app service account alias "
                     "node storage dataset database db bucket channel queue topic host cluster "
                     "namespace branch parent destination source space board folder org "
                     "organization slug handle".split())


_INTERFACES = ("lan", "wan", "eth0", "eth1", "igb0", "igb1", "vlan10", "vlan20", "opt1", "wg0")
_PORTS = ("22", "53", "80", "443", "3306", "5432", "6379", "8080", "8443", "9090")
_DNS_TYPES = ("A", "A", "AAAA", "CNAME", "MX", "TXT")
_NAMED_BY_DOMAIN = frozenset({"zone", "domain", "dns_zone", "site", "website"})
_NAMED_BY_HOST = frozenset({"dns_record", "host", "hostname", "subdomain"})
# Named as Kubernetes, clouds and git name them, by the handles other tables refer to them by
# (a k8s namespace "lumen-platform", not "Granite onboarding namespace"). Not a node, topic,
# queue or branch: a graph's, a forum's, a support desk's and a bank's are named otherwise.
_NAMED_BY_HANDLE = frozenset({"namespace", "pod", "cluster", "bucket", "repository", "repo"})
_NAMED_LIKE_SERVICES = frozenset({"app", "service", "microservice", "deployment", "workload",
                                  "function", "container", "worker"})
# Named like services only beside what software runs on: a BambooHR application is a job
# application, an ArgoCD one a service.
_SERVICES_IN_SOFTWARE = frozenset({"application", "api"})
SOFTWARE_NOUNS = frozenset({"cluster", "namespace", "pod", "deployment", "repository", "repo",
                            "pipeline", "container", "image", "node", "build", "release",
                            "environment", "workload", "helm_release"})
_SERVICES = ("checkout", "payments", "search", "auth", "billing", "inventory", "notifications",
             "catalog", "gateway", "reporting", "orders", "accounts")
_SERVICE_ROLES = ("api", "web", "worker", "service", "frontend", "scheduler")


def _handle(i: int) -> str:
    """Row ``i``'s short lowercase handle (``cedar-finance``), distinct for 200 rows."""
    return f"{SLUG_WORDS[i % len(SLUG_WORDS)]}-{_AREAS[(i + i // len(SLUG_WORDS)) % len(_AREAS)]}"


def _domain(i: int) -> str:
    return f"{_handle(i)}.example.com"


def _public_ip(i: int) -> str:
    return f"{('203.0.113', '198.51.100')[i % 2]}.{10 + i * 7 % 240}"


def _ipv6(i: int) -> str:
    return f"2001:db8:{i % 16:x}::{10 + i * 7 % 240:x}"


def shaped_label(entity: str, i: int, software: bool = False) -> str | None:
    """The name of row ``i`` where the entity's kind has a shape of its own: a Cloudflare zone
    is ``cedar-finance.example.com`` and an ArgoCD application ``checkout-api``, not "Cedar
    quarterly zone" or "Fjord retail application"; else None. ``software``: the environment
    also keeps what software runs on (clusters, repositories; :data:`SOFTWARE_NOUNS`)."""
    if entity in _NAMED_LIKE_SERVICES or software and entity in _SERVICES_IN_SOFTWARE:
        base = f"{_SERVICES[i % len(_SERVICES)]}-{_SERVICE_ROLES[i // len(_SERVICES) % 6]}"
        cycle = i // (len(_SERVICES) * len(_SERVICE_ROLES))
        return base if not cycle else f"{base}-{cycle + 1}"
    if entity in _NAMED_BY_DOMAIN:
        return _domain(i)
    if entity in _NAMED_BY_HANDLE:
        return _handle(i)
    if entity in _NAMED_BY_HOST:
        sub = ("www", "api", "mail", "app", "cdn", "vpn", "status", "docs")[i % 8]
        return f"{sub}.{SLUG_WORDS[i // 8 % len(SLUG_WORDS)]}.example.com"
    return None


def network_value(column: str, entity: str, i: int) -> str | None:
    """:func:`_network_value` for a column of an entity: a DNS record's type is a record type
    and its content an address."""
    parts = words(column)
    if "dns" in words(entity) or entity == "record" and "dns" in parts:
        last = parts[-1] if parts else ""
        if last == "type":
            return _DNS_TYPES[i % len(_DNS_TYPES)]
        if last in ("content", "value", "data", "target"):
            # What the row's type (same index) holds: an A record an address, an MX a host.
            kind, site = _DNS_TYPES[i % len(_DNS_TYPES)], _domain(i)
            return {"A": _public_ip(i), "AAAA": _ipv6(i), "CNAME": f"edge.{site}",
                    "MX": f"mail.{site}", "TXT": "v=spf1 include:_spf.example.com ~all"}[kind]
    return _network_value(parts, i)


def _network_value(parts: list[str], i: int) -> str | None:
    """An address, subnet, interface, port or domain name where the column's name says so;
    addresses from the private and documentation ranges (RFC 1918, RFC 5737, RFC 3849), names
    under example domains (RFC 2606), so nothing seeded is anyone's real host."""
    last = parts[-1] if parts else ""
    words_ = set(parts)
    if last in ("ipv6", "ip6") or {"ipv6", "ip6"} & words_ and last in ("address", "addr"):
        return _ipv6(i)
    if last in ("cidr", "subnet", "subnets", "netmask_cidr") or last == "network" and (
            words_ & {"ip", "vpc", "lan", "wan", "local", "private"}):
        return f"10.{20 + i % 40}.{i * 3 % 16 * 16}.0/{(24, 24, 22, 20)[i % 4]}"
    if last in ("ip", "ipv4", "ipaddr", "ip4") or "ip" in words_ and last in (
            "address", "addr") or last == "gateway" and not words_ & {"payment", "api", "sms"}:
        if words_ & {"external", "public", "wan", "remote", "peer", "source", "src"}:
            return _public_ip(i)
        return f"10.{i % 8}.{i * 5 % 32}.{1 if last == 'gateway' else 10 + i * 7 % 240}"
    if last == "mac" or "mac" in words_ and last in ("address", "addr"):
        return f"52:54:00:{(i * 37 + 18) % 256:02x}:{(i * 11 + 52) % 256:02x}:{i % 256:02x}"
    if last in ("interface", "iface", "nic"):
        return _INTERFACES[i % len(_INTERFACES)]
    if last == "port":
        return _PORTS[i % len(_PORTS)]
    if last in ("duration", "lifetime", "ttl") and words_ & {"session", "token", "cookie"}:
        return ("30m", "1h", "8h", "24h", "7d", "30d")[i % 6]
    if last in ("hostname", "fqdn"):
        return f"{SLUG_WORDS[i % len(SLUG_WORDS)]}-{1 + i // len(SLUG_WORDS):02d}.example.net"
    if last == "domain" and not words_ & {"business", "knowledge", "subject"} or (
            last == "zone" and "dns" in words_):
        return _domain(i)
    return None


def plain_text(column: str, noun: str, i: int, rng: random.Random) -> str:
    """The seeded value of text column ``column`` in row ``i`` of an entity named ``noun``."""
    lowered = column.lower()
    parts = words(column)
    last = parts[-1] if parts else lowered
    handle = _handle(i)
    if last == "pair" or lowered in ("symbol_pair", "fx_pair"):
        base, quote = _CURRENCIES[i % len(_CURRENCIES)], _CURRENCIES[(i // len(_CURRENCIES) + 1
                                                                      + i) % len(_CURRENCIES)]
        return f"{base}/{quote}" if base != quote else f"{base}/USD"
    if lowered in ("content_type", "mime_type", "mimetype"):
        return rng.choice(_CHOICES["content_type"])
    if lowered in _HTTP_METHOD_COLUMNS:
        return rng.choice(("GET", "POST", "PUT", "DELETE"))
    if last == "method" and parts[:-1] in (["shipping"], ["delivery"], ["pickup"]):
        return rng.choice(("standard", "express", "store_pickup", "courier"))
    if last == "sla" and parts[:-1] in (["shipping"], ["delivery"], ["pickup"]):
        # how soon an order is ready or arrives, as Merchant Center's pickup SLAs say it
        return rng.choice(("same_day", "next_day", "two_day", "three_day", "multi_week"))
    network = _network_value(parts, i)
    if network is not None:
        return network
    for word in reversed(parts):
        if word in _CHOICES:
            return rng.choice(_CHOICES[word])
    if last in ("path", "filepath", "filename", "file") or lowered.endswith(("_path", "path")):
        stem = f"{handle}-{noun.replace('_', '-')}"
        if "dir" in lowered or "folder" in lowered:
            return f"/srv/{noun.replace('_', '-')}s/{handle}"
        said = [_EXT_OF[w] for w in [*parts, *words(noun)] if w in _EXT_OF]
        name = f"{stem}.{said[0] if said else _FILE_EXT[i % len(_FILE_EXT)]}"
        return name if "name" in last else f"/data/{noun.replace('_', '-')}s/{name}"
    if last in ("directory", "dir"):
        return f"/srv/{noun.replace('_', '-')}s/{handle}"
    if last in ("url", "uri", "link", "href"):
        # a URL that names a row (delete_repository(repo_url)) is a URL, distinct per row
        if set(parts) & {"repo", "repository", "git", "clone"}:
            return f"https://git.example.com/{_AREAS[i % len(_AREAS)]}/{handle}.git"
        return f"https://{noun.replace('_', '-')}s.example.com/{handle}"
    if last == "range" and not set(parts) & {"date", "time", "price", "age", "ip", "port"}:
        # a spreadsheet range in A1 notation (Google Sheets' range, data_range)
        return f"A{1 + i % 5}:{'DEFGH'[i % 5]}{20 + i * 3}"
    if last == "version":
        return f"{1 + i % 4}.{(i * 7) % 12}.{(i * 3) % 10}"
    if last in ("revision", "commit") or lowered in ("commit_sha", "git_ref", "target_ref"):
        # what a deploy pins: a branch, HEAD, a tag or a short commit
        return ("HEAD", "main", f"v{1 + i % 4}.{(i * 7) % 12}.0",
                f"{rng.getrandbits(28):07x}")[i % 4]
    if last in ("uuid", "guid", "uid"):
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if last in ("hex", "hash", "sha256", "sha", "sha1", "checksum", "digest", "etag", "md5"):
        bits = 256 if "256" in lowered or last == "hex" else 160
        return f"{rng.getrandbits(bits):0{bits // 4}x}"
    if last == "base64" or lowered.endswith("_b64"):
        return base64.b64encode(rng.randbytes(24)).decode()
    if last in ("ticker", "symbol"):
        return "".join(rng.choice("ABCDEFGHIJKLMNOPRSTW") for _ in range(rng.randint(3, 4)))
    if last in _HANDLES or lowered.endswith("_or_slug") or last == "name":
        return handle
    if last in ("code", "number", "no", "ref", "sku"):
        return f"{noun[:3].upper()}-{1000 + i * 37 % 9000}"
    phrase = " ".join(parts) or lowered
    return f"{_AREAS[(i * 7) % len(_AREAS)].capitalize()} {phrase}"

import ipaddress
import random
import re

from agentworld.servers.world.mined.seed import KEY_POOL_SIZE, _text_keys
from agentworld.servers.world.mined.text import network_value, plain_text, shaped_label


def _value(column, i=3):
    return plain_text(column, "invoice", i, random.Random(column))


def test_values_take_the_shape_the_column_name_says():
    assert re.fullmatch(r"\d+\.\d+\.\d+", _value("version"))
    assert re.fullmatch(r"#[0-9a-f]{6}", _value("fill_color"))
    assert _value("visibility") in ("public", "private", "internal")
    assert _value("content_type").count("/") == 1
    assert re.fullmatch(r"[0-9a-f]{64}", _value("sha256_hex"))
    assert re.fullmatch(r"[A-Z]{3}/[A-Z]{3}", _value("currency_pair"))
    assert _value("output_path").startswith("/data/invoices/")
    assert re.fullmatch(r"[a-z]+-[a-z]+", _value("workspace"))
    for i in range(4):              # ArgoCD's target_revision was "Compliance target revision"
        assert re.fullmatch(r"HEAD|main|v\d+\.\d+\.0|[0-9a-f]{7}", _value("target_revision", i))


def test_only_a_requests_method_is_an_http_method():
    # Google Merchant Center's local inventories once had pickup_method "DELETE".
    assert _value("method") in ("GET", "POST", "PUT", "DELETE")
    assert _value("http_method") in ("GET", "POST", "PUT", "DELETE")
    assert _value("payment_method") in ("card", "bank_transfer", "paypal", "invoice")
    assert _value("pickup_method") in ("standard", "express", "store_pickup", "courier")
    assert _value("auth_method") not in ("GET", "POST", "PUT", "DELETE")
    assert _value("availability") in ("in_stock", "out_of_stock", "preorder", "backorder")


def test_a_pickup_or_delivery_sla_is_a_lead_time():
    # gmc's local inventories had pickup_sla "Finance pickup sla".
    for column in ("pickup_sla", "delivery_sla"):
        assert _value(column) in ("same_day", "next_day", "two_day", "three_day", "multi_week")


def test_network_columns_hold_addresses_from_reserved_ranges_and_example_names():
    # OPNsense's one-to-one NAT had external ip "Finance external ip" and interface
    # "Platform interface"; Cloudflare's access apps had domain "Finance domain".
    documentation = [ipaddress.ip_network(n) for n in ("203.0.113.0/24", "198.51.100.0/24")]
    for i in range(40):
        external = ipaddress.ip_address(_value("external_ip", i))
        assert any(external in net for net in documentation)
        for column in ("internal_ip", "ip_address", "gateway", "host_ip"):
            assert ipaddress.ip_address(_value(column, i)).is_private, column
        assert ipaddress.ip_network(_value("subnet", i)).is_private      # strict: host bits 0
        assert ipaddress.ip_address(_value("ipv6_address", i)) in ipaddress.ip_network(
            "2001:db8::/32")
        assert re.fullmatch(r"52:54:00(:[0-9a-f]{2}){3}", _value("mac_address", i))
        assert _value("domain", i).endswith(".example.com")
        assert _value("hostname", i).endswith(".example.net")
        assert 0 < int(_value("port", i)) < 65536
        assert re.fullmatch(r"[a-z]+[0-9]*", _value("interface", i))
    # Words that only look like network ones keep their own shapes.
    assert not _value("payment_gateway").count(".") == 3
    assert not _value("knowledge_domain").endswith(".example.com")
    assert _value("social_network").endswith("social network")


def test_a_zone_is_named_by_a_domain_and_a_dns_record_holds_a_type_and_an_address():
    # cloudflare-crunchtools had zone "Delta annual zone", record type "standard" and content
    # "Follow up with the owner before Friday.".
    zones = [shaped_label("zone", i) for i in range(100)]
    assert len(set(zones)) == 100 and all(z.endswith(".example.com") for z in zones)
    hosts = [shaped_label("dns_record", i) for i in range(100)]
    assert len(set(hosts)) == 100 and all(h.count(".") == 3 for h in hosts)
    assert shaped_label("invoice", 3) is None and shaped_label("record", 3) is None
    namespaces = [shaped_label("namespace", i) for i in range(200)]   # k8s: DNS-1123 labels
    assert len(set(namespaces)) == 200 and all(re.fullmatch(r"[a-z]+-[a-z]+", n)
                                               for n in namespaces)
    assert namespaces[3] == plain_text("namespace", "pod", 3, random.Random(0))
    assert shaped_label("application", 0) is None          # a job application, say
    apps = [shaped_label("application", i, software=True) for i in range(200)]
    assert len(set(apps)) == 200 and apps[0] == "checkout-api" and "-" in apps[150]
    assert {network_value("type", "dns_record", i) for i in range(6)} <= {
        "A", "AAAA", "CNAME", "MX", "TXT"}
    for i in range(12):             # a row's content is what its type holds
        kind, content = network_value("type", "dns_record", i), network_value("content",
                                                                             "dns_record", i)
        if kind in ("A", "AAAA"):
            assert ipaddress.ip_address(content).version == (4 if kind == "A" else 6)
        else:
            assert content.endswith(".example.com") or content.startswith("v=spf1")
    assert network_value("content", "note", 4) is None          # prose stays prose elsewhere
    assert network_value("session_duration", "access_app", 2) in ("30m", "1h", "8h", "24h",
                                                                 "7d", "30d")


def test_an_unknown_name_gets_its_own_phrase_never_a_row_name():
    value = _value("usecase")
    assert value.endswith("usecase") and value.split()[0].istitle()


def test_a_range_is_in_a1_notation_and_a_files_extension_is_the_one_it_names():
    # google-sheets-extended merged range "Platform range" and uploaded an Excel ".png".
    assert re.fullmatch(r"A\d:[D-H]\d+", _value("data_range"))
    assert not re.fullmatch(r"A\d:[D-H]\d+", _value("date_range"))
    assert plain_text("file_path", "excel", 3, random.Random(0)).endswith(".xlsx")
    assert _value("image_path").endswith(".png") and _value("csv_file").endswith(".csv")


def test_a_url_key_is_a_url_and_a_repositorys_one_a_git_url():
    # talkops-argocd deleted repository "atlas-repo-url-2".
    keys = _text_keys("repo_url", random.Random(0))
    assert len(set(keys)) == KEY_POOL_SIZE
    assert all(re.fullmatch(r"https://git\.example\.com/[a-z]+/[a-z]+-[a-z]+\.git", k)
               for k in keys)
    assert all(k.startswith("https://") for k in _text_keys("webhook_url", random.Random(0)))


def test_key_pools_are_distinct_within_and_across_columns():
    pools = {c: _text_keys(c, random.Random(c)) for c in ("role_name", "capability_name",
                                                         "version", "uid", "currency_pair")}
    for column, values in pools.items():
        assert len(set(values)) == KEY_POOL_SIZE, column
    assert not set(pools["role_name"]) & set(pools["capability_name"])
    assert all(v.endswith(("-role",)) or "-role-" in v for v in pools["role_name"])

import pytest

from coindrel.club.config import parse_broker_url, parse_club, settings_from_url
from coindrel.config import ConfigError, Section


def club(**kw):
    return parse_club(Section("club", kw, "coindrel.toml"))


def test_a_table_without_club_stays_off_the_network():
    assert club() is None


def test_full_settings(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("x")
    s = club(broker="mqtts://club.example.org", table="table-3", password_file="/etc/coindrel/pw", ca_file=str(ca),
             home_assistant=True)
    assert (s.broker.host, s.broker.port, s.broker.tls, s.username) == ("club.example.org", 8883, True, "table-3")
    assert str(parse_broker_url("mqtt://[::1]")) == "mqtt://[::1]:1883"


@pytest.mark.parametrize("kw, words", [
    ({"table": "t1"}, r"\[club\] broker: is required"),
    ({"broker": "tcp://x", "table": "t1"}, "mqtt:// or mqtts://"),
    ({"broker": "mqtt://u:p@x", "table": "t1"}, "password file"),
    ({"broker": "mqtt://x:99999", "table": "t1"}, "not a URL"),
    ({"broker": "mqtt://x"}, "table: is required"),
    ({"broker": "mqtt://x", "table": "Table 3"}, "not a table name"),
    ({"broker": "mqtt://x", "table": "t1", "ca_file": "/etc/ca.pem"}, "TLS broker"),
    ({"broker": "mqtts://x", "table": "t1", "ca_file": "/nonexistent/ca.pem"}, "cannot be read"),
    ({"broker": "mqtt://x", "table": "t1", "password_file": "pw"}, "absolute"),
    ({"broker": "mqtt://x", "table": "t1", "pasword_file": "/pw"}, "unknown key"),
])
def test_errors_name_the_key_and_the_fix(kw, words):
    with pytest.raises(ConfigError, match=words):
        club(**kw)


def test_password_file_problems_are_config_errors(tmp_path):
    s = club(broker="mqtt://x", table="t1", password_file=str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match="cannot read"):
        s.password()
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(ConfigError, match="empty"):
        settings_from_url("mqtt://x", "t1", password_file=str(tmp_path / "empty")).password()


def test_the_daemon_configuration_reads_club():
    from coindrel.table.settings import parse_settings

    s = parse_settings({"club": {"broker": "mqtt://127.0.0.1", "table": "t1"}})
    assert s["club"].table == "t1"
    assert parse_settings({})["club"] is None


def test_sim_s_club_options_are_named_as_options_not_as_a_file(monkeypatch):
    """Found by a newcomer: without the club extra, `coindrel sim --club ...` said
    "command line: [club] is set ... (or remove [club])", a file nobody wrote."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "aiomqtt" else real(name, *a))
    with pytest.raises(ConfigError) as e:
        settings_from_url("mqtt://127.0.0.1", "t1")
    text = str(e.value)
    assert text.startswith("--club mqtt://127.0.0.1: joining a club needs the MQTT client (aiomqtt)") and "[club] is set" not in text
    assert "pip install -e '.[club]'" in text and "leave out --club and --table" in text
    with pytest.raises(ConfigError) as e:  # the file's own message still names the file
        club(broker="mqtt://x", table="t1")
    assert str(e.value).startswith("coindrel.toml: [club] is set")
    assert "pip install 'SOURCE[club]' where SOURCE is coindrel's checkout (e.g. /opt/coindrel/src)" in str(e.value)


@pytest.mark.parametrize("url, table, words", [
    ("http://x", "t1", "--club http://x: broker"),
    ("mqtt://x", "Table 3", "--table Table 3: 'Table 3' is not a table name"),
])
def test_sim_s_club_option_errors_name_the_option(url, table, words):
    pytest.importorskip("aiomqtt")
    with pytest.raises(ConfigError) as e:
        settings_from_url(url, table)
    assert str(e.value).startswith(words) and "[club]" not in str(e.value), e.value

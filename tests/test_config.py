"""Config: defaults, precedence (yaml < env < --set), and one-line rejection of bad keys and values."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from app.config import DEFAULT_CONFIG_FILE, Config, load_config, render_yaml
from app.errors import ConfigError


def test_shipped_config_yaml_is_the_rendered_defaults():
    assert DEFAULT_CONFIG_FILE.read_text() == render_yaml()  # regenerate: python -m app config --defaults
    assert load_config(DEFAULT_CONFIG_FILE, env={}) == Config()


def test_config_command_shows_what_is_in_effect(capsys):
    assert main(["--set", "recall.top_k=9", "config"]) == 0
    shown = capsys.readouterr().out
    assert "  top_k: 9  #" in shown
    assert main(["config", "--defaults"]) == 0
    assert capsys.readouterr().out == DEFAULT_CONFIG_FILE.read_text()


def test_precedence_yaml_then_env_then_set(tmp_path: Path):
    yml = tmp_path / "c.yaml"
    yml.write_text("vad:\n  threshold: 0.6\n  min_silence_ms: 700\nrecall:\n  top_k: 7\n")
    env = {"APP_VAD_THRESHOLD": "0.7", "APP_RECALL_TOP_K": "9"}
    cfg = load_config(yml, env=env, overrides=["vad.threshold=0.8"])
    assert cfg.vad.threshold == 0.8  # --set beats env and yaml
    assert cfg.recall.top_k == 9  # env beats yaml
    assert cfg.vad.min_silence_ms == 700  # yaml beats the default
    assert cfg.vad.pad_ms == Config().vad.pad_ms  # untouched default


def test_env_with_multi_word_field_and_bool():
    cfg = load_config(DEFAULT_CONFIG_FILE, env={"APP_VAD_MIN_SPEECH_MS": "300", "APP_REPLAY_REALTIME": "yes"})
    assert cfg.vad.min_speech_ms == 300
    assert cfg.replay.realtime is True


def test_env_outside_our_sections_and_reserved_names_are_ignored():
    cfg = load_config(DEFAULT_CONFIG_FILE, env={"APP_KEY": "x", "APP_DATA_DIR": "/tmp", "APP_HOME": "/srv"})
    assert cfg == Config()


@pytest.mark.parametrize(
    ("yaml_text", "env", "overrides", "message"),
    [
        ("vad:\n  treshold: 0.5\n", {}, [], "unknown setting vad.treshold"),
        ("vda:\n  threshold: 0.5\n", {}, [], "unknown section 'vda'"),
        ("", {"APP_VAD_TRESHOLD": "0.5"}, [], "unknown setting vad.treshold"),
        ("", {}, ["vad.treshold=0.5"], "unknown setting vad.treshold"),
        ("", {}, ["threshold=0.5"], "expected section.field=value"),
        ("vad:\n  threshold: high\n", {}, [], "'high' is not a valid float"),
        ("vad:\n  threshold: 1.5\n", {}, [], "above the maximum"),
        ("", {"APP_RECALL_TOP_K": "2.5"}, [], "not a valid int"),
        ("", {}, ["device.kind=tpu"], "not one of cpu, cuda, jetson"),
        ("", {}, ["replay.realtime=maybe"], "not a valid bool"),
        ("vad: [1, 2]\n", {}, [], "must be a mapping"),
        ("vad:\n  threshold: 0.3\n", {}, [], "neg_threshold must be below"),
    ],
)
def test_bad_settings_fail_with_one_clear_line(tmp_path, yaml_text, env, overrides, message):
    yml = tmp_path / "c.yaml"
    yml.write_text(yaml_text)
    with pytest.raises(ConfigError) as err:
        load_config(yml, env=env, overrides=overrides)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_cli_rejects_a_bad_setting_before_starting(capsys):
    assert main(["--set", "vad.treshold=0.5", "people"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --set vad.treshold")


def test_cli_rejects_a_bad_env_value(monkeypatch, capsys):
    monkeypatch.setenv("APP_DEVICE_THREADS", "0")
    assert main(["people"]) == 2
    assert "below the minimum 1" in capsys.readouterr().err


def test_broken_yaml_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("vad: {threshold: [\n")
    assert main(["--config", str(bad), "people"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1

"""The trainer's report goes through logging, never to stdout; progress is switchable."""

import logging

import pytest

import p2b


def test_report_is_logged_not_printed(capfd, caplog):
    with caplog.at_level(logging.INFO, logger="p2b.codebook"):
        r = p2b.train_codebook(3, 8, seed=5, progress=False)
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # the C++ side wrote nothing to the terminal
    lines = [rec.getMessage() for rec in caplog.records if rec.levelno == logging.INFO]
    assert lines == r["report"]
    assert lines[0].startswith("p2b-codebook: d=3 q=1 k=8 seed=5")
    assert any(line.lstrip().startswith("inertia") for line in lines)
    assert all(rec.name == "p2b.codebook" for rec in caplog.records)


def test_progress_lines_are_debug(caplog):
    with caplog.at_level(logging.DEBUG, logger="p2b.codebook"):
        p2b.train_codebook(3, 8, seed=5, progress=False)
    debug = [rec.getMessage() for rec in caplog.records if rec.levelno == logging.DEBUG]
    assert any(line.startswith("Lloyd iteration") for line in debug)


def test_silent_without_logging_configured(capfd):
    p2b.train_codebook(3, 8, seed=5, progress=False)
    assert capfd.readouterr() == ("", "")


def test_progress_bar_when_tqdm_is_there(capfd):
    tqdm = pytest.importorskip("tqdm")
    assert tqdm is not None
    p2b.train_codebook(3, 8, seed=5, progress=True)
    _, err = capfd.readouterr()
    assert "train_codebook" in err


def test_progress_true_needs_tqdm(monkeypatch):
    import importlib.util
    import sys

    if importlib.util.find_spec("tqdm") is not None:
        monkeypatch.setitem(sys.modules, "tqdm", None)
        monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with pytest.raises(ImportError):
        p2b.train_codebook(3, 8, seed=5, progress=True)


def test_an_exception_in_the_callback_stops_training():
    from p2b import _p2b

    def stop(line):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _p2b.train_codebook(3, 8, seed=5, on_status=stop)

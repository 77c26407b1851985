"""The codebook trainer and file format, and p2b-keygen's key files."""

import os
import re
import stat
import subprocess

import numpy as np
import pytest

import p2b


def test_trainer_is_deterministic_and_on_the_simplex():
    r1 = p2b.train_codebook(3, 8, seed=5)
    r2 = p2b.train_codebook(3, 8, seed=5, threads=2)
    c = r1["centroids"]
    assert c.shape == (8, 3) and c.dtype == np.float32
    np.testing.assert_array_equal(c, r2["centroids"])  # bit for bit, any thread count
    np.testing.assert_allclose(c.sum(axis=1), 1.0, atol=1e-5)
    assert r1["grid"] == 66  # C(10 + 3 - 1, 3 - 1) points at q = 1
    assert int(r1["sizes"].sum()) == r1["grid"]
    with pytest.raises(ValueError):
        p2b.train_codebook(3, 1000)  # more codes than grid points


def test_file_round_trip_and_fingerprint(make_agent, codebook):
    data = p2b.encode_codebook(codebook, digits=1)
    centroids, info = p2b.parse_codebook(data)
    np.testing.assert_array_equal(centroids, codebook)
    assert (info["k"], info["dim"], info["digits"]) == (*codebook.shape, 1)
    assert info["fingerprint"] == make_agent().fingerprints()["codebook"]
    with pytest.raises(p2b.P2BError):
        p2b.parse_codebook(data[:-3])
    with pytest.raises(TypeError):
        p2b.encode_codebook(codebook.astype(np.float64))


def test_keygen_files(tmp_path):
    d = str(tmp_path / "keys")
    keys = p2b.keygen(d)
    assert sorted(os.listdir(d)) == sorted(p2b.keys.KEY_FILES)
    for name in p2b.keys.KEY_FILES:
        mode = stat.S_IMODE(os.stat(os.path.join(d, name)).st_mode)
        assert mode == (0o600 if name.endswith(".sk") else 0o644), name
    assert p2b.load_keys(d) == keys
    assert len(keys["analyzer.sign.sk"]) == 64 and len(keys["shuffler.box.pk"]) == 32
    fps = keys.fingerprints()
    assert set(fps) == {n for n in p2b.keys.KEY_FILES if n.endswith(".pk")}
    assert all(len(v) == 32 and int(v, 16) >= 0 for v in fps.values())
    # the fingerprint an agent holds is the same BLAKE2b-128
    with pytest.raises(ValueError):
        p2b.keygen(d)  # refuses to overwrite
    assert p2b.load_keys(d) == keys


def test_agent_fingerprints_match_keygen(make_agent, keys):
    fp = make_agent().fingerprints()
    assert fp["shuffler"].hex() == p2b.fingerprint_hex(keys["shuffler.box.pk"])
    assert fp["analyzer_verify"].hex() == keys.fingerprints()["analyzer.sign.pk"]


@pytest.mark.skipif(not os.environ.get("P2B_KEYGEN"), reason="P2B_KEYGEN (a p2b-keygen) not set")
def test_same_files_and_fingerprints_as_p2b_keygen(tmp_path):
    # scripts/python-test.sh sets P2B_KEYGEN to the host build's p2b-keygen.
    d = str(tmp_path / "cli")
    out = subprocess.run([os.environ["P2B_KEYGEN"], "--out", d], check=True,
                         capture_output=True, text=True).stdout
    printed = dict(re.findall(r"^(\S+\.pk)  fingerprint ([0-9a-f]{32})$", out, re.M))
    keys = p2b.load_keys(d)  # every file p2b-keygen wrote, at its exact size
    assert printed and keys.fingerprints() == printed
    ours = str(tmp_path / "py")
    p2b.keygen(ours)
    for name in p2b.keys.KEY_FILES:
        a, b = os.stat(os.path.join(d, name)), os.stat(os.path.join(ours, name))
        assert (stat.S_IMODE(a.st_mode), a.st_size) == (stat.S_IMODE(b.st_mode), b.st_size), name


@pytest.mark.skipif(not os.environ.get("P2B_KEYGEN"), reason="P2B_KEYGEN (a p2b-keygen) not set")
@pytest.mark.parametrize("kind", [k for k in p2b.keys.KEY_SETS if k != "p2b"])
def test_every_key_set_is_the_one_p2b_keygen_makes(tmp_path, kind):
    cli, ours = tmp_path / "cli", tmp_path / "py"
    subprocess.run([os.environ["P2B_KEYGEN"], "--out", str(cli), "--" + kind], check=True,
                   capture_output=True)
    keys = p2b.keygen(str(ours), kind=kind)
    assert sorted(os.listdir(cli)) == sorted(os.listdir(ours)) == sorted(keys.files)
    for name in keys.files:
        a, b = os.stat(cli / name), os.stat(ours / name)
        assert (stat.S_IMODE(a.st_mode), a.st_size) == (stat.S_IMODE(b.st_mode), b.st_size), name
        assert (ours / name).read_bytes() == keys[name]
    # Fresh keys each time.
    again = p2b.keygen(kind=kind)
    assert all(again[n] != keys[n] for n in keys.files)


def test_an_unknown_key_set_is_refused(tmp_path):
    with pytest.raises(ValueError):
        p2b.keygen(str(tmp_path), kind="vlf")
    assert os.listdir(tmp_path) == []

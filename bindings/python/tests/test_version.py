"""The package version is the C header's, and the linked library agrees."""

import re
from pathlib import Path

import p2b

HEADER = Path(__file__).resolve().parents[3] / "c_api" / "p2b.h"


def header_version():
    text = HEADER.read_text()
    return ".".join(
        re.search(r"#define P2B_VERSION_%s (\d+)" % p, text).group(1)
        for p in ("MAJOR", "MINOR", "PATCH")
    )


def test_version_matches_library_and_header():
    assert p2b.__version__ == p2b.version_string()
    assert p2b.__version__ == header_version()
    major, minor, patch = (int(x) for x in p2b.__version__.split("."))
    assert p2b.version() == major * 10000 + minor * 100 + patch


def test_sizes_are_the_headers():
    # p2b.h is the umbrella of one header per protocol: read them all
    text = "".join(h.read_text() for h in sorted(HEADER.parent.glob("p2b*.h")))
    for name in ("KEY_BYTES", "FINGERPRINT_BYTES", "ENVELOPE_BYTES", "STATE_KEY_BYTES"):
        value = int(re.search(r"#define P2B_%s (\d+)" % name, text).group(1))
        assert getattr(p2b, name) == value, name

"""What make-aar.py and check-aar.py share: the ABIs an AAR may hold, how
each is recognised in an ELF header, and the version in c_api/p2b.h."""

import re

# Android ABI -> (ELF class: 1 = 32-bit, 2 = 64-bit; ELF machine)
ABIS = {
    "arm64-v8a": (2, 183),  # EM_AARCH64
    "armeabi-v7a": (1, 40),  # EM_ARM
    "x86_64": (2, 62),  # EM_X86_64
    "x86": (1, 3),  # EM_386
}

# The STL values prefab's abi.json allows.
STLS = ("c++_shared", "c++_static", "none", "system")

PREFAB_SCHEMA_VERSION = 2
PACKAGE = "org.p2b"
MODULE = "p2b"
LIBRARY = "libp2b"
JNI_LIBRARY = "libp2b_jni.so"
# p2b.h includes the per-protocol headers; all go into the prefab package.
HEADERS = ("p2b.h", "p2b_common.h", "p2b_agent.h", "p2b_shared_model.h", "p2b_pfcb.h",
           "p2b_build_config.h")


def header_version(header_text):
    """The "major.minor.patch" of c_api/p2b.h's P2B_VERSION_* macros."""
    parts = []
    for name in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define P2B_VERSION_%s (\d+)$" % name, header_text, re.M)
        if m is None:
            raise ValueError("no #define P2B_VERSION_%s" % name)
        parts.append(m.group(1))
    return ".".join(parts)


def elf_kind(data):
    """(class, machine) of an ELF file's header, or None if it is not one."""
    if len(data) < 20 or data[:4] != b"\x7fELF":
        return None
    little = data[5] == 1
    machine = int.from_bytes(data[18:20], "little" if little else "big")
    return data[4], machine

#!/usr/bin/python3
"""Checks the layout and metadata of a p2b AAR (made by make-aar.py or by the
Gradle module): the required entries, the manifest, the prefab package
(schema version, the version of c_api/p2b.h, module.json, each ABI's abi.json
and library), libp2b_jni.so for the same ABIs as prefab, ELF headers that
match each ABI, and a classes.jar whose org.p2b classes are Java 8 bytecode
and declare native methods that every libp2b_jni.so defines.

usage: check-aar.py --header c_api/p2b.h [--abis A,B,...] AAR
Exits 0 when the AAR passes, 1 with every problem listed when it does not.
"""

import argparse
import io
import json
import os
import re
import struct
import sys
import zipfile

# No __pycache__ in the source tree when CI runs this.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aar_common as common  # noqa: E402

# The classes with native methods, and the ones the API needs besides.
NATIVE_CLASSES = ("P2B", "P2BAgent", "P2BCmab", "P2BSharedModel")
PLAIN_CLASSES = ("P2BException", "P2BStatus")
JAVA8_MAJOR = 52
ACC_NATIVE = 0x0100


def native_methods(class_bytes):
    """(major version, [native method names]) of a class file."""
    magic, _minor, major, count = struct.unpack_from(">IHHH", class_bytes, 0)
    if magic != 0xCAFEBABE:
        raise ValueError("not a class file")
    pos = 10
    utf8 = {}
    i = 1
    while i < count:  # the constant pool, to resolve method names
        tag = class_bytes[pos]
        if tag == 1:
            (n,) = struct.unpack_from(">H", class_bytes, pos + 1)
            utf8[i] = class_bytes[pos + 3:pos + 3 + n].decode("utf-8", "replace")
            pos += 3 + n
        elif tag in (3, 4, 9, 10, 11, 12, 17, 18):
            pos += 5
        elif tag in (5, 6):
            pos += 9
            i += 1  # longs and doubles take two slots
        elif tag in (7, 8, 16, 19, 20):
            pos += 3
        elif tag == 15:
            pos += 4
        else:
            raise ValueError("constant pool tag %d" % tag)
        i += 1
    pos += 6  # access flags, this, super
    (interfaces,) = struct.unpack_from(">H", class_bytes, pos)
    pos += 2 + 2 * interfaces

    def members(pos, keep_native):
        (n,) = struct.unpack_from(">H", class_bytes, pos)
        pos += 2
        found = []
        for _ in range(n):
            access, name, _desc, attrs = struct.unpack_from(">HHHH", class_bytes, pos)
            pos += 8
            for _ in range(attrs):
                (length,) = struct.unpack_from(">I", class_bytes, pos + 2)
                pos += 6 + length
            if keep_native and access & ACC_NATIVE:
                found.append(utf8[name])
        return pos, found

    pos, _ = members(pos, False)  # fields
    _, natives = members(pos, True)
    return major, natives


def jni_symbol(cls, method):
    """The JNI short name of a native method (no overloads here)."""
    def mangle(s):
        return s.replace("_", "_1")
    return "Java_org_p2b_%s_%s" % (mangle(cls), mangle(method))


def check(aar_path, header_path, want_abis):
    problems = []
    with open(header_path, encoding="utf-8") as f:
        version = common.header_version(f.read())
    try:
        z = zipfile.ZipFile(aar_path)
    except (OSError, zipfile.BadZipFile) as e:
        return ["not a readable zip: %s" % e]
    names = set(z.namelist())
    module_dir = "prefab/modules/%s/" % common.MODULE
    required = ["AndroidManifest.xml", "classes.jar", "R.txt", "proguard.txt",
                "prefab/prefab.json", module_dir + "module.json"]
    required += [module_dir + "include/" + h for h in common.HEADERS]
    for name in required:
        if name not in names:
            problems.append("missing %s" % name)

    # The manifest: the package and a minimum SDK.
    min_sdk = None
    if "AndroidManifest.xml" in names:
        text = z.read("AndroidManifest.xml").decode("utf-8", "replace")
        if not re.search(r'package="%s"' % re.escape(common.PACKAGE), text):
            problems.append("AndroidManifest.xml: package is not %s" % common.PACKAGE)
        m = re.search(r'android:minSdkVersion="(\d+)"', text)
        if m is None:
            problems.append("AndroidManifest.xml: no minSdkVersion")
        else:
            min_sdk = int(m.group(1))
    if "proguard.txt" in names and b"native <methods>" not in z.read("proguard.txt"):
        problems.append("proguard.txt does not keep the native methods")

    def load_json(name):
        try:
            return json.loads(z.read(name))
        except (KeyError, ValueError) as e:
            problems.append("%s: %s" % (name, e))
            return None

    # The prefab package and module.
    if "prefab/prefab.json" in names:
        p = load_json("prefab/prefab.json")
        if isinstance(p, dict):
            if p.get("schema_version") != common.PREFAB_SCHEMA_VERSION:
                problems.append("prefab.json: schema_version %r, expected %d"
                                % (p.get("schema_version"), common.PREFAB_SCHEMA_VERSION))
            if p.get("name") != common.MODULE:
                problems.append("prefab.json: name %r, expected %r" % (p.get("name"), common.MODULE))
            if p.get("version") != version:
                problems.append("prefab.json: version %r, but c_api/p2b.h says %s"
                                % (p.get("version"), version))
            if not isinstance(p.get("dependencies"), list):
                problems.append("prefab.json: dependencies is not a list")
        elif p is not None:
            problems.append("prefab.json is not an object")
    if module_dir + "module.json" in names:
        m = load_json(module_dir + "module.json")
        if isinstance(m, dict):
            if not isinstance(m.get("export_libraries", []), list):
                problems.append("module.json: export_libraries is not a list")
            if m.get("library_name") not in (None, common.LIBRARY):
                problems.append("module.json: library_name %r, expected %r"
                                % (m.get("library_name"), common.LIBRARY))
        elif m is not None:
            problems.append("module.json is not an object")

    def check_elf(name, abi):
        kind = common.elf_kind(z.read(name)[:64])
        if kind is None:
            problems.append("%s is not an ELF file" % name)
        elif abi in common.ABIS and kind != common.ABIS[abi]:
            problems.append("%s: ELF class/machine %s, not %s's %s"
                            % (name, kind, abi, common.ABIS[abi]))

    # Each ABI: abi.json and the library under prefab, the JNI shim under jni/.
    prefab_abis = set()
    for name in names:
        m = re.match(re.escape(module_dir) + r"libs/android\.([^/]+)/", name)
        if m:
            prefab_abis.add(m.group(1))
    for abi in sorted(prefab_abis):
        d = module_dir + "libs/android.%s/" % abi
        if abi not in common.ABIS:
            problems.append("%s: unknown ABI %r" % (d, abi))
        if d + "abi.json" not in names:
            problems.append("missing %sabi.json" % d)
            continue
        a = load_json(d + "abi.json")
        if not isinstance(a, dict):
            continue
        for field, kind in (("abi", str), ("api", int), ("ndk", int), ("stl", str),
                            ("static", bool)):
            if not isinstance(a.get(field), kind) or (kind is int and isinstance(a.get(field), bool)):
                problems.append("%sabi.json: %s missing or not %s" % (d, field, kind.__name__))
        if a.get("abi") != abi:
            problems.append("%sabi.json: abi %r in the directory of %s" % (d, a.get("abi"), abi))
        if isinstance(a.get("stl"), str) and a["stl"] not in common.STLS:
            problems.append("%sabi.json: stl %r" % (d, a["stl"]))
        if min_sdk is not None and isinstance(a.get("api"), int) and a["api"] > min_sdk:
            problems.append("%sabi.json: api %d above the manifest's minSdkVersion %d"
                            % (d, a["api"], min_sdk))
        lib = d + common.LIBRARY + (".a" if a.get("static") is True else ".so")
        if lib not in names:
            problems.append("missing %s" % lib)
        elif not lib.endswith(".a"):
            check_elf(lib, abi)
    jni_abis = {n.split("/")[1] for n in names if n.startswith("jni/") and n.count("/") == 2}
    for abi in sorted(jni_abis | prefab_abis):  # each ABI needs both libraries
        so = "jni/%s/%s" % (abi, common.JNI_LIBRARY)
        if so not in names:
            problems.append("missing %s" % so)
        else:
            check_elf(so, abi)
    if not jni_abis:
        problems.append("no jni/<abi>/ directory")
    if jni_abis != prefab_abis:
        problems.append("ABIs differ: jni/ has %s, prefab has %s"
                        % (sorted(jni_abis), sorted(prefab_abis)))
    if want_abis is not None and set(want_abis) != jni_abis:
        problems.append("ABIs %s, expected %s" % (sorted(jni_abis), sorted(want_abis)))

    # classes.jar: Java 8 classes; every native method defined by every shim.
    symbols = []
    if "classes.jar" in names:
        try:
            jar = zipfile.ZipFile(io.BytesIO(z.read("classes.jar")))
            jar_names = set(jar.namelist())
        except zipfile.BadZipFile as e:
            problems.append("classes.jar: %s" % e)
            jar_names = set()
            jar = None
        for cls in NATIVE_CLASSES + PLAIN_CLASSES:
            entry = "org/p2b/%s.class" % cls
            if entry not in jar_names:
                problems.append("classes.jar: missing %s" % entry)
                continue
            try:
                major, natives = native_methods(jar.read(entry))
            except (ValueError, struct.error, KeyError) as e:
                problems.append("classes.jar: %s: %s" % (entry, e))
                continue
            if major > JAVA8_MAJOR:
                problems.append("classes.jar: %s is class version %d, above Java 8's %d"
                                % (entry, major, JAVA8_MAJOR))
            if cls in NATIVE_CLASSES and not natives:
                problems.append("classes.jar: %s declares no native methods" % entry)
            symbols += [jni_symbol(cls, n) for n in natives]
    for abi in sorted(jni_abis):
        so = "jni/%s/%s" % (abi, common.JNI_LIBRARY)
        if so not in names:
            continue
        data = z.read(so)
        missing = [s for s in symbols if (s + "\0").encode() not in data]
        if missing:
            problems.append("%s lacks %d native method(s), e.g. %s"
                            % (so, len(missing), ", ".join(missing[:3])))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--header", required=True, help="c_api/p2b.h, the version source")
    ap.add_argument("--abis", help="comma-separated ABIs the AAR must hold, no more")
    ap.add_argument("aar")
    args = ap.parse_args()
    want = args.abis.split(",") if args.abis else None
    problems = check(args.aar, args.header, want)
    for p in problems:
        print("check-aar: %s: %s" % (args.aar, p), file=sys.stderr)
    if problems:
        sys.exit(1)
    print("check-aar: %s: layout and metadata OK" % args.aar)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The AAR checker must pass a good AAR and refuse each kind of broken one
with the right reason: this derives broken copies of a good AAR (made by
make-aar.py) and runs check-aar.py's check() on each.

usage: test_check_aar.py GOOD.aar c_api/p2b.h
"""

import importlib.util
import io
import json
import os
import sys
import tempfile
import zipfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("check_aar", os.path.join(HERE, "check-aar.py"))
check_aar = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_aar)

MODULE = "prefab/modules/p2b/"


def read_all(path):
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist()}


def write_all(path, entries):
    with zipfile.ZipFile(path, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)


def edit_json(entries, name, change):
    value = json.loads(entries[name])
    change(value)
    entries[name] = json.dumps(value).encode()


def edit_jar(entries, change):
    jar = read_all_bytes(entries["classes.jar"])
    change(jar)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in jar.items():
            z.writestr(name, data)
    entries["classes.jar"] = buf.getvalue()


def read_all_bytes(data):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: z.read(n) for n in z.namelist()}


def class_version(jar, major):
    name = "org/p2b/P2BStatus.class"
    jar[name] = jar[name][:6] + major.to_bytes(2, "big") + jar[name][8:]


def move_abi(entries, old, new):
    moved = {}
    for name, data in entries.items():
        name = name.replace("jni/%s/" % old, "jni/%s/" % new)
        name = name.replace("android.%s/" % old, "android.%s/" % new)
        moved[name] = data
    abi_json = MODULE + "libs/android.%s/abi.json" % new
    value = json.loads(moved[abi_json])
    value["abi"] = new
    moved[abi_json] = json.dumps(value).encode()
    entries.clear()
    entries.update(moved)


def main():
    good, header = sys.argv[1], sys.argv[2]
    failures = 0
    ok = check_aar.check(good, header, ["x86_64"])
    if ok:
        print("the good AAR is refused: %s" % ok, file=sys.stderr)
        failures += 1
    lib = MODULE + "libs/android.x86_64/"
    # (what is broken, how, a phrase the checker must give)
    cases = [
        ("no JNI shim", lambda e: e.pop("jni/x86_64/libp2b_jni.so"),
         "missing jni/x86_64/libp2b_jni.so"),
        ("no prefab library", lambda e: e.pop(lib + "libp2b.so"), "missing " + lib + "libp2b.so"),
        ("no header", lambda e: e.pop(MODULE + "include/p2b.h"), "missing " + MODULE + "include/p2b.h"),
        ("no manifest", lambda e: e.pop("AndroidManifest.xml"), "missing AndroidManifest.xml"),
        ("another package", lambda e: e.__setitem__(
            "AndroidManifest.xml", e["AndroidManifest.xml"].replace(b"org.p2b", b"org.other")),
         "package is not org.p2b"),
        ("another version", lambda e: edit_json(
            e, "prefab/prefab.json", lambda v: v.__setitem__("version", "9.9.9")),
         "c_api/p2b.h says"),
        ("prefab schema 1", lambda e: edit_json(
            e, "prefab/prefab.json", lambda v: v.__setitem__("schema_version", 1)),
         "schema_version 1"),
        ("abi.json without ndk", lambda e: edit_json(e, lib + "abi.json", lambda v: v.pop("ndk")),
         "ndk missing"),
        ("abi.json with a bad stl", lambda e: edit_json(
            e, lib + "abi.json", lambda v: v.__setitem__("stl", "gnustl")), "stl 'gnustl'"),
        ("abi.json says static", lambda e: edit_json(
            e, lib + "abi.json", lambda v: v.__setitem__("static", True)),
         "missing " + lib + "libp2b.a"),
        ("the x86_64 libraries filed as arm64-v8a", lambda e: move_abi(e, "x86_64", "arm64-v8a"),
         "not arm64-v8a's"),
        ("a shim without the Java_ symbols", lambda e: e.__setitem__(
            "jni/x86_64/libp2b_jni.so", e[lib + "libp2b.so"]), "lacks"),
        ("a class missing", lambda e: edit_jar(e, lambda j: j.pop("org/p2b/P2BCmab.class")),
         "missing org/p2b/P2BCmab.class"),
        ("Java 17 bytecode", lambda e: edit_jar(e, lambda j: class_version(j, 61)),
         "above Java 8"),
        ("proguard.txt keeps nothing", lambda e: e.__setitem__("proguard.txt", b""),
         "does not keep the native methods"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for what, breaks, reason in cases:
            entries = read_all(good)
            breaks(entries)
            broken = os.path.join(tmp, "broken.aar")
            write_all(broken, entries)
            problems = check_aar.check(broken, header, ["x86_64"])
            if not any(reason in p for p in problems):
                print("%s: expected a problem with %r, got %s" % (what, reason, problems),
                      file=sys.stderr)
                failures += 1
        not_zip = os.path.join(tmp, "not.aar")
        with open(not_zip, "wb") as f:
            f.write(b"PK but not really")
        if not any("not a readable zip" in p for p in check_aar.check(not_zip, header, None)):
            print("a non-zip file is not refused", file=sys.stderr)
            failures += 1
    if failures:
        sys.exit("test_check_aar: %d case(s) failed" % failures)
    print("test_check_aar: the good AAR passes, %d broken ones are refused" % (len(cases) + 1))


if __name__ == "__main__":
    main()

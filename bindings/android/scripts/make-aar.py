#!/usr/bin/python3
"""Assembles the p2b AAR from pieces built without Gradle, laid out as the
Gradle module (../build.gradle) lays it out:

  AndroidManifest.xml             package org.p2b, minSdkVersion
  classes.jar                     the org.p2b classes (javac --release 8)
  jni/<abi>/libp2b_jni.so         the JNI shim, one per ABI
  prefab/prefab.json              package p2b, the version of c_api/p2b.h
  prefab/modules/p2b/module.json
  prefab/modules/p2b/include/     p2b.h, p2b_build_config.h
  prefab/modules/p2b/libs/android.<abi>/abi.json + libp2b.so (or libp2b.a)
  R.txt                           empty: the library has no resources
  proguard.txt                    ../consumer-rules.pro

usage: make-aar.py --source-dir DIR --classes-jar JAR
                   --abi ABI:JNI_SO:LIBP2B [--abi ...] -o OUT.aar
DIR is the repository's top (c_api/ and bindings/android/ under it); the
version comes from DIR/c_api/p2b.h. Entries have fixed timestamps, so the
same inputs give the same bytes.
"""

import argparse
import io
import json
import os
import sys
import zipfile

# No __pycache__ in the source tree when CI runs this.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aar_common as common  # noqa: E402

FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def manifest(min_sdk):
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<manifest xmlns:android="http://schemas.android.com/apk/res/android"\n'
        '    package="%s">\n'
        '    <uses-sdk android:minSdkVersion="%d" />\n'
        "</manifest>\n" % (common.PACKAGE, min_sdk)
    )


def parse_abi(arg):
    parts = arg.split(":")
    if len(parts) != 3 or parts[0] not in common.ABIS:
        raise argparse.ArgumentTypeError(
            "--abi takes ABI:JNI_SO:LIBP2B with ABI one of %s" % ", ".join(common.ABIS))
    return parts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--classes-jar", required=True)
    ap.add_argument("--abi", type=parse_abi, action="append", required=True,
                    help="ABI:path of libp2b_jni.so:path of libp2b.so or libp2b.a")
    ap.add_argument("--min-sdk", type=int, default=24)
    ap.add_argument("--ndk", type=int, default=27, help="NDK major version, for abi.json")
    ap.add_argument("--stl", default="c++_static", choices=common.STLS)
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()

    with open(os.path.join(args.source_dir, "c_api", "p2b.h"), encoding="utf-8") as f:
        version = common.header_version(f.read())
    abis = sorted({a[0] for a in args.abi})
    if len(abis) != len(args.abi):
        sys.exit("make-aar: an ABI is given twice")

    entries = []  # (name, bytes)

    def add_file(name, path):
        with open(path, "rb") as f:
            entries.append((name, f.read()))

    entries.append(("AndroidManifest.xml", manifest(args.min_sdk).encode()))
    add_file("classes.jar", args.classes_jar)
    entries.append(("R.txt", b""))
    add_file("proguard.txt", os.path.join(args.source_dir, "bindings", "android",
                                          "consumer-rules.pro"))
    prefab = {"schema_version": common.PREFAB_SCHEMA_VERSION, "name": common.MODULE,
              "version": version, "dependencies": []}
    entries.append(("prefab/prefab.json", json.dumps(prefab, indent=2).encode()))
    module_dir = "prefab/modules/%s/" % common.MODULE
    module = {"export_libraries": [], "library_name": common.LIBRARY}
    entries.append((module_dir + "module.json", json.dumps(module, indent=2).encode()))
    for h in common.HEADERS:
        add_file(module_dir + "include/" + h, os.path.join(args.source_dir, "c_api", h))
    for abi, jni_so, lib in sorted(args.abi):
        add_file("jni/%s/%s" % (abi, common.JNI_LIBRARY), jni_so)
        static = lib.endswith(".a")
        libs_dir = module_dir + "libs/android.%s/" % abi
        abi_json = {"abi": abi, "api": args.min_sdk, "ndk": args.ndk, "stl": args.stl,
                    "static": static}
        entries.append((libs_dir + "abi.json", json.dumps(abi_json, indent=2).encode()))
        add_file(libs_dir + common.LIBRARY + (".a" if static else ".so"), lib)

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    tmp = args.output + ".tmp"
    with open(tmp, "wb") as f:
        f.write(buf.getvalue())
    os.replace(tmp, args.output)
    print("make-aar: %s (p2b %s; %s)" % (args.output, version, ", ".join(abis)))


if __name__ == "__main__":
    main()

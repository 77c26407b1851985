// swift-tools-version:5.7
// The Swift package: `import P2B` gives a Swift-native agent (throws, Data,
// [Float]) over the C API, which module CP2B exposes (bindings/swift/).
//
// Where the C library comes from:
// - Apple platforms: CP2B.xcframework from scripts/ios-xcframework.sh, at
//   out/ios/CP2B.xcframework (a binary target; libsodium is linked by the app);
// - elsewhere (Linux, macOS command line): the installed library, found
//   through pkg-config (`p2b.pc`, installed by `cmake --install`).
// The version is the git tag; the wrapper's P2B.headerVersion comes from the
// C header's P2B_VERSION_* macros, the project's one version source.
import Foundation
import PackageDescription

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let xcframework = "out/ios/CP2B.xcframework"
let haveXCFramework = FileManager.default.fileExists(
  atPath: packageRoot.appendingPathComponent(xcframework).path)

let cLibrary: Target =
  haveXCFramework
  ? .binaryTarget(name: "CP2B", path: xcframework)
  : .systemLibrary(
    name: "CP2B", path: "bindings/swift/Sources/CP2B", pkgConfig: "p2b",
    providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])])

let package = Package(
  name: "P2B",
  platforms: [.iOS(.v13), .macOS(.v10_15)],
  products: [.library(name: "P2B", targets: ["P2B"])],
  targets: [
    cLibrary,
    .target(name: "P2B", dependencies: ["CP2B"], path: "bindings/swift/Sources/P2B"),
    .testTarget(name: "P2BTests", dependencies: ["P2B"], path: "bindings/swift/Tests/P2BTests"),
  ]
)

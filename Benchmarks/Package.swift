// swift-tools-version: 6.1
// Benchmarks for docutil: a separate package, built in release mode, not run by `swift test`.
// Run: swift run -c release --package-path Benchmarks docutil-bench
import PackageDescription

let package = Package(
    name: "docutil-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "docutil", path: "..")],
    targets: [
        .target(name: "CHeap"),
        .executableTarget(
            name: "docutil-bench",
            dependencies: ["CHeap", .product(name: "ObjectGraph", package: "docutil")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

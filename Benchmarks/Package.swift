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
        .systemLibrary(name: "CBenchXML2", pkgConfig: "libxml-2.0"),
        .executableTarget(
            name: "docutil-bench",
            dependencies: [
                "CHeap", "CBenchXML2",
                .product(name: "ObjectGraph", package: "docutil"),
                .product(name: "XMLStore", package: "docutil"),
                .product(name: "BinaryStore", package: "docutil"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

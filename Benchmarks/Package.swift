// swift-tools-version: 6.1
// Benchmarks for docutil: a separate package, built in release mode, not run by `swift test`.
// Run: swift run -c release --package-path Benchmarks docutil-bench
import PackageDescription

let package = Package(
    name: "docutil-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "docutil", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .target(name: "CHeap"),
        .systemLibrary(name: "CBenchXML2", pkgConfig: "libxml-2.0"),
        .systemLibrary(name: "CBenchSQLite"),
        .executableTarget(
            name: "docutil-bench",
            dependencies: [
                "CHeap", "CBenchXML2", "CBenchSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ObjectGraph", package: "docutil"),
                .product(name: "XMLStore", package: "docutil"),
                .product(name: "BinaryStore", package: "docutil"),
                .product(name: "SQLiteStore", package: "docutil"),
                .product(name: "Documents", package: "docutil"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.1
// Fuzz targets for docutil's parsers and readers (libFuzzer). Never part of `swift test`: build and run them with
// Fuzz/run (see Fuzz/README.md).
import PackageDescription

let targets = [
    "fuzz-predicate", "fuzz-xml-store", "fuzz-binary-store", "fuzz-property-list", "fuzz-keyed-archive",
    "fuzz-model-cache", "fuzz-xcode-model", "fuzz-sqlite-store",
]

let package = Package(
    name: "docutil-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "docutil", path: "..")],
    targets: [
        .systemLibrary(name: "CSQLiteFuzz"),
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "ObjectGraph", package: "docutil"),
                .product(name: "ModelFiles", package: "docutil"),
                .product(name: "XMLStore", package: "docutil"),
                .product(name: "BinaryStore", package: "docutil"),
                .product(name: "SQLiteStore", package: "docutil"),
            ]),
    ]
        + targets.map { name in
            .executableTarget(
                name: name,
                dependencies: name == "fuzz-sqlite-store" ? ["FuzzSupport", "CSQLiteFuzz"] : ["FuzzSupport"])
        },
    swiftLanguageModes: [.v6]
)

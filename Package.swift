// swift-tools-version: 6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "docutil",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        .library(name: "ModelFiles", targets: ["ModelFiles"]),
        .library(name: "SQLiteStore", targets: ["SQLiteStore"]),
        .library(name: "XMLStore", targets: ["XMLStore"]),
        .library(name: "BinaryStore", targets: ["BinaryStore"]),
        .library(name: "Documents", targets: ["Documents"]),
        .executable(name: "docutil", targets: ["docutil"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `swift package generate-documentation` (Scripts/check-docs): DocC for every library, warnings as errors.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // C libraries, each behind one small system-library target.
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // Async-signal-safe cleanup of scratch folders, and file-type checks (a few lines of C).
        .target(name: "CSupport"),
        // Records libxml2's SAX2 push-parser events for the XML store's reader (a few lines of C).
        .target(name: "CXMLEvents", dependencies: ["CLibXML2"]),

        // The heart: model, values, hashing. Imports only Foundation.
        .target(name: "ObjectGraph", swiftSettings: strictSettings),
        // Xcode model sources, compiled models, property lists and keyed archives.
        .target(
            name: "ModelFiles",
            dependencies: ["ObjectGraph", "CLibXML2", "CZlib", "CSupport"],
            swiftSettings: strictSettings
        ),
        // Apple's Core Data SQLite store: schema, SQL fetches, faulting, incremental saves, checks.
        .target(
            name: "SQLiteStore",
            dependencies: ["ObjectGraph", "ModelFiles", "CSQLite"],
            swiftSettings: strictSettings
        ),
        // Apple's Core Data XML store, on libxml2.
        .target(
            name: "XMLStore", dependencies: ["ObjectGraph", "ModelFiles", "CLibXML2", "CXMLEvents"],
            swiftSettings: strictSettings),
        // Our binary store format (see Docs/BinaryStoreFormat.md).
        .target(
            name: "BinaryStore", dependencies: ["ObjectGraph", "ModelFiles", "CZlib"], swiftSettings: strictSettings),
        // The persistent document, opening for inspection and conversion, import, migration, check and diff.
        .target(
            name: "Documents", dependencies: ["ObjectGraph", "ModelFiles", "XMLStore", "BinaryStore", "SQLiteStore"],
            swiftSettings: strictSettings),
        .target(
            name: "DocUtilCLI",
            dependencies: [
                "ObjectGraph", "ModelFiles", "Documents", "CSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "docutil", dependencies: ["DocUtilCLI"], swiftSettings: strictSettings),

        // Helpers shared by the test targets (fixture paths, temporary copies).
        .target(
            name: "TestSupport", dependencies: ["ObjectGraph", "CSQLite", "CSupport"], path: "Tests/TestSupport",
            swiftSettings: strictSettings
        ),
        // The code of the DocC articles, compiled and run.
        .testTarget(
            name: "DocumentationTests",
            dependencies: [
                "ObjectGraph", "ModelFiles", "SQLiteStore", "XMLStore", "BinaryStore", "Documents", "TestSupport",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "ObjectGraphTests", dependencies: ["ObjectGraph", "ModelFiles", "TestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "ModelFilesTests",
            dependencies: ["ModelFiles", "ObjectGraph", "SQLiteStore", "XMLStore", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StoreConformanceTests",
            dependencies: ["ObjectGraph", "XMLStore", "BinaryStore", "SQLiteStore", "TestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "StoreTests",
            dependencies: ["ObjectGraph", "ModelFiles", "XMLStore", "BinaryStore", "Documents", "TestSupport"],
            exclude: ["Golden"],
            swiftSettings: strictSettings),
        // Saves a SQLite store in a loop until killed: the crash-safety test's child process.
        .executableTarget(
            name: "sqlite-save-loop", dependencies: ["ObjectGraph", "SQLiteStore", "TestSupport"],
            path: "Tests/SaveLoop", swiftSettings: strictSettings),
        .testTarget(
            name: "SQLiteStoreTests",
            dependencies: [
                "ObjectGraph", "ModelFiles", "SQLiteStore", "XMLStore", "Documents", "TestSupport", "CSQLite",
                "sqlite-save-loop",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "DocumentsTests",
            dependencies: [
                "docutil", "ObjectGraph", "ModelFiles", "Documents", "SQLiteStore", "TestSupport", "CSQLite",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "DocUtilCLITests",
            dependencies: ["docutil", "DocUtilCLI", "ObjectGraph", "ModelFiles", "Documents", "TestSupport"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

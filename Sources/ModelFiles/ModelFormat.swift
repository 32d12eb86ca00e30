import Foundation
import ObjectGraph

/// The forms a model can be loaded from.
public enum ModelFormat: String, Sendable, Hashable {
    /// An `.xcdatamodeld` bundle of model versions.
    case xcodeBundle = "xcdatamodeld"
    /// One `.xcdatamodel` directory.
    case xcodeModel = "xcdatamodel"
    /// A bare `contents` XML file.
    case contents
    /// A compiled `.momd` bundle.
    case compiledBundle = "momd"
    /// One compiled `.mom` file.
    case compiledModel = "mom"
    /// A SQLite store's `Z_MODELCACHE` blob.
    case modelCache = "Z_MODELCACHE"
}
